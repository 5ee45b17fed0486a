/**
 * Every fault rule of spec §4 that an argument can break, whichever adapter carries the call: the
 * message names the parameter, the value received and what is allowed. The SOAP suite checks a
 * Server.userException with that message; the JSON API suite a problem document with it as its
 * detail, 400 for a bad argument and 404 for an id or key that names nothing.
 *
 * @example
 * describe("JSON faults", () => { faultExpectations(() => ({ client: jsonClient(url), fx })); });
 */
import { test } from "node:test";
import type { FaultKind, OperationClient } from "./operation-clients.js";
import type { Fixture } from "./service-fixture.js";
import type { ArgumentXml } from "./soap-test-client.js";

export interface FaultContext {
  readonly client: OperationClient;
  readonly fx: Fixture;
}

export function faultExpectations(x: () => FaultContext): void {
  const bad = (op: string, args: Record<string, ArgumentXml>, message: string | RegExp) =>
    x().client.fault(op, args, "bad-argument", message);
  const missing = (op: string, args: Record<string, ArgumentXml>, message: string | RegExp) =>
    x().client.fault(op, args, "not-found" satisfies FaultKind, message);
  const page = { limit: 10, offset: 0, languageIds: "" };

  test("limit and offset", async () => {
    await bad(
      "getMostRecentPosts",
      { ...page, limit: -1 },
      "The limit argument must be a whole number from 0 to 1000; got -1.",
    );
    await bad(
      "getMostRecentPosts",
      { ...page, limit: 1001 },
      /limit argument must be a whole number from 0 to 1000; got 1001\./,
    );
    await bad("getMostRecentPosts", { ...page, limit: 2.5 }, /got 2\.5\./);
    await bad(
      "getMostRecentPosts",
      { ...page, offset: -1 },
      "The offset argument must be a whole number of 0 or more; got -1.",
    );
  });

  test("daysBack windows", async () => {
    await bad(
      "getMostPopularPosts",
      { daysBack: 0, limit: 5, categoryId: null },
      /daysBack argument must be a number of days greater than 0 and at most 36500.*got 0\./,
    );
    await bad("getMostPopularFeeds", { daysBack: 36500.5, limit: 5 }, /got 36500\.5\./);
    await bad("getMostProlificFeeds", { daysBack: -1, limit: 5 }, /got -1\./);
  });

  test("languageIds", async () => {
    await bad(
      "getMostRecentPosts",
      { ...page, languageIds: "1,en" },
      /languageIds argument must be .*got "1,en", where "en" is not a whole number\./,
    );
    const many = Array.from({ length: 101 }, (_, i) => i + 1).join(",");
    await bad("getMostRecentPosts", { ...page, languageIds: many }, /at most 100 whole numbers.*got 101 ids/);
  });

  test("ids that name nothing, and ids that are not whole numbers", async () => {
    await missing(
      "getPostsByCategory",
      { ...page, categoryId: 99, sincepost: null },
      "No category has id 99.",
    );
    await bad(
      "getPostsByCategory",
      { ...page, categoryId: 1.5, sincepost: null },
      "The categoryId argument must be a whole number (an id); got 1.5.",
    );
    await missing("getPostsByFeed", { limit: 5, offset: 0, feedId: 99 }, "No feed has id 99.");
    await missing("getFeedsByCategory", { categoryId: 99 }, "No category has id 99.");
    await missing("getFeedsByLanguage", { languageId: 99 }, "No language has id 99.");
    await missing(
      "getMostPopularPosts",
      { daysBack: 1, limit: 5, categoryId: "99" },
      "No category has id 99.",
    );
    await bad(
      "getMostPopularPosts",
      { daysBack: 1, limit: 5, categoryId: "news" },
      /categoryId argument must be empty \(no restriction\) or a whole number \(an id\); got "news"\./,
    );
  });

  test("smart categories by id or key that name nothing", async () => {
    await missing(
      "getPostsBySmartCategory",
      { ...page, smartCategoryId: 99, smartCategoryKey: "" },
      "No smart category has id 99.",
    );
    await missing(
      "getPostsBySmartCategory",
      { ...page, smartCategoryId: 0, smartCategoryKey: "00000000-0000-4000-8000-000000000000" },
      'No smart category has key "00000000-0000-4000-8000-000000000000".',
    );
  });

  test("search operators with bad values (spec §4): named, with the accepted form", async () => {
    const search = { ...page, searchTerms: "flex", sortBy: "" };
    await bad(
      "search",
      { ...search, searchTerms: "flex after:yesterday" },
      "The search operator after:yesterday needs a UTC day written YYYY-MM-DD, such as after:2026-01-31.",
    );
    await bad(
      "search",
      { ...search, searchTerms: "lang:xyz" },
      /^The search operator lang:xyz names xyz, the code of no language this service knows; use codes such as lang:de or lang:de,fr \(known: en/,
    );
  });

  test("sincepost, sortBy and searchTerms", async () => {
    const cat = { ...page, categoryId: x().fx.categories.apple };
    await bad(
      "getPostsByCategory",
      { ...cat, sincepost: "yesterday" },
      /sincepost argument must be empty, a whole post id such as 1234, or an ISO 8601 instant .*got "yesterday"\./,
    );
    await bad(
      "getPostsByCategory",
      { ...cat, sincepost: "2024-02-30T00:00:00" },
      /got "2024-02-30T00:00:00"\./,
    );
    const search = { ...page, searchTerms: "flex", sortBy: "" };
    await bad(
      "search",
      { ...search, sortBy: "title" },
      /sortBy argument must be one of "relevance" .* "date" or "clicks"; got "title"\./,
    );
    await bad(
      "search",
      { ...search, searchTerms: "   " },
      /searchTerms argument must be text of 1 to 256 characters after trimming; got empty text\./,
    );
    await bad("search", { ...search, searchTerms: "x".repeat(257) }, /got 257 characters\./);
  });
}
