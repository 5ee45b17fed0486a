/** Contract: languages, categories, smart categories and feeds, with their orderings and rules. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FeedServiceError } from "../../errors.js";
import { incoming, type StoreFactory, T0, withCorpus, withStore } from "./contract-fixture.js";

function rejectsWith(code: string, pattern?: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof FeedServiceError, `expected a FeedServiceError, got ${String(error)}`);
    assert.equal(error.code, code);
    if (pattern) assert.match(error.message, pattern);
    return true;
  };
}

export function catalogContract(factory: StoreFactory): void {
  describe("languages", () => {
    it(
      "always has English as id 1 and Undetermined (und)",
      withStore(factory, async (store) => {
        const langs = await store.languages();
        assert.deepEqual(langs[0], { languageId: 1, languageName: "English", languageCode: "en" });
        assert.ok(langs.some((l) => l.languageCode === "und" && l.languageName === "Undetermined"));
        assert.deepEqual(await store.languageById(1), langs[0]);
        assert.equal(await store.languageById(9999), undefined);
      }),
    );

    it(
      "maps tags by primary subtag, creates new rows with English names, lists by id",
      withStore(factory, async (store) => {
        assert.equal((await store.ensureLanguage("en-US")).languageId, 1);
        const ptBr = await store.ensureLanguage("pt-br");
        assert.equal(ptBr.languageCode, "pt-BR");
        assert.equal(ptBr.languageName, "Brazilian Portuguese");
        assert.equal((await store.ensureLanguage("pt-PT")).languageId, ptBr.languageId);
        const ja = await store.ensureLanguage("JA");
        assert.deepEqual(ja, { languageId: ja.languageId, languageName: "Japanese", languageCode: "ja" });
        const named = await store.ensureLanguage("tlh", "Klingon");
        assert.equal(named.languageName, "Klingon");
        const ids = (await store.languages()).map((l) => l.languageId);
        assert.deepEqual(
          ids,
          [...ids].sort((a, b) => a - b),
        );
      }),
    );

    it(
      "refuses what is not a language tag, naming it",
      withStore(factory, async (store) => {
        await assert.rejects(
          store.ensureLanguage("not a tag"),
          rejectsWith("FEED_BAD_ARGUMENT", /"not a tag"/),
        );
        await assert.rejects(store.ensureLanguage(""), rejectsWith("FEED_BAD_ARGUMENT", /BCP 47/));
      }),
    );
  });

  describe("categories", () => {
    it(
      "lists by Unicode lower-case name then id, with feed counts",
      withCorpus(factory, async ({ store, cat }) => {
        const zeta = await store.addCategory("Zeta");
        const accented = await store.addCategory("Ébauches");
        const cats = await store.categories();
        assert.deepEqual(
          cats.map((c) => c.categoryName),
          ["databases", "Web", "Zeta", "Ébauches"],
        );
        assert.deepEqual(cats[1], { categoryId: cat.web, categoryName: "Web", feedCount: 2 });
        assert.equal(cats[2]!.feedCount, 0);
        assert.deepEqual(await store.categoryById(zeta.categoryId), zeta);
        assert.equal(accented.categoryName, "Ébauches");
        assert.equal(await store.categoryById(9999), undefined);
      }),
    );

    it(
      "refuses a duplicate name in any case, and an empty one",
      withCorpus(factory, async ({ store }) => {
        await assert.rejects(store.addCategory("WEB"), rejectsWith("FEED_CONFLICT", /"WEB" already exists/));
        await assert.rejects(store.addCategory("   "), rejectsWith("FEED_BAD_ARGUMENT", /category name/));
      }),
    );

    it(
      "removes a category, leaving its feeds without one",
      withCorpus(factory, async ({ store, cat, feed }) => {
        assert.equal(await store.removeCategory(cat.web), true);
        assert.equal(await store.removeCategory(cat.web), false);
        assert.equal((await store.feedById(feed.alpha))?.categoryId, null);
        assert.deepEqual(await store.feeds({ categoryId: cat.web }), []);
      }),
    );
  });

  describe("smart categories", () => {
    it(
      "adds with a generated or given key, finds by id and by key in any case, lists by name",
      withStore(factory, async (store) => {
        const b = await store.addSmartCategory({ name: "beta", query: "rust OR go" });
        assert.match(b.smartCategoryKey, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
        const key = "3F2504E0-4F89-11D3-9A0C-0305E82C3301";
        const a = await store.addSmartCategory({ name: "Alpha", query: "TypeScript OR JavaScript", key });
        assert.equal(a.smartCategoryKey, key.toLowerCase());
        assert.deepEqual(await store.smartCategoryByKey(key), a);
        assert.deepEqual(await store.smartCategoryById(b.smartCategoryId), b);
        assert.equal(await store.smartCategoryByKey("00000000-0000-0000-0000-000000000000"), undefined);
        assert.deepEqual(
          (await store.smartCategories()).map((s) => s.smartCategoryName),
          ["Alpha", "beta"],
        );
        assert.equal(await store.removeSmartCategory(b.smartCategoryId), true);
        assert.equal(await store.smartCategoryById(b.smartCategoryId), undefined);
        assert.equal(await store.removeSmartCategory(b.smartCategoryId), false);
      }),
    );

    it(
      "refuses a malformed or duplicate key and an empty name or query",
      withStore(factory, async (store) => {
        await assert.rejects(
          store.addSmartCategory({ name: "x", query: "y", key: "not-a-uuid" }),
          rejectsWith("FEED_BAD_ARGUMENT", /UUID.*"not-a-uuid"/),
        );
        const key = "3f2504e0-4f89-11d3-9a0c-0305e82c3301";
        await store.addSmartCategory({ name: "x", query: "y", key });
        await assert.rejects(
          store.addSmartCategory({ name: "z", query: "y", key }),
          rejectsWith("FEED_CONFLICT"),
        );
        await assert.rejects(
          store.addSmartCategory({ name: "", query: "y" }),
          rejectsWith("FEED_BAD_ARGUMENT"),
        );
        await assert.rejects(
          store.addSmartCategory({ name: "x", query: " " }),
          rejectsWith("FEED_BAD_ARGUMENT"),
        );
      }),
    );
  });

  describe("feeds", () => {
    it(
      "lists by lower-case name then id, with post counts and last post dates",
      withCorpus(factory, async ({ store, feed, cat, lang }) => {
        const feeds = await store.feeds();
        assert.deepEqual(
          feeds.map((f) => f.feedName),
          ["Alpha Blog", "ALPHA blog", "beta news", "Gamma"],
        );
        assert.deepEqual(feeds[0], {
          feedId: feed.alpha,
          feedName: "Alpha Blog",
          feedUrl: "https://alpha.test/feed",
          siteUrl: null,
          feedDescription: null,
          categoryId: cat.web,
          categoryName: "Web",
          languageId: lang.en,
          postCount: 4,
          lastPostDate: T0 - 3_600_000,
        });
        const empty = await store.addFeed({
          feedUrl: "https://empty.test/",
          feedName: "empty",
          siteUrl: "https://e/",
        });
        assert.equal(empty.postCount, 0);
        assert.equal(empty.lastPostDate, null);
        assert.equal(empty.siteUrl, "https://e/");
      }),
    );

    it(
      "filters by category and by language",
      withCorpus(factory, async ({ store, cat, lang }) => {
        assert.deepEqual(
          (await store.feeds({ categoryId: cat.web })).map((f) => f.feedName),
          ["Alpha Blog", "beta news"],
        );
        assert.deepEqual(
          (await store.feeds({ languageId: lang.en })).map((f) => f.feedName),
          ["Alpha Blog", "ALPHA blog"],
        );
        assert.deepEqual(await store.feeds({ languageId: 9999 }), []);
      }),
    );

    it(
      "refuses a duplicate URL, an unknown category or language, an empty name",
      withCorpus(factory, async ({ store }) => {
        await assert.rejects(
          store.addFeed({ feedUrl: "https://alpha.test/feed", feedName: "again" }),
          rejectsWith("FEED_CONFLICT", /already exists/),
        );
        await assert.rejects(
          store.addFeed({ feedUrl: "https://n.test/", feedName: "n", categoryId: 9999 }),
          rejectsWith("FEED_NOT_FOUND", /No category has id 9999/),
        );
        await assert.rejects(
          store.addFeed({ feedUrl: "https://n.test/", feedName: "n", languageId: 9999 }),
          rejectsWith("FEED_NOT_FOUND", /No language has id 9999/),
        );
        await assert.rejects(
          store.addFeed({ feedUrl: "https://n.test/", feedName: " " }),
          rejectsWith("FEED_BAD_ARGUMENT"),
        );
      }),
    );

    it(
      "keeps fetch state and metadata from refreshes, and lists due feeds soonest first",
      withCorpus(factory, async ({ store, feed }) => {
        await store.applyFeedUpdate(feed.beta, {
          posts: [],
          fetchState: {
            etag: '"v2"',
            lastModified: "Sat, 10 Jan 2026 00:00:00 GMT",
            nextFetchAt: T0 + 60_000,
          },
          feed: { siteUrl: "https://beta.test/", feedDescription: "Les nouvelles" },
        });
        await store.applyFeedUpdate(feed.gamma, {
          posts: [],
          fetchState: {
            nextFetchAt: T0 + 1000,
            lastFetchedAt: T0,
            errorCount: 2,
            lastError: "fetch: HTTP 503",
          },
        });
        const beta = await store.feedById(feed.beta);
        assert.equal(beta?.etag, '"v2"');
        assert.equal(beta?.lastModified, "Sat, 10 Jan 2026 00:00:00 GMT");
        assert.equal(beta?.siteUrl, "https://beta.test/");
        assert.equal(beta?.feedDescription, "Les nouvelles");
        const gamma = await store.feedById(feed.gamma);
        assert.deepEqual(
          [gamma?.errorCount, gamma?.lastError, gamma?.lastFetchedAt],
          [2, "fetch: HTTP 503", T0],
        );
        const due = await store.dueFeeds(T0 + 1000);
        assert.deepEqual(
          due.map((f) => f.feedId),
          [feed.alpha, feed.loose, feed.gamma],
        );
        assert.deepEqual(
          (await store.dueFeeds(T0, { all: true, limit: 2 })).map((f) => f.feedId),
          [feed.alpha, feed.loose],
        );
        assert.equal((await store.dueFeeds(T0, { all: true })).length, 4);
        assert.deepEqual(
          (await store.adminFeeds()).map((f) => f.feedId),
          [feed.alpha, feed.beta, feed.gamma, feed.loose],
        );
      }),
    );

    it(
      "refuses updates to unknown feeds, posts without a guid, a URL another feed has",
      withCorpus(factory, async ({ store, feed }) => {
        await assert.rejects(
          store.applyFeedUpdate(9999, { posts: [], fetchState: {} }),
          rejectsWith("FEED_NOT_FOUND"),
        );
        await assert.rejects(
          store.applyFeedUpdate(feed.alpha, { posts: [incoming("")], fetchState: {} }),
          rejectsWith("FEED_BAD_ARGUMENT", /guid/),
        );
        await assert.rejects(
          store.applyFeedUpdate(feed.alpha, {
            posts: [],
            fetchState: {},
            feed: { feedUrl: "https://beta.test/rss" },
          }),
          rejectsWith("FEED_CONFLICT"),
        );
        await assert.rejects(
          store.applyFeedUpdate(feed.alpha, {
            posts: [incoming("new1"), incoming("")],
            fetchState: { etag: "x" },
          }),
          rejectsWith("FEED_BAD_ARGUMENT"),
        );
        assert.equal((await store.feedById(feed.alpha))?.postCount, 4, "a failed refresh writes nothing");
        assert.equal((await store.feedById(feed.alpha))?.etag, null);
      }),
    );

    it(
      "removes a feed with its posts and clicks",
      withCorpus(factory, async ({ store, feed, post }) => {
        await store.insertClick(post.a1!, "h", T0);
        assert.equal(await store.removeFeed(feed.alpha), true);
        assert.equal(await store.removeFeed(feed.alpha), false);
        assert.equal(await store.feedById(feed.alpha), undefined);
        assert.equal((await store.recentPosts({ limit: 100, offset: 0, languageIds: null })).length, 5);
        assert.deepEqual(await store.mostPopularPosts({ since: 0, limit: 10, categoryId: null }), []);
        assert.equal(await store.recordClick(post.a1!, "h", T0, 600_000), undefined);
      }),
    );
  });
}
