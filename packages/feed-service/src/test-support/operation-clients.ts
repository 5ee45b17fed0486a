/**
 * One interface over two adapters for the shared expectations (operation-expectations.ts,
 * fault-expectations.ts): call an operation with its §4 arguments and read its answer as columns
 * and rows, or check its fault. The SOAP client posts a real RPC/encoded call; the JSON client
 * turns the same arguments into the §5.1 route and query string (written here from the spec, not
 * from routes.ts, so that a wrong route fails) and reads `items` back.
 */
import assert from "node:assert/strict";
import { type ArgumentXml, type Cell, callOperation } from "./soap-test-client.js";

export interface OperationAnswer {
  /** The column names in the answer's order; undefined for an empty JSON answer (no item to read them from). */
  readonly columns: string[] | undefined;
  readonly rows: Cell[][];
}

/** What kind of error the call must be refused with: bad argument (JSON 400) or names nothing (404). */
export type FaultKind = "bad-argument" | "not-found";

export interface OperationClient {
  readonly name: "SOAP" | "JSON";
  /** Calls and requires a successful answer. */
  ok(operation: string, args?: Readonly<Record<string, ArgumentXml>>): Promise<OperationAnswer>;
  /** Calls and returns the answer or undefined when refused (for calls whose outcome is not the point). */
  call(operation: string, args?: Readonly<Record<string, ArgumentXml>>): Promise<OperationAnswer | undefined>;
  /** Calls and requires the fault (SOAP) or problem document (JSON) with this message. */
  fault(
    operation: string,
    args: Readonly<Record<string, ArgumentXml>>,
    kind: FaultKind,
    message: string | RegExp,
  ): Promise<void>;
}

export function soapClient(baseUrl: string): OperationClient {
  return {
    name: "SOAP",
    async ok(operation, args = {}) {
      const r = await callOperation(baseUrl, operation, args);
      assert.equal(r.fault, undefined, `${operation} faulted: ${r.fault?.string}`);
      assert.equal(r.status, 200);
      assert.equal(r.contentType, "text/xml; charset=utf-8");
      return { columns: r.columns, rows: r.rows! };
    },
    async call(operation, args = {}) {
      const r = await callOperation(baseUrl, operation, args);
      return r.fault ? undefined : { columns: r.columns, rows: r.rows! };
    },
    async fault(operation, args, _kind, message) {
      const r = await callOperation(baseUrl, operation, args);
      assert.equal(r.status, 500, `${operation} answered ${r.status}`);
      assert.equal(r.contentType, "text/xml; charset=utf-8");
      assert.ok(r.fault, `${operation} did not fault`);
      assert.equal(r.fault.code, "soapenv:Server.userException");
      assert.ok(r.fault.string.startsWith("ComponentInvocationException: "), r.fault.string);
      const text = r.fault.string.replace(/^ComponentInvocationException: /, "");
      if (typeof message === "string") assert.equal(text, message);
      else assert.match(text, message);
      assert.match(r.fault.detail, /^fault:.*ComponentInvocationException.*:0$/);
      assert.doesNotMatch(r.body, /\bat \S+ \(|\/work\/|SELECT |sqlite/i);
    },
  };
}

type Args = Readonly<Record<string, ArgumentXml>>;

/** Spec §5.1: each operation's route, with its path parameters filled in from the arguments. */
const jsonRoutes: Record<string, (a: Args) => string> = {
  getMostRecentPosts: () => "/api/v1/posts",
  getMostPopularPosts: () => "/api/v1/posts/popular",
  search: () => "/api/v1/search",
  getSearchHistory: () => "/api/v1/search/history",
  getCategories: () => "/api/v1/categories",
  getPostsByCategory: (a) => `/api/v1/categories/${text(a.categoryId)}/posts`,
  getFeedsByCategory: (a) => `/api/v1/categories/${text(a.categoryId)}/feeds`,
  getSmartCategories: () => "/api/v1/smart-categories",
  getPostsBySmartCategory: (a) =>
    `/api/v1/smart-categories/${text(a.smartCategoryKey) || text(a.smartCategoryId)}/posts`,
  getFeeds: () => "/api/v1/feeds",
  getMostPopularFeeds: () => "/api/v1/feeds/popular",
  getMostProlificFeeds: () => "/api/v1/feeds/prolific",
  getPostsByFeed: (a) => `/api/v1/feeds/${text(a.feedId)}/posts`,
  getLanguages: () => "/api/v1/languages",
  getAggregateLanguageData: () => "/api/v1/languages/stats",
  getFeedsByLanguage: (a) => `/api/v1/languages/${text(a.languageId)}/feeds`,
};
/** Arguments that travel in the path, not the query string. */
const pathArguments = new Set(["categoryId", "feedId", "languageId", "smartCategoryId", "smartCategoryKey"]);
/** Query names that differ from the argument names (§5.1). */
const queryNames: Record<string, string> = { searchTerms: "q", sincepost: "since" };

/**
 * The message a JSON client reads for one a SOAP client reads: an argument sent under another
 * query name is called by that name (`The since query parameter must be ...`).
 */
function inQueryNames<T extends string | RegExp>(message: T): T {
  const rename = (s: string) =>
    Object.entries(queryNames).reduce(
      (out, [arg, name]) => out.replaceAll(`${arg} argument`, `${name} query parameter`),
      s,
    );
  return (
    typeof message === "string" ? rename(message) : new RegExp(rename(message.source), message.flags)
  ) as T;
}

function text(value: ArgumentXml | undefined): string {
  if (value === null || value === undefined) return "";
  return typeof value === "object" ? value.raw : String(value);
}

/** The §5.1 URL (path and query) of an operation call; nil arguments are left out. */
export function jsonUrl(operation: string, args: Args): string {
  const route = jsonRoutes[operation];
  assert.ok(route, `no JSON route for ${operation}`);
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(args)) {
    // getMostPopularPosts' categoryId is a query parameter; the other ids are in the path.
    if (value === null || (pathArguments.has(name) && operation !== "getMostPopularPosts")) continue;
    params.append(queryNames[name] ?? name, text(value));
  }
  const query = params.toString();
  return route(args) + (query ? `?${query}` : "");
}

