/**
 * The checked fields of a new smart category, the same in both dialects: name and query as
 * bounded text, the key a UUID (lower-cased; a fresh one when none is given).
 */
import { randomUUID } from "node:crypto";
import { badArgument } from "../errors.js";
import { requireText } from "./text-checks.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Checks a new smart category's fields; throws FEED_BAD_ARGUMENT naming the field at fault.
 *
 * @example
 * const { name, query, key } = smartCategoryFields({ name: "Rust", query: "rust" });
 */
export function smartCategoryFields(args: { name: string; query: string; key?: string }): {
  name: string;
  query: string;
  key: string;
} {
  const name = requireText(args.name, "smart category name", 200);
  const query = requireText(args.query, "smart category query", 256);
  const key = args.key === undefined ? randomUUID() : args.key.trim().toLowerCase();
  if (!UUID.test(key)) {
    throw badArgument(
      `The smart category key must be a UUID such as 3f2504e0-4f89-11d3-9a0c-0305e82c3301; got ${JSON.stringify(args.key)}.`,
    );
  }
  return { name, query, key };
}
