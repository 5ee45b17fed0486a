/**
 * Opens the store named by a `--database` value (spec §6): a file path, `sqlite:<path>`, or
 * `:memory:`. PostgreSQL URLs are recognised and refused with a clear message until that dialect
 * ships.
 */
import { resolve } from "node:path";
import { badArgument, FeedServiceError } from "../errors.js";
import { openSqliteStore } from "./sqlite/sqlite-store.js";
import type { Store } from "./store.js";

/**
 * @example
 * const store = await openStore("./data/feeds.db");
 * const memory = await openStore(":memory:");
 */
export async function openStore(location: string): Promise<Store> {
  const value = location.trim();
  if (value === "") {
    throw badArgument(
      "The database must be a file path, sqlite:<path>, :memory: or a postgres:// URL; got nothing.",
    );
  }
  if (/^postgres(ql)?:\/\//i.test(value)) {
    throw new FeedServiceError(
      "FEED_STORE_UNAVAILABLE",
      "PostgreSQL databases are not supported yet; use a SQLite file path (or sqlite:<path>).",
    );
  }
  if (value === ":memory:" || value === "sqlite::memory:") return openSqliteStore(":memory:");
  const path = value.startsWith("sqlite:") ? value.slice("sqlite:".length) : value;
  if (path === "" || /^[a-z][a-z0-9+.-]*:\/\//i.test(path)) {
    throw badArgument(
      `The database must be a file path, sqlite:<path>, :memory: or a postgres:// URL; got ${JSON.stringify(location)}.`,
    );
  }
  return openSqliteStore(resolve(path));
}
