/**
 * Contract: what readers do and what it ranks — clicks (deduplicated), most popular posts and
 * feeds, most prolific feeds, search history, language data — plus the install secret and health.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FeedServiceError } from "../../errors.js";
import { DAY, guids, HOUR, type StoreFactory, T0, withCorpus, withStore } from "./contract-fixture.js";

const TEN_MINUTES = 600_000;

export function activityContract(factory: StoreFactory): void {
  describe("clicks", () => {
    it(
      "counts a client once per post within the window, again after it, and every other client",
      withCorpus(factory, async ({ store, post }) => {
        const id = post.a1!;
        assert.deepEqual(await store.recordClick(id, "client-a", T0, TEN_MINUTES), {
          link: "https://example.test/a1",
        });
        await store.recordClick(id, "client-a", T0 + TEN_MINUTES - 1, TEN_MINUTES);
        await store.recordClick(id, "client-b", T0 + 1, TEN_MINUTES);
        const a1 = async () =>
          (await store.recentPosts({ limit: 100, offset: 0, languageIds: null })).find(
            (p) => p.postId === id,
          )!;
        assert.equal((await a1()).clicks, 2);
        await store.recordClick(id, "client-a", T0 + TEN_MINUTES, TEN_MINUTES);
        assert.equal((await a1()).clicks, 3, "the window has passed");
        await store.recordClick(post.a2!, "client-a", T0 + TEN_MINUTES, TEN_MINUTES);
        assert.equal((await a1()).clicks, 3, "another post is another count");
      }),
    );

    it(
      "answers undefined for an unknown post; insertClick refuses one",
      withCorpus(factory, async ({ store }) => {
        assert.equal(await store.recordClick(9999, "h", T0, TEN_MINUTES), undefined);
        await assert.rejects(
          store.insertClick(9999, "h", T0),
          (e: unknown) => e instanceof FeedServiceError && e.code === "FEED_NOT_FOUND",
        );
      }),
    );
  });

  describe("clicks in one batch", () => {
    it(
      "stores what insertClick stores for each click, and refuses a batch naming an unknown post whole",
      withCorpus(factory, async ({ store, post }) => {
        const clicks = [
          { postId: post.g2!, clientHash: "x", at: T0 - 3 * DAY },
          { postId: post.g2!, clientHash: "y", at: T0 - HOUR },
          { postId: post.a2!, clientHash: "x", at: T0 - HOUR },
          { postId: post.l1!, clientHash: "x", at: T0 - HOUR },
          { postId: post.l1!, clientHash: "y", at: T0 - 2 * HOUR },
        ];
        await store.insertClicks(clicks);
        const popular = await store.mostPopularPosts({ since: T0 - 2 * DAY, limit: 10, categoryId: null });
        assert.deepEqual(guids(popular), ["l1", "a2", "g2"]);
        assert.deepEqual(
          popular.map((p) => [p.periodClicks, p.clicks]),
          [
            [2, 2],
            [1, 1],
            [1, 2],
          ],
        );
        await assert.rejects(
          store.insertClicks([
            { postId: post.a3!, clientHash: "z", at: T0 - HOUR },
            { postId: 9999, clientHash: "z", at: T0 - HOUR },
          ]),
          (e: unknown) => e instanceof FeedServiceError && e.code === "FEED_NOT_FOUND",
        );
        const after = await store.mostPopularPosts({ since: T0 - 2 * DAY, limit: 10, categoryId: null });
        assert.deepEqual(guids(after), ["l1", "a2", "g2"], "nothing of the refused batch is kept");
        await store.insertClicks([]);
      }),
    );
  });

  describe("most popular and most prolific", () => {
    it(
      "ranks posts by clicks in the window, ties newest first, with a category filter",
      withCorpus(factory, async ({ store, post, cat }) => {
        await store.insertClick(post.g2!, "x", T0 - 3 * DAY); // outside a 2-day window
        await store.insertClick(post.g2!, "y", T0 - HOUR);
        await store.insertClick(post.a2!, "x", T0 - HOUR);
        await store.insertClick(post.a3!, "x", T0 - HOUR);
        await store.insertClick(post.l1!, "x", T0 - HOUR);
        await store.insertClick(post.l1!, "y", T0 - 2 * HOUR);
        const since = T0 - 2 * DAY;
        const popular = await store.mostPopularPosts({ since, limit: 10, categoryId: null });
        assert.deepEqual(guids(popular), ["l1", "a3", "a2", "g2"]);
        assert.deepEqual(
          popular.map((p) => [p.periodClicks, p.clicks]),
          [
            [2, 2],
            [1, 1],
            [1, 1],
            [1, 2],
          ],
        );
        const web = await store.mostPopularPosts({ since, limit: 10, categoryId: cat.web });
        assert.deepEqual(guids(web), ["a3", "a2"]);
        assert.deepEqual(guids(await store.mostPopularPosts({ since, limit: 1, categoryId: null })), ["l1"]);
        // The page boundary falls inside a tie on clicks: the newer post wins, then the larger id.
        assert.deepEqual(guids(await store.mostPopularPosts({ since, limit: 2, categoryId: null })), [
          "l1",
          "a3",
        ]);
        assert.deepEqual(guids(await store.mostPopularPosts({ since, limit: 4, categoryId: null })), [
          "l1",
          "a3",
          "a2",
          "g2",
        ]);
        assert.deepEqual(await store.mostPopularPosts({ since: T0, limit: 10, categoryId: null }), []);
        assert.deepEqual(await store.mostPopularPosts({ since, limit: 0, categoryId: null }), []);
      }),
    );

    it(
      "ranks feeds by clicks on their posts in the window, ties by id",
      withCorpus(factory, async ({ store, post, feed }) => {
        await store.insertClick(post.b1!, "x", T0 - HOUR);
        await store.insertClick(post.g1!, "x", T0 - HOUR);
        await store.insertClick(post.a1!, "x", T0 - HOUR);
        await store.insertClick(post.a2!, "x", T0 - HOUR);
        await store.insertClick(post.l1!, "x", T0 - 3 * DAY);
        const feeds = await store.mostPopularFeeds({ since: T0 - DAY, limit: 10 });
        assert.deepEqual(
          feeds.map((f) => [f.feedId, f.periodClicks]),
          [
            [feed.alpha, 2],
            [feed.beta, 1],
            [feed.gamma, 1],
          ],
        );
        assert.equal(feeds[0]!.feedName, "Alpha Blog");
        assert.equal(feeds[0]!.postCount, 4);
        assert.equal((await store.mostPopularFeeds({ since: T0 - DAY, limit: 1 })).length, 1);
      }),
    );

    it(
      "ranks feeds by posts dated within the window, fractional days allowed, ties by id",
      withCorpus(factory, async ({ store, feed }) => {
        const day = await store.mostProlificFeeds({ since: T0 - DAY, limit: 10 });
        assert.deepEqual(
          day.map((f) => [f.feedId, f.periodPosts]),
          [
            [feed.alpha, 4],
            [feed.beta, 1],
            [feed.gamma, 1],
          ],
        );
        const halfHour = await store.mostProlificFeeds({ since: T0 - HOUR / 2, limit: 10 });
        assert.deepEqual(
          halfHour.map((f) => [f.feedId, f.periodPosts]),
          [[feed.beta, 1]],
        );
        assert.deepEqual(await store.mostProlificFeeds({ since: T0 + DAY, limit: 10 }), []);
        const week = await store.mostProlificFeeds({ since: T0 - 7 * DAY, limit: 10 });
        assert.deepEqual(
          week.map((f) => [f.feedId, f.periodPosts]),
          [
            [feed.alpha, 4],
            [feed.beta, 2],
            [feed.gamma, 1],
          ],
        );
        const all = await store.mostProlificFeeds({ since: T0 - 100 * DAY, limit: 10 });
        assert.deepEqual(
          all.map((f) => [f.feedId, f.periodPosts]),
          [
            [feed.alpha, 4],
            [feed.beta, 2],
            [feed.gamma, 2],
            [feed.loose, 1],
          ],
        );
      }),
    );
  });

  describe("search history", () => {
    it(
      "keeps distinct terms (case and whitespace folded) in their latest spelling, newest first, counted",
      withStore(factory, async (store) => {
        await store.recordSearch("TypeScript  generics", T0);
        await store.recordSearch("sqlite", T0 + 1);
        await store.recordSearch("  typescript generics ", T0 + 2);
        await store.recordSearch("   ", T0 + 3);
        assert.deepEqual(await store.searchHistory(20), [
          { searchTerms: "typescript generics", searchCount: 2, lastSearched: T0 + 2 },
          { searchTerms: "sqlite", searchCount: 1, lastSearched: T0 + 1 },
        ]);
      }),
    );

    it(
      "gives the 20 most recent",
      withStore(factory, async (store) => {
        for (let i = 0; i < 25; i++) await store.recordSearch(`term ${i}`, T0 + i);
        const history = await store.searchHistory(20);
        assert.equal(history.length, 20);
        assert.equal(history[0]!.searchTerms, "term 24");
        assert.equal(history[19]!.searchTerms, "term 5");
      }),
    );
  });

  describe("language data", () => {
    it(
      "gives one row per language by id with feeds, posts, posts in the last 24 hours, clicks, last post",
      withCorpus(factory, async ({ store, lang, post }) => {
        await store.insertClick(post.b1!, "x", T0);
        await store.insertClick(post.b2!, "x", T0);
        await store.insertClick(post.a1!, "x", T0);
        const rows = await store.aggregateLanguageData(T0);
        assert.deepEqual(
          rows.map((r) => r.languageId),
          (await store.languages()).map((l) => l.languageId),
        );
        const byId = new Map(rows.map((r) => [r.languageId, r]));
        assert.deepEqual(byId.get(lang.en), {
          languageId: 1,
          languageName: "English",
          languageCode: "en",
          feedCount: 2,
          postCount: 5,
          postsLast24Hours: 4,
          clicks: 1,
          lastPostDate: T0 - HOUR,
        });
        assert.deepEqual(
          [byId.get(lang.fr)?.postCount, byId.get(lang.fr)?.clicks, byId.get(lang.fr)?.postsLast24Hours],
          [2, 2, 1],
        );
        const und = rows.find((r) => r.languageCode === "und")!;
        assert.deepEqual([und.feedCount, und.postCount, und.clicks, und.lastPostDate], [0, 0, 0, null]);
      }),
    );
  });

  describe("install secret and health", () => {
    it("creates the secret once and keeps it across reopening", async (t) => {
      const name = `secret-${t.name}`;
      const first = await factory(name);
      const secret = await first.installSecret();
      assert.match(secret, /^[0-9a-f]{64}$/);
      assert.equal(await first.installSecret(), secret);
      assert.equal(await first.ping(), true);
      await first.close();
      const again = await factory(name);
      assert.equal(await again.installSecret(), secret);
      await again.close();
    });

    it("keeps the first proposed value of an install setting, across reopening", async (t) => {
      const name = `setting-${t.name}`;
      const first = await factory(name);
      assert.equal(await first.installSetting("example", () => "one"), "one");
      assert.equal(await first.installSetting("example", () => "two"), "one");
      await first.close();
      const again = await factory(name);
      assert.equal(await again.installSetting("example", () => "three"), "one");
      assert.equal(await again.installSetting("other", () => "four"), "four");
      await again.close();
    });
  });
}
