/**
 * From a JSON API request to the arguments of its operation (spec §5.1): query parameters named
 * as in §4 (`q` and `since` stand for searchTerms and sincepost), each optional with its default
 * where §4 allows; path parameters as ids; `{idOrKey}` of a smart category a UUID key or a numeric
 * id. Values are coerced by the type the operation declares, then the operation's own readers
 * validate them, so a JSON client gets the same messages as a SOAP one.
 */
import type { Arguments, ArgumentValue } from "@feed-toolkit/soap";
import { badArgument, FeedServiceError } from "../errors.js";
import type { FeedOperation } from "../operations/operation-table.js";

export type QueryDefault = number | string | null;

/** A query parameter that feeds the argument `arg`; without a default it is required. */
export interface QueryParameter {
  readonly arg: string;
  readonly default?: QueryDefault;
}

/** Query parameters by their URL name: a default (the argument has the same name) or a mapping. */
export type QueryParameters = Readonly<Record<string, QueryDefault | QueryParameter>>;

/**
 * A query parameter under another name than its argument's, or a required one.
 *
 * @example
 * { q: queryParameter("searchTerms"), since: queryParameter("sincepost", null) }
 */
export function queryParameter(arg: string, fallback?: QueryDefault): QueryParameter {
  return fallback === undefined ? { arg } : { arg, default: fallback };
}

export function normaliseQueryParameters(query: QueryParameters): ReadonlyMap<string, QueryParameter> {
  return new Map(
    Object.entries(query).map(([name, spec]) => [
      name,
      spec !== null && typeof spec === "object" ? spec : { arg: name, default: spec },
    ]),
  );
}

/** Argument -> the query parameter standing for it, where the two names differ (`sincepost` -> `since`). */
export function renamedArguments(query: ReadonlyMap<string, QueryParameter>): ReadonlyMap<string, string> {
  return new Map(
    [...query].filter(([name, spec]) => name !== spec.arg).map(([name, spec]) => [spec.arg, name]),
  );
}

/**
 * An operation's error as a client of the URL reads it: an argument sent under another name is
 * called by that name (`The since query parameter must be ...`, not `sincepost`). SOAP faults keep
 * the operation's own names (spec §3), so the operations' messages stay as they are.
 *
 * @example
 * inQueryTerms(badArgument("The sincepost argument must be ..."), new Map([["sincepost", "since"]]));
 * // FeedServiceError: The since query parameter must be ...
 */
export function inQueryTerms(error: unknown, renamed: ReadonlyMap<string, string>): unknown {
  if (!(error instanceof FeedServiceError)) return error;
  let message = error.message;
  for (const [arg, name] of renamed)
    message = message.replaceAll(`The ${arg} argument`, `The ${name} query parameter`);
  return message === error.message ? error : new FeedServiceError(error.code, message, { cause: error });
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// A decimal number as §3 allows doubles (2, 2.0, -1, 1e3); other text goes to the reader as text,
// which names it in its message.
const decimal = /^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?\s*$/i;

function coerce(value: string, type: string): ArgumentValue {
  return type === "double" && decimal.test(value) ? Number(value) : value;
}

function firstText(value: unknown): string | undefined {
  if (Array.isArray(value)) return firstText(value[0]);
  return value === undefined || value === null ? undefined : String(value);
}

/** The smart category of `/smart-categories/{idOrKey}`: a UUID is its key, digits its id. */
export function smartCategoryArguments(idOrKey: string): Record<string, ArgumentValue> {
  if (uuid.test(idOrKey)) return { smartCategoryId: 0, smartCategoryKey: idOrKey };
  if (/^\d{1,15}$/.test(idOrKey)) return { smartCategoryId: Number(idOrKey), smartCategoryKey: "" };
  const shown = idOrKey.length > 60 ? `${idOrKey.slice(0, 57)}...` : idOrKey;
  throw badArgument(
    `The smart category in the path must be its id (a whole number) or its key (a UUID); got ${JSON.stringify(shown)}.`,
  );
}

/**
 * The operation's arguments for one request.
 *
 * @example
 * readApiArguments(op, normaliseQueryParameters({ limit: 20, offset: 0 }), { limit: "5" }, { feedId: "3" });
 * // { limit: 5, offset: 0, feedId: 3 }
 */
export function readApiArguments(
  operation: FeedOperation,
  query: ReadonlyMap<string, QueryParameter>,
  queryValues: Readonly<Record<string, unknown>>,
  pathValues: Readonly<Record<string, string>>,
): Arguments {
  const types = new Map(operation.parameters.map((p) => [p.name, p.type]));
  const args: Record<string, ArgumentValue> = {};
  for (const [name, value] of Object.entries(pathValues)) {
    if (name === "idOrKey") Object.assign(args, smartCategoryArguments(value));
    else args[name] = coerce(value, types.get(name) ?? "string");
  }
  for (const [name, spec] of query) {
    const text = firstText(queryValues[name]);
    if (text !== undefined) args[spec.arg] = coerce(text, types.get(spec.arg) ?? "string");
    else if (spec.default !== undefined) args[spec.arg] = spec.default;
    else {
      throw badArgument(
        `The ${name} query parameter is required (the ${spec.arg} argument of ${operation.name}) but was not sent.`,
      );
    }
  }
  return args;
}
