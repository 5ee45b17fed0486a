/**
 * What every operation answers, whichever adapter carries it (spec §4, §5): columns, order,
 * filters, paging, empty results and search history, through a real server and a real database.
 * The SOAP suite and the JSON API suite both run these tests against their own client
 * (operation-clients.ts), so one set of expectations holds for both.
 *
 * @example
 * describe("SOAP", () => { operationExpectations(() => ({ client: soapClient(url), fx, baseUrl: url, ... })); });
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { OperationAnswer, OperationClient } from "./operation-clients.js";
import { type Fixture, fixtureNow, hour } from "./service-fixture.js";
import type { ArgumentXml } from "./soap-test-client.js";

export interface ExpectationContext {
  readonly client: OperationClient;
  readonly fx: Fixture;
  readonly baseUrl: string;
  /** Sets the service's clock (epoch ms). */
  readonly setClock: (ms: number) => void;
  readonly now: () => number;
}

export const postColumns =
  "postId,postTitle,postLink,postExcerpt,postDate,feedId,feedName,categoryId,categoryName,languageId,clicks,trackingLink";
export const feedColumns =
  "feedId,feedName,feedUrl,siteUrl,feedDescription,categoryId,categoryName,languageId,postCount,lastPostDate";

/**
 * The column names in order. A JSON answer without items has none to read them from, so an empty
 * JSON answer passes this check; a SOAP one always carries its columnList.
 */
export function assertColumns(r: OperationAnswer, expected: string): void {
  if (r.columns === undefined) assert.equal(r.rows.length, 0, "columns missing from a non-empty answer");
  else assert.equal(r.columns.join(), expected);
}

export function column(r: OperationAnswer, name: string) {
  if (r.columns === undefined) return [];
  const i = r.columns.indexOf(name);
  assert.ok(i >= 0, `no column ${name}`);
  return r.rows.map((row) => row[i]);
}