export interface JsonAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly json: unknown;
}

export async function getJson(
  baseUrl: string,
  url: string,
  headers: Record<string, string> = {},
): Promise<JsonAnswer> {
  const res = await fetch(baseUrl + url, { headers });
  const body = await res.text();
  return { status: res.status, headers: res.headers, text: body, json: body ? JSON.parse(body) : undefined };
}

export function jsonClient(baseUrl: string): OperationClient {
  const read = (r: JsonAnswer): OperationAnswer => {
    // Post records end with `alsoIn`, the JSON API's own field (one story once, checked in
    // dedupe/story-views.test.ts); the shared expectations are the operation's columns.
    const items = (r.json as { items: Array<Record<string, Cell>> }).items.map((item) => {
      const { alsoIn: _alsoIn, ...columns } = item;
      return columns;
    });
    return {
      columns: items.length > 0 ? Object.keys(items[0]) : undefined,
      rows: items.map((item) => Object.values(item)),
    };
  };
  return {
    name: "JSON",
    async ok(operation, args = {}) {
      const r = await getJson(baseUrl, jsonUrl(operation, args));
      assert.equal(r.status, 200, `${operation} answered ${r.status}: ${r.text.slice(0, 300)}`);
      assert.equal(r.headers.get("content-type"), "application/json; charset=utf-8");
      return read(r);
    },
    async call(operation, args = {}) {
      const r = await getJson(baseUrl, jsonUrl(operation, args));
      return r.status === 200 ? read(r) : undefined;
    },
    async fault(operation, args, kind, soapMessage) {
      const message = inQueryNames(soapMessage);
      const url = jsonUrl(operation, args);
      const r = await getJson(baseUrl, url);
      const status = kind === "not-found" ? 404 : 400;
      assert.equal(r.status, status, `${url} answered ${r.status}: ${r.text.slice(0, 300)}`);
      assert.equal(r.headers.get("content-type"), "application/problem+json; charset=utf-8");
      const problem = r.json as Record<string, unknown>;
      assert.equal(problem.status, status);
      assert.equal(problem.type, "about:blank");
      assert.equal(problem.title, status === 404 ? "Not Found" : "Bad Request");
      if (typeof message === "string") assert.equal(problem.detail, message);
      else assert.match(String(problem.detail), message);
      assert.doesNotMatch(r.text, /\bat \S+ \(|\/work\/|SELECT |sqlite/i);
    },
  };
}
