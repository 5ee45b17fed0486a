/**
 * Every operation through real HTTP, the real SOAP decoder/encoder and a real database:
 * columns, order, filters, paging and empty results, read back by a namespace-aware parser.
 *
 * The suite runs once per backend (SQLite and PostgreSQL): one body, the same assertions.
 *
 * @example
 * soapOperationsSuite(sqliteBackend);
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  type Fixture,
  fixtureNow,
  hour,
  type RunningService,
  seedFixture,
  startTestService,
} from "./service-fixture.js";
import {
  type ArgumentXml,
  buildRequest,
  callOperation,
  postSoap,
  type SoapResult,
} from "./soap-test-client.js";
import type { TestBackend } from "./test-backends.js";

export function soapOperationsSuite(backend: TestBackend): void {
  describe(`SOAP operations (${backend.name})`, () => {
    let service: RunningService;
    let fx: Fixture;
    let clock = fixtureNow;

    before(async () => {
      service = await startTestService({ backend, now: () => clock });
      fx = await seedFixture(service.store);
    });
    after(() => service.close());

    async function ok(op: string, args: Record<string, ArgumentXml> = {}): Promise<SoapResult> {
      const r = await callOperation(service.baseUrl, op, args);
      assert.equal(r.fault, undefined, `${op} faulted: ${r.fault?.string}`);
      assert.equal(r.status, 200);
      assert.equal(r.contentType, "text/xml; charset=utf-8");
      return r;
    }
    function column(r: SoapResult, name: string) {
      const i = r.columns!.indexOf(name);
      assert.ok(i >= 0, `no column ${name}`);
      return r.rows!.map((row) => row[i]);
    }
    const ids = (r: SoapResult) => column(r, "postId");
    const p = (...names: string[]) => names.map((n) => fx.posts[n]);
    const postColumns =
      "postId,postTitle,postLink,postExcerpt,postDate,feedId,feedName,categoryId,categoryName,languageId,clicks,trackingLink";
    const feedColumns =
      "feedId,feedName,feedUrl,siteUrl,feedDescription,categoryId,categoryName,languageId,postCount,lastPostDate";

    test("getMostRecentPosts: post columns typed by column, newest first, ties by id desc, paging", async () => {
      const r = await ok("getMostRecentPosts", { limit: 20, offset: 0, languageIds: "" });
      assert.equal(r.columns!.join(), postColumns);
      assert.deepEqual(ids(r), p("b2", "a1", "b1", "d1", "c2", "a2", "c1", "a3"));
      assert.deepEqual(r.cellTypes![0], [
        "xsd:int",
        "xsd:string",
        "xsd:string",
        "xsd:string",
        "xsd:dateTime",
        "xsd:int",
        "xsd:string",
        "xsd:int",
        "xsd:string",
        "xsd:int",
        "xsd:int",
        "xsd:string",
      ]);
      const a1 = r.rows![1];
      assert.equal(a1[1], "Flex builder released");
      assert.equal(a1[2], "https://example.org/a1");
      assert.equal(a1[4], new Date(fixtureNow - hour).toISOString());
      assert.equal(a1[6], "Flex Weekly");
      assert.equal(a1[8], "Apple");
      assert.equal(a1[10], 3);
      assert.equal(a1[11], `${service.baseUrl}/click/${fx.posts.a1}`);
      // A post without a category has nil category cells, in place.
      const d1 = r.rows![3];
      assert.equal(d1.length, 12);
      assert.equal(d1[7], null);
      assert.equal(d1[8], null);
      // postDate: published, else updated, else first seen.
      assert.equal(column(r, "postDate")[4], new Date(fixtureNow - 5 * hour).toISOString());
      assert.equal(column(r, "postDate")[3], new Date(fixtureNow - 3 * hour).toISOString());
      const page2 = await ok("getMostRecentPosts", { limit: 3, offset: 3, languageIds: "" });
      assert.deepEqual(ids(page2), p("d1", "c2", "a2"));
      const past = await ok("getMostRecentPosts", { limit: 5, offset: 50, languageIds: "" });
      assert.equal(past.columns!.join(), postColumns);
      assert.deepEqual(past.rows, []);
      const none = await ok("getMostRecentPosts", { limit: 0, offset: 0, languageIds: "" });
      assert.equal(none.columns!.join(), postColumns);
      assert.deepEqual(none.rows, []);
    });

    test("languageIds filters on the post's language; spaces allowed; unknown ids match nothing", async () => {
      const fr = await ok("getMostRecentPosts", {
        limit: 20,
        offset: 0,
        languageIds: ` ${fx.languages.fr} `,
      });
      assert.deepEqual(ids(fr), p("b2", "b1"));
      const frDe = await ok("getMostRecentPosts", {
        limit: 20,
        offset: 0,
        languageIds: `${fx.languages.fr}, ${fx.languages.de}`,
      });
      assert.deepEqual(ids(frDe), p("b2", "b1", "c2", "c1"));
      const unknown = await ok("getMostRecentPosts", { limit: 20, offset: 0, languageIds: "999" });
      assert.deepEqual(unknown.rows, []);
      const nil = await ok("getMostRecentPosts", { limit: 20, offset: 0, languageIds: null });
      assert.equal(nil.rows!.length, 8);
    });

    test("getPostsByCategory: the category's posts; sincepost as id, as date, as xsd:dateTime; languageIds", async () => {
      const base = { limit: 20, offset: 0, categoryId: fx.categories.apple, languageIds: "" };
      assert.deepEqual(
        ids(await ok("getPostsByCategory", { ...base, sincepost: null })),
        p("b2", "a1", "b1", "a2", "a3"),
      );
      assert.deepEqual(
        ids(await ok("getPostsByCategory", { ...base, sincepost: "" })),
        p("b2", "a1", "b1", "a2", "a3"),
      );
      const sinceId = await ok("getPostsByCategory", { ...base, sincepost: String(fx.posts.a2) });
      const newer = p("b2", "a1", "b1", "a2", "a3").filter((id) => id > fx.posts.a2);
      assert.ok(newer.length > 0);
      assert.deepEqual(ids(sinceId), newer);
      const sinceIdDouble = await ok("getPostsByCategory", {
        ...base,
        sincepost: { raw: `${fx.posts.a2}.0` },
      });
      assert.deepEqual(ids(sinceIdDouble), ids(sinceId));
      const since = new Date(fixtureNow - 1.5 * hour).toISOString().replace(".000Z", "");
      assert.deepEqual(ids(await ok("getPostsByCategory", { ...base, sincepost: since })), p("b2", "a1"));
      const typed = `<sincepost xsi:type="xsd:dateTime">${new Date(fixtureNow - 2.5 * hour).toISOString()}</sincepost>`;
      assert.equal((await ok("getPostsByCategory", { ...base, sincepost: { raw: "" } })).rows!.length, 5);
      const body = buildRequest("getPostsByCategory", base).replace(
        "</ns1:getPostsByCategory>",
        `${typed}</ns1:getPostsByCategory>`,
      );
      const typedResult = await postSoap(`${service.baseUrl}/webservices/FeedAggregator`, body);
      assert.deepEqual(ids(typedResult), p("b2", "a1", "b1"));
      const fr = await ok("getPostsByCategory", {
        ...base,
        languageIds: String(fx.languages.fr),
        sincepost: null,
      });
      assert.deepEqual(ids(fr), p("b2", "b1"));
      const empty = await ok("getPostsByCategory", {
        ...base,
        categoryId: fx.categories.cherry,
        sincepost: null,
      });
      assert.equal(empty.columns!.join(), postColumns);
      assert.deepEqual(empty.rows, []);
    });

    test("getPostsByFeed: newest first, paged", async () => {
      assert.deepEqual(
        ids(await ok("getPostsByFeed", { limit: 20, offset: 0, feedId: fx.feeds.flexWeekly })),
        p("a1", "a2", "a3"),
      );
      assert.deepEqual(
        ids(await ok("getPostsByFeed", { limit: 1, offset: 1, feedId: fx.feeds.flexWeekly })),
        p("a2"),
      );
    });

    test("getPostsBySmartCategory: by key (id 0 or its id), by id with an empty key; languageIds", async () => {
      const base = { limit: 20, offset: 0 };
      const byKey = await ok("getPostsBySmartCategory", {
        ...base,
        smartCategoryId: 0,
        smartCategoryKey: fx.smart.key,
        languageIds: "",
      });
      assert.equal(byKey.columns!.join(), postColumns);
      assert.deepEqual(ids(byKey), p("a1", "a2"));
      const both = await ok("getPostsBySmartCategory", {
        ...base,
        smartCategoryId: fx.smart.id,
        smartCategoryKey: fx.smart.key.toUpperCase(),
        languageIds: "",
      });
      assert.deepEqual(ids(both), p("a1", "a2"));
      const byId = await ok("getPostsBySmartCategory", {
        ...base,
        smartCategoryId: fx.smart.id,
        smartCategoryKey: "",
        languageIds: "",
      });
      assert.deepEqual(ids(byId), p("a1", "a2"));
      const fr = await ok("getPostsBySmartCategory", {
        ...base,
        smartCategoryId: fx.smart.id,
        smartCategoryKey: "",
        languageIds: String(fx.languages.fr),
      });
      assert.deepEqual(fr.rows, []);
    });

    test("search: columns with score, AND/OR/phrase/exclusion, accents, sortBy, languageIds, paging", async () => {
      const base = { limit: 20, offset: 0, sortBy: "", languageIds: "" };
      const flex = await ok("search", { ...base, searchTerms: "flex" });
      assert.equal(flex.columns!.join(), `${postColumns},score`);
      assert.deepEqual([...ids(flex)].sort(), p("a1", "a2", "a3").sort());
      for (const [i, score] of column(flex, "score").entries()) {
        assert.equal(flex.cellTypes![i][12], "xsd:double");
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
        ids(await ok("search", { ...base, searchTerms: "vu", languageIds: String(fx.languages.de) })),
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
      assert.equal(r.columns!.join(), `${postColumns},periodClicks`);
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
            categoryId: String(fx.categories.apple),
          }),
        ),
        p("a1", "b1", "a2"),
      );
      assert.deepEqual(
        ids(await ok("getMostPopularPosts", { daysBack: 30, limit: 2, categoryId: fx.categories.apple })),
        p("a1", "b1"),
      );
      // categoryId omitted altogether means no restriction.
      const omitted = await callOperation(service.baseUrl, "getMostPopularPosts", {
        daysBack: 30,
        limit: 20,
      });
      assert.deepEqual(ids(omitted), p("a1", "b1", "a2", "c1"));
    });

    test("getCategories, getSmartCategories, getLanguages", async () => {
      const c = await ok("getCategories");
      assert.equal(c.columns!.join(), "categoryId,categoryName,feedCount");
      assert.deepEqual(c.rows, [
        [fx.categories.apple, "Apple", 2],
        [fx.categories.banana, "banana", 1],
        [fx.categories.cherry, "cherry", 0],
      ]);
      const s = await ok("getSmartCategories");
      assert.equal(
        s.columns!.join(),
        "smartCategoryId,smartCategoryKey,smartCategoryName,smartCategoryQuery",
      );
      assert.deepEqual(s.rows, [[fx.smart.id, fx.smart.key, "Flex stuff", "flex -old"]]);
      assert.match(fx.smart.key, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      const l = await ok("getLanguages");
      assert.equal(l.columns!.join(), "languageId,languageName,languageCode");
      assert.deepEqual(l.rows![0], [1, "English", "en"]);
      const codes = column(l, "languageCode");
      // One row per primary subtag: de-DE made the German row.
      assert.ok(codes.includes("fr") && codes.some((c) => String(c).startsWith("de")), String(codes));
      const langIds = column(l, "languageId") as number[];
      assert.deepEqual(
        langIds,
        [...langIds].sort((x, y) => x - y),
      );
    });

    test("feeds: getFeeds by name, by category, by language, most popular and most prolific windows", async () => {
      const all = await ok("getFeeds");
      assert.equal(all.columns!.join(), feedColumns);
      assert.deepEqual(column(all, "feedName"), [
        "air notes",
        "Berlin Blog",
        "Flex Weekly",
        "Zeta Uncategorised",
      ]);
      const flex = all.rows![2];
      assert.equal(flex[2], "https://flex.example.org/feed");
      assert.equal(flex[6], "Apple");
      assert.equal(flex[8], 3);
      assert.equal(flex[9], new Date(fixtureNow - hour).toISOString());
      assert.deepEqual(all.rows![3].slice(5, 7), [null, null]);
      assert.deepEqual(
        column(await ok("getFeedsByCategory", { categoryId: fx.categories.apple }), "feedName"),
        ["air notes", "Flex Weekly"],
      );
      assert.deepEqual((await ok("getFeedsByCategory", { categoryId: fx.categories.cherry })).rows, []);
      assert.deepEqual(column(await ok("getFeedsByLanguage", { languageId: fx.languages.fr }), "feedName"), [
        "air notes",
      ]);
      const popular = await ok("getMostPopularFeeds", { daysBack: 30, limit: 20 });
      assert.equal(popular.columns!.join(), `${feedColumns},periodClicks`);
      assert.deepEqual(column(popular, "feedId"), [
        fx.feeds.flexWeekly,
        fx.feeds.airNotes,
        fx.feeds.berlinBlog,
      ]);
      assert.deepEqual(column(popular, "periodClicks"), [4, 2, 1]);
      assert.deepEqual(
        column(await ok("getMostPopularFeeds", { daysBack: 0.5, limit: 20 }), "periodClicks"),
        [3, 1],
      );
      const prolific = await ok("getMostProlificFeeds", { daysBack: 0.5, limit: 20 });
      assert.equal(prolific.columns!.join(), `${feedColumns},periodPosts`);
      assert.deepEqual(column(prolific, "feedId"), [
        fx.feeds.airNotes,
        ...[fx.feeds.flexWeekly, fx.feeds.berlinBlog, fx.feeds.zeta].sort((x, y) => x - y),
      ]);
      assert.deepEqual(column(prolific, "periodPosts"), [2, 1, 1, 1]);
      assert.deepEqual(column(await ok("getMostProlificFeeds", { daysBack: 0.5, limit: 1 }), "feedId"), [
        fx.feeds.airNotes,
      ]);
    });

    test("getAggregateLanguageData: one row per language by id with counts", async () => {
      const r = await ok("getAggregateLanguageData");
      assert.equal(
        r.columns!.join(),
        "languageId,languageName,languageCode,feedCount,postCount,postsLast24Hours,clicks,lastPostDate",
      );
      const en = r.rows!.find((row) => row[0] === 1)!;
      assert.deepEqual(en.slice(0, 7), [1, "English", "en", 2, 4, 2, 4]);
      assert.equal(en[7], new Date(fixtureNow - hour).toISOString());
      const fr = r.rows!.find((row) => row[0] === fx.languages.fr)!;
      assert.deepEqual(fr.slice(3, 7), [1, 2, 2, 2]);
      const langIds = column(r, "languageId") as number[];
      assert.deepEqual(
        langIds,
        [...langIds].sort((x, y) => x - y),
      );
    });

    test("search history: recorded on successful first pages only, distinct case-insensitively, newest first", async () => {
      const base = { limit: 5, sortBy: "", languageIds: "" };
      clock = fixtureNow + 1000;
      await ok("search", { ...base, offset: 0, searchTerms: "Zebra  History" });
      clock += 1000;
      await ok("search", { ...base, offset: 5, searchTerms: "paged history" });
      await callOperation(service.baseUrl, "search", {
        ...base,
        offset: 0,
        sortBy: "bogus",
        searchTerms: "faulted history",
      });
      await ok("search", { ...base, offset: 0, searchTerms: "other history" });
      clock += 1000;
      await ok("search", { ...base, offset: 0, searchTerms: " zebra history " });
      clock = fixtureNow;
      const h = await ok("getSearchHistory");
      assert.equal(h.columns!.join(), "searchTerms,searchCount,lastSearched");
      const terms = column(h, "searchTerms") as string[];
      assert.deepEqual(terms.slice(0, 2), ["zebra history", "other history"]);
      assert.equal(column(h, "searchCount")[0], 2);
      assert.equal(column(h, "lastSearched")[0], new Date(fixtureNow + 3000).toISOString());
      assert.ok(!terms.some((t) => /paged|faulted|Zebra/.test(t)), terms.join("|"));
      assert.ok(h.rows!.length <= 20);
    });
  });
}