export function operationExpectations(x: () => ExpectationContext): void {
  const ok = (op: string, args: Record<string, ArgumentXml> = {}) => x().client.ok(op, args);
  const ids = (r: OperationAnswer) => column(r, "postId");
  const p = (...names: string[]) => names.map((n) => x().fx.posts[n]);
  const setClock = (ms: number) => x().setClock(ms);
  const now = () => x().now();

  test("getMostRecentPosts: post columns typed by column, newest first, ties by id desc, paging", async () => {
    const r = await ok("getMostRecentPosts", { limit: 20, offset: 0, languageIds: "" });
    assertColumns(r, postColumns);
    assert.deepEqual(ids(r), p("b2", "a1", "b1", "d1", "c2", "a2", "c1", "a3"));
    const a1 = r.rows[1];
    assert.equal(a1[1], "Flex builder released");
    assert.equal(a1[2], "https://example.org/a1");
    assert.equal(a1[4], new Date(fixtureNow - hour).toISOString());
    assert.equal(a1[6], "Flex Weekly");
    assert.equal(a1[8], "Apple");
    assert.equal(a1[10], 3);
    assert.equal(a1[11], `${x().baseUrl}/click/${x().fx.posts.a1}`);
    // A post without a category has nil category cells, in place.
    const d1 = r.rows[3];
    assert.equal(d1.length, 12);
    assert.equal(d1[7], null);
    assert.equal(d1[8], null);
    // postDate: published, else updated, else first seen.
    assert.equal(column(r, "postDate")[4], new Date(fixtureNow - 5 * hour).toISOString());
    assert.equal(column(r, "postDate")[3], new Date(fixtureNow - 3 * hour).toISOString());
    const page2 = await ok("getMostRecentPosts", { limit: 3, offset: 3, languageIds: "" });
    assert.deepEqual(ids(page2), p("d1", "c2", "a2"));
    const past = await ok("getMostRecentPosts", { limit: 5, offset: 50, languageIds: "" });
    assertColumns(past, postColumns);
    assert.deepEqual(past.rows, []);
    const none = await ok("getMostRecentPosts", { limit: 0, offset: 0, languageIds: "" });
    assertColumns(none, postColumns);
    assert.deepEqual(none.rows, []);
  });

  test("languageIds filters on the post's language; spaces allowed; unknown ids match nothing", async () => {
    const fr = await ok("getMostRecentPosts", {
      limit: 20,
      offset: 0,
      languageIds: ` ${x().fx.languages.fr} `,
    });
    assert.deepEqual(ids(fr), p("b2", "b1"));
    const frDe = await ok("getMostRecentPosts", {
      limit: 20,
      offset: 0,
      languageIds: `${x().fx.languages.fr}, ${x().fx.languages.de}`,
    });
    assert.deepEqual(ids(frDe), p("b2", "b1", "c2", "c1"));
    const unknown = await ok("getMostRecentPosts", { limit: 20, offset: 0, languageIds: "999" });
    assert.deepEqual(unknown.rows, []);
    const nil = await ok("getMostRecentPosts", { limit: 20, offset: 0, languageIds: null });
    assert.equal(nil.rows.length, 8);
  });

  test("getPostsByCategory: the category's posts; sincepost as id, as date, as xsd:dateTime; languageIds", async () => {
    const base = { limit: 20, offset: 0, categoryId: x().fx.categories.apple, languageIds: "" };
    assert.deepEqual(
      ids(await ok("getPostsByCategory", { ...base, sincepost: null })),
      p("b2", "a1", "b1", "a2", "a3"),
    );
    assert.deepEqual(
      ids(await ok("getPostsByCategory", { ...base, sincepost: "" })),
      p("b2", "a1", "b1", "a2", "a3"),
    );
    const sinceId = await ok("getPostsByCategory", { ...base, sincepost: String(x().fx.posts.a2) });
    const newer = p("b2", "a1", "b1", "a2", "a3").filter((id) => id > x().fx.posts.a2);
    assert.ok(newer.length > 0);
    assert.deepEqual(ids(sinceId), newer);
    const sinceIdDouble = await ok("getPostsByCategory", {
      ...base,
      sincepost: { raw: `${x().fx.posts.a2}.0` },
    });
    assert.deepEqual(ids(sinceIdDouble), ids(sinceId));
    const since = new Date(fixtureNow - 1.5 * hour).toISOString().replace(".000Z", "");
    assert.deepEqual(ids(await ok("getPostsByCategory", { ...base, sincepost: since })), p("b2", "a1"));
    assert.equal((await ok("getPostsByCategory", { ...base, sincepost: { raw: "" } })).rows.length, 5);
    const fr = await ok("getPostsByCategory", {
      ...base,
      languageIds: String(x().fx.languages.fr),
      sincepost: null,
    });
    assert.deepEqual(ids(fr), p("b2", "b1"));
    const empty = await ok("getPostsByCategory", {
      ...base,
      categoryId: x().fx.categories.cherry,
      sincepost: null,
    });
    assertColumns(empty, postColumns);
    assert.deepEqual(empty.rows, []);
  });

  test("getPostsByFeed: newest first, paged", async () => {
    assert.deepEqual(
      ids(await ok("getPostsByFeed", { limit: 20, offset: 0, feedId: x().fx.feeds.flexWeekly })),
      p("a1", "a2", "a3"),
    );
    assert.deepEqual(
      ids(await ok("getPostsByFeed", { limit: 1, offset: 1, feedId: x().fx.feeds.flexWeekly })),
      p("a2"),
    );
  });

  test("getPostsBySmartCategory: by key (id 0 or its id), by id with an empty key; languageIds", async () => {
    const base = { limit: 20, offset: 0 };
    const byKey = await ok("getPostsBySmartCategory", {
      ...base,
      smartCategoryId: 0,
      smartCategoryKey: x().fx.smart.key,
      languageIds: "",
    });
    assertColumns(byKey, postColumns);
    assert.deepEqual(ids(byKey), p("a1", "a2"));
    const both = await ok("getPostsBySmartCategory", {
      ...base,
      smartCategoryId: x().fx.smart.id,
      smartCategoryKey: x().fx.smart.key.toUpperCase(),
      languageIds: "",
    });
    assert.deepEqual(ids(both), p("a1", "a2"));
    const byId = await ok("getPostsBySmartCategory", {
      ...base,
      smartCategoryId: x().fx.smart.id,
      smartCategoryKey: "",
      languageIds: "",
    });
    assert.deepEqual(ids(byId), p("a1", "a2"));
    const fr = await ok("getPostsBySmartCategory", {
      ...base,
      smartCategoryId: x().fx.smart.id,
      smartCategoryKey: "",
      languageIds: String(x().fx.languages.fr),
    });
    assert.deepEqual(fr.rows, []);
  });

  test("search: columns with score, AND/OR/phrase/exclusion, accents, sortBy, languageIds, paging", async () => {
    const base = { limit: 20, offset: 0, sortBy: "", languageIds: "" };
    const flex = await ok("search", { ...base, searchTerms: "flex" });
    assertColumns(flex, `${postColumns},score`);
    assert.deepEqual([...ids(flex)].sort(), p("a1", "a2", "a3").sort());
    for (const score of column(flex, "score")) {
      assert.ok(typeof score === "number" && score > 0, `score ${score}`);
    }
    assert.deepEqual(
      ids(await ok("search", { ...base, searchTerms: "flex", sortBy: "DATE" })),
      p("a1", "a2", "a3"),
    );
    assert.deepEqual(
      ids(await ok("search", { ...base, searchTerms: "flex", sortBy: "clicks" })),
      p("a1", "a2", "a3"),
    );
    assert.deepEqual(
      ids(await ok("search", { ...base, searchTerms: "flex -old", sortBy: "date" })),
      p("a1", "a2"),
    );
    assert.deepEqual(ids(await ok("search", { ...base, searchTerms: "CAFE", sortBy: "date" })), p("b1"));
    assert.deepEqual(
      ids(await ok("search", { ...base, searchTerms: '"builder released"', sortBy: "date" })),
      p("a1"),
    );
    assert.deepEqual(
      ids(await ok("search", { ...base, searchTerms: '"released builder"', sortBy: "date" })),
      [],
    );
    assert.deepEqual(
      ids(await ok("search", { ...base, searchTerms: "mauer OR zebrastreifen", sortBy: "date" })),
      p("c2", "c1"),
    );
    assert.deepEqual(
      ids(await ok("search", { ...base, searchTerms: "flex builder OR together", sortBy: "date" })),
      p("a1", "a2"),
    );
    // Matches the feed name too.
    assert.deepEqual(
      ids(await ok("search", { ...base, searchTerms: "berlin blog", sortBy: "date" })),
      p("c2", "c1"),
    );
    assert.deepEqual(ids(await ok("search", { ...base, searchTerms: "-flex" })), []);
    assert.deepEqual(
      ids(await ok("search", { ...base, searchTerms: "vu", languageIds: String(x().fx.languages.de) })),
      [],
    );
    assert.deepEqual(
      ids(await ok("search", { ...base, searchTerms: "flex", sortBy: "date", limit: 1, offset: 1 })),
      p("a2"),
    );
    // Any input is valid: unbalanced quotes, stray operators, markup.
    for (const terms of ['"unclosed', "OR", "- - -", "<b>&amp;</b>", "é OR -"])
      await ok("search", { ...base, searchTerms: terms });
  });

  test("getMostPopularPosts: clicks inside fractional windows, most first, ties newest first, category filter", async () => {
    const r = await ok("getMostPopularPosts", { daysBack: 30, limit: 20, categoryId: null });
    assertColumns(r, `${postColumns},periodClicks`);
    assert.deepEqual(ids(r), p("a1", "b1", "a2", "c1"));
    assert.deepEqual(column(r, "periodClicks"), [3, 2, 1, 1]);
    assert.deepEqual(
      ids(await ok("getMostPopularPosts", { daysBack: 0.25, limit: 20, categoryId: null })),
      p("a1"),
    );
    assert.deepEqual(
      ids(await ok("getMostPopularPosts", { daysBack: 0.5, limit: 20, categoryId: "" })),
      p("a1", "c1"),
    );
    assert.deepEqual(
      ids(
        await ok("getMostPopularPosts", {
          daysBack: 30,
          limit: 20,
          categoryId: String(x().fx.categories.apple),
        }),
      ),
      p("a1", "b1", "a2"),
    );
    assert.deepEqual(
      ids(await ok("getMostPopularPosts", { daysBack: 30, limit: 2, categoryId: x().fx.categories.apple })),
      p("a1", "b1"),
    );
    // categoryId omitted altogether means no restriction.
    const omitted = await ok("getMostPopularPosts", { daysBack: 30, limit: 20 });
    assert.deepEqual(ids(omitted), p("a1", "b1", "a2", "c1"));
  });

  test("getCategories, getSmartCategories, getLanguages", async () => {
    const c = await ok("getCategories");
    assertColumns(c, "categoryId,categoryName,feedCount");
    assert.deepEqual(c.rows, [
      [x().fx.categories.apple, "Apple", 2],
      [x().fx.categories.banana, "banana", 1],
      [x().fx.categories.cherry, "cherry", 0],
    ]);
    const s = await ok("getSmartCategories");
    assertColumns(s, "smartCategoryId,smartCategoryKey,smartCategoryName,smartCategoryQuery");
    assert.deepEqual(s.rows, [[x().fx.smart.id, x().fx.smart.key, "Flex stuff", "flex -old"]]);
    assert.match(x().fx.smart.key, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const l = await ok("getLanguages");
    assertColumns(l, "languageId,languageName,languageCode");
    assert.deepEqual(l.rows[0], [1, "English", "en"]);
    const codes = column(l, "languageCode");
    // One row per language: de-DE made the German row, filed as de.
    assert.ok(codes.includes("fr") && codes.includes("de"), String(codes));
    const langIds = column(l, "languageId") as number[];
    assert.deepEqual(
      langIds,
      [...langIds].sort((x, y) => x - y),
    );
  });

  test("feeds: getFeeds by name, by category, by language, most popular and most prolific windows", async () => {
    const all = await ok("getFeeds");
    assertColumns(all, feedColumns);
    assert.deepEqual(column(all, "feedName"), [
      "air notes",
      "Berlin Blog",
      "Flex Weekly",
      "Zeta Uncategorised",
    ]);
    const flex = all.rows[2];
    assert.equal(flex[2], "https://flex.example.org/feed");
    assert.equal(flex[6], "Apple");
    assert.equal(flex[8], 3);
    assert.equal(flex[9], new Date(fixtureNow - hour).toISOString());
    assert.deepEqual(all.rows[3].slice(5, 7), [null, null]);
    assert.deepEqual(
      column(await ok("getFeedsByCategory", { categoryId: x().fx.categories.apple }), "feedName"),
      ["air notes", "Flex Weekly"],
    );
    assert.deepEqual((await ok("getFeedsByCategory", { categoryId: x().fx.categories.cherry })).rows, []);
    assert.deepEqual(
      column(await ok("getFeedsByLanguage", { languageId: x().fx.languages.fr }), "feedName"),
      ["air notes"],
    );
    const popular = await ok("getMostPopularFeeds", { daysBack: 30, limit: 20 });
    assertColumns(popular, `${feedColumns},periodClicks`);
    assert.deepEqual(column(popular, "feedId"), [
      x().fx.feeds.flexWeekly,
      x().fx.feeds.airNotes,
      x().fx.feeds.berlinBlog,
    ]);
    assert.deepEqual(column(popular, "periodClicks"), [4, 2, 1]);
    assert.deepEqual(
      column(await ok("getMostPopularFeeds", { daysBack: 0.5, limit: 20 }), "periodClicks"),
      [3, 1],
    );
    const prolific = await ok("getMostProlificFeeds", { daysBack: 0.5, limit: 20 });
    assertColumns(prolific, `${feedColumns},periodPosts`);
    assert.deepEqual(column(prolific, "feedId"), [
      x().fx.feeds.airNotes,
      ...[x().fx.feeds.flexWeekly, x().fx.feeds.berlinBlog, x().fx.feeds.zeta].sort((x, y) => x - y),
    ]);
    assert.deepEqual(column(prolific, "periodPosts"), [2, 1, 1, 1]);
    assert.deepEqual(column(await ok("getMostProlificFeeds", { daysBack: 0.5, limit: 1 }), "feedId"), [
      x().fx.feeds.airNotes,
    ]);
  });

  test("getAggregateLanguageData: one row per language by id with counts", async () => {
    const r = await ok("getAggregateLanguageData");
    assertColumns(
      r,
      "languageId,languageName,languageCode,feedCount,postCount,postsLast24Hours,clicks,lastPostDate",
    );
    const en = r.rows.find((row) => row[0] === 1)!;
    assert.deepEqual(en.slice(0, 7), [1, "English", "en", 2, 4, 2, 4]);
    assert.equal(en[7], new Date(fixtureNow - hour).toISOString());
    const fr = r.rows.find((row) => row[0] === x().fx.languages.fr)!;
    assert.deepEqual(fr.slice(3, 7), [1, 2, 2, 2]);
    const langIds = column(r, "languageId") as number[];
    assert.deepEqual(
      langIds,
      [...langIds].sort((x, y) => x - y),
    );
  });

  test("search history: recorded on successful first pages only, distinct case-insensitively, newest first", async () => {
    const base = { limit: 5, sortBy: "", languageIds: "" };
    setClock(fixtureNow + 1000);
    await ok("search", { ...base, offset: 0, searchTerms: "Zebra  History" });
    setClock(now() + 1000);
    await ok("search", { ...base, offset: 5, searchTerms: "paged history" });
    await x().client.call("search", {
      ...base,
      offset: 0,
      sortBy: "bogus",
      searchTerms: "faulted history",
    });
    await ok("search", { ...base, offset: 0, searchTerms: "other history" });
    setClock(now() + 1000);
    await ok("search", { ...base, offset: 0, searchTerms: " zebra history " });
    setClock(fixtureNow);
    const h = await ok("getSearchHistory");
    assertColumns(h, "searchTerms,searchCount,lastSearched");
    const terms = column(h, "searchTerms") as string[];
    assert.deepEqual(terms.slice(0, 2), ["zebra history", "other history"]);
    assert.equal(column(h, "searchCount")[0], 2);
    assert.equal(column(h, "lastSearched")[0], new Date(fixtureNow + 3000).toISOString());
    assert.ok(!terms.some((t) => /paged|faulted|Zebra/.test(t)), terms.join("|"));
    assert.ok(h.rows.length <= 20);
  });
}
