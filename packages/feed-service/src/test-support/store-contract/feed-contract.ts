/** Contract: feeds — listing, filters, fetch state, refresh rules and removal. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  HOUR,
  incoming,
  rejectsWith,
  type StoreFactory,
  T0,
  withCorpus,
  withStore,
} from "./contract-fixture.js";

export function feedContract(factory: StoreFactory): void {
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
      "keeps a feed's post count and newest date through new, older and re-dated posts",
      withStore(factory, async (store) => {
        const feedId = (await store.addFeed({ feedUrl: "https://count.test/", feedName: "Count" })).feedId;
        const counts = async () => {
          const f = await store.feedById(feedId);
          return [f?.postCount, f?.lastPostDate];
        };
        await store.applyFeedUpdate(feedId, { fetchState: {}, posts: [incoming("a", { publishedAt: T0 })] });
        assert.deepEqual(await counts(), [1, T0]);
        // Only new posts, all older than the newest stored: the newest date stays.
        await store.applyFeedUpdate(feedId, {
          fetchState: {},
          posts: [incoming("b", { publishedAt: T0 - HOUR }), incoming("c", { publishedAt: T0 - 2 * HOUR })],
        });
        assert.deepEqual(await counts(), [3, T0]);
        // The newest post re-dated to before the others: the newest date follows it down.
        await store.applyFeedUpdate(feedId, {
          fetchState: {},
          posts: [incoming("a", { publishedAt: T0 - 3 * HOUR, title: "A, re-dated" })],
        });
        assert.deepEqual(await counts(), [3, T0 - HOUR]);
      }),
    );

    it(
      "writes a refresh's posts in the order they came, one post per guid however often it repeats",
      withStore(factory, async (store) => {
        const feedId = (await store.addFeed({ feedUrl: "https://order.test/", feedName: "Order" })).feedId;
        await store.applyFeedUpdate(feedId, { fetchState: {}, posts: [incoming("kept", { title: "Kept" })] });
        // 2,500 new posts (more than one batch of any backend), one repeated with a new title,
        // one repeated unchanged, and a change to a post stored before.
        const posts = Array.from({ length: 2_500 }, (_, i) =>
          incoming(`g${i}`, { title: `Post ${i}`, publishedAt: T0 - ((i * 7919) % 2_500) * 60_000 }),
        );
        posts.splice(1_200, 0, incoming("g3", { title: "Post 3, again", seenAt: T0 + 5 }));
        posts.splice(1_800, 0, { ...posts[4]! });
        posts.push(incoming("kept", { title: "Kept, edited" }));
        const result = await store.applyFeedUpdate(feedId, { fetchState: {}, posts });
        assert.deepEqual(result, { inserted: 2_500, updated: 2 });
        const stored = await store.postsByFeed({ feedId, limit: 10_000, offset: 0 });
        assert.equal(stored.length, 2_501);
        const byGuidOrder = stored
          .filter((p) => p.postTitle !== "Kept, edited")
          .sort((a, b) => a.postId - b.postId);
        assert.deepEqual(
          byGuidOrder.map((p) => p.postTitle),
          Array.from({ length: 2_500 }, (_, i) => (i === 3 ? "Post 3, again" : `Post ${i}`)),
          "ids follow the order the posts came in",
        );
        // The later copy has no date of its own: it sorts by the first copy's first-seen time.
        assert.equal(stored.find((p) => p.postTitle === "Post 3, again")?.postDate, T0);
        assert.equal((await store.feedById(feedId))?.postCount, 2_501);
      }),
    );

    it(
      "lists the failing feeds, by id, with when and why they last failed",
      withCorpus(factory, async ({ store, feed }) => {
        assert.deepEqual(await store.failingFeeds(), []);
        const failure = (count: number, at: number, code: string, stage: string) => ({
          errorCount: count,
          lastErrorAt: at,
          lastError: `${stage}: ${code}`,
          lastErrorStage: stage,
          lastErrorCode: code,
        });
        await store.applyFeedUpdate(feed.gamma, {
          posts: [],
          fetchState: { lastSuccessAt: T0 - 3 * HOUR, ...failure(3, T0, "HTTP_404", "http") },
        });
        await store.applyFeedUpdate(feed.alpha, {
          posts: [],
          fetchState: failure(1, T0 - HOUR, "DNS", "fetch"),
        });
        // A success after failures: the last failure is kept, but the feed no longer fails.
        await store.applyFeedUpdate(feed.beta, { posts: [], fetchState: failure(2, T0, "TLS", "fetch") });
        await store.applyFeedUpdate(feed.beta, {
          posts: [],
          fetchState: { errorCount: 0, lastSuccessAt: T0 },
        });
        assert.deepEqual(await store.failingFeeds(), [
          {
            feedId: feed.alpha,
            errorCount: 1,
            lastErrorAt: T0 - HOUR,
            lastErrorStage: "fetch",
            lastErrorCode: "DNS",
            lastSuccessAt: null,
          },
          {
            feedId: feed.gamma,
            errorCount: 3,
            lastErrorAt: T0,
            lastErrorStage: "http",
            lastErrorCode: "HTTP_404",
            lastSuccessAt: T0 - 3 * HOUR,
          },
        ]);
      }),
    );

    it(
      "keeps a feed's post count and newest post date through refreshes that add and rewrite posts",
      withCorpus(factory, async ({ store, feed }) => {
        const counted = async () => {
          const f = await store.feedById(feed.alpha);
          return [f?.postCount, f?.lastPostDate];
        };
        const refresh = (...posts: ReturnType<typeof incoming>[]) =>
          store.applyFeedUpdate(feed.alpha, { fetchState: {}, posts });
        assert.deepEqual(await counted(), [4, T0 - HOUR]);
        await refresh(
          incoming("n1", { publishedAt: T0 - 5 * HOUR }),
          incoming("n2", { publishedAt: T0 - 2 * HOUR }),
        );
        assert.deepEqual(await counted(), [6, T0 - HOUR], "older posts leave the newest date");
        await refresh(
          incoming("n3", { publishedAt: T0 + HOUR }),
          incoming("n1", { publishedAt: T0 - 5 * HOUR }),
        );
        assert.deepEqual(await counted(), [7, T0 + HOUR]);
        await refresh(incoming("n3", { title: "n3, redated", publishedAt: T0 - 9 * HOUR }));
        assert.deepEqual(await counted(), [7, T0 - HOUR], "a rewritten post moves the newest date back");
        const feeds = await store.feeds();
        assert.deepEqual(
          feeds.filter((f) => f.feedId === feed.alpha).map((f) => [f.postCount, f.lastPostDate]),
          [[7, T0 - HOUR]],
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
        await assert.rejects(
          store.applyFeedUpdate(feed.alpha, {
            posts: [incoming("new2", { languageId: 9999 })],
            fetchState: {},
          }),
          rejectsWith("FEED_NOT_FOUND"),
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
        const en = (await store.aggregateLanguageData(T0)).find((l) => l.languageId === 1);
        assert.deepEqual(
          [en?.postCount, en?.clicks, en?.feedCount],
          [1, 0, 1],
          "only the loose feed's post is left",
        );
      }),
    );
  });
}
