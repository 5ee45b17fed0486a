/**
 * The SQLite store as `serve` opens it (reads on query threads, writes on the calling thread):
 * the whole store contract unchanged, the query deadline with the real store, and a writer's
 * commits seen at once by the query threads.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import { FeedServiceError } from "../../errors.js";
import { resolveSearchFilters } from "../../operations/search-filters.js";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { incoming, T0 } from "../../test-support/store-contract/contract-fixture.js";
import { runStoreContract } from "../../test-support/store-contract.js";
import { openStore } from "../open-store.js";
import { SqlitePooledStore } from "./sqlite-pooled-store.js";

const dir = mkdtempSync(join(tmpdir(), "feed-pooled-store-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function fileFor(name: string): string {
  return join(dir, `${name.replace(/[^A-Za-z0-9-]+/g, "_").slice(0, 80)}.db`);
}

// One query thread per lane keeps the suite's many stores cheap; the lanes' logic is the same.
runStoreContract("sqlite, reads on query threads", (name) =>
  openStore(fileFor(name), { queryLimits: { threads: 1 } }),
);

describe("sqlite store with query threads", () => {
  it("is what openStore gives for a file with query limits, and a plain store for :memory:", async () => {
    const pooled = await openStore(fileFor("kind"), { queryLimits: {} });
    const memory = await openStore(":memory:", { queryLimits: {} });
    try {
      assert.ok(pooled instanceof SqlitePooledStore);
      assert.ok(!(memory instanceof SqlitePooledStore));
    } finally {
      await pooled.close();
      await memory.close();
    }
  });

  it("sees each write at once on its query threads", async () => {
    const store = await openStore(fileFor("fresh-reads"), { queryLimits: { threads: 2 } });
    try {
      const feed = await store.addFeed({ feedUrl: "https://fresh.test/rss", feedName: "Fresh" });
      for (let i = 1; i <= 5; i++) {
        await store.applyFeedUpdate(feed.feedId, {
          posts: [incoming(`p${i}`, { seenAt: T0 + i })],
          fetchState: {},
        });
        const page = await store.recentPosts({ limit: 10, offset: 0, languageIds: null });
        assert.equal(page.length, i);
        assert.equal(page[0]!.postTitle, `Title p${i}`);
      }
      assert.deepEqual(
        (await store.feeds()).map((f) => f.postCount),
        [5],
      );
    } finally {
      await store.close();
    }
  });

  it("searches `feed:` by the feeds' names as they are at the call, kept between changes", async () => {
    const path = fileFor("feed-names");
    const store = await openStore(path, { queryLimits: { threads: 2 } });
    try {
      const feed = await store.addFeed({ feedUrl: "https://names.test/a", feedName: "Alpha diary" });
      await store.applyFeedUpdate(feed.feedId, { posts: [incoming("a1")], fetchState: {} });
      const titles = async (terms: string) =>
        (
          await store.searchPosts({
            query: await resolveSearchFilters(store, parseSearchQuery(terms)),
            sort: "date",
            limit: 10,
            offset: 0,
            languageIds: null,
          })
        ).map((p) => p.postTitle);
      assert.deepEqual(await titles("feed:alpha"), ["Title a1"]);
      // Unchanged: the same list, neither read nor analysed again.
      assert.equal(await store.feedNames!(), await store.feedNames!());
      // A refresh that renames the feed (this process's writer): the very next call.
      await store.applyFeedUpdate(feed.feedId, {
        posts: [],
        fetchState: {},
        feed: { feedName: "Beta diary" },
      });
      assert.deepEqual(await titles("feed:alpha"), []);
      assert.deepEqual(await titles("feed:beta"), ["Title a1"]);
      // A refresh that writes the feed's row with its own name keeps the list.
      const kept = await store.feedNames!();
      await store.applyFeedUpdate(feed.feedId, {
        posts: [incoming("a2")],
        fetchState: {},
        feed: { feedName: "Beta diary" },
      });
      assert.equal(await store.feedNames!(), kept);
      // Added and removed.
      const other = await store.addFeed({ feedUrl: "https://names.test/b", feedName: "Gamma diary" });
      await store.applyFeedUpdate(other.feedId, { posts: [incoming("b1")], fetchState: {} });
      assert.deepEqual(await titles("feed:gamma"), ["Title b1"]);
      assert.deepEqual((await titles("feed:diary")).sort(), ["Title a1", "Title a2", "Title b1"]);
      await store.removeFeed(other.feedId);
      assert.deepEqual(await titles("feed:gamma"), []);
      // Renamed by another connection (another process, the CLI): its commit moves data_version.
      const elsewhere = new Database(path);
      try {
        elsewhere.prepare("UPDATE feeds SET name = 'Delta diary' WHERE id = ?").run(feed.feedId);
      } finally {
        elsewhere.close();
      }
      assert.deepEqual(
        (await store.feedNames!()).map((f) => f.feedName),
        ["Delta diary"],
      );
    } finally {
      await store.close();
    }
  });

  it("keeps the catalog lists until the file is written, by this process or another", async () => {
    const path = fileFor("catalog-lists");
    const store = await openStore(path, { queryLimits: { threads: 1 } });
    try {
      const web = await store.addCategory("Web");
      const names = async () => (await store.categories()).map((c) => c.categoryName);
      assert.deepEqual(await names(), ["Web"]);
      // Unchanged: the kept records (a query thread's answer would be new objects), each caller
      // with its own array.
      const [first, second] = [await store.categories(), await store.categories()];
      assert.notEqual(first, second);
      assert.equal(first[0], second[0]);
      const [l1, l2] = [await store.languages(), await store.languages()];
      assert.equal(l1[0], l2[0]);
      // This process's write: the very next call.
      const news = await store.addCategory("News");
      assert.deepEqual((await names()).sort(), ["News", "Web"]);
      // One kept list per filter.
      await store.addFeed({ feedUrl: "https://lists.test/a", feedName: "A", categoryId: web.categoryId });
      await store.addFeed({ feedUrl: "https://lists.test/b", feedName: "B", categoryId: news.categoryId });
      const feedsOf = async (categoryId: number) =>
        (await store.feeds({ categoryId })).map((f) => f.feedName);
      assert.deepEqual(await feedsOf(web.categoryId), ["A"]);
      assert.deepEqual(await feedsOf(news.categoryId), ["B"]);
      assert.deepEqual(await feedsOf(web.categoryId), ["A"]);
      assert.deepEqual((await store.feeds()).map((f) => f.feedName).sort(), ["A", "B"]);
      // Another connection's commit (another process, the CLI) moves data_version.
      const elsewhere = new Database(path);
      try {
        elsewhere.prepare("INSERT INTO categories (name, name_key) VALUES ('Art', 'art')").run();
        elsewhere.prepare("UPDATE feeds SET name = 'A2' WHERE name = 'A'").run();
      } finally {
        elsewhere.close();
      }
      assert.deepEqual((await names()).sort(), ["Art", "News", "Web"]);
      assert.deepEqual(await feedsOf(web.categoryId), ["A2"]);
    } finally {
      await store.close();
    }
  });

  it("answers a call still running at the deadline with FEED_QUERY_TIMEOUT and keeps serving", async () => {
    const path = fileFor("deadline");
    const writer = await openStore(path);
    const feed = await writer.addFeed({ feedUrl: "https://slow.test/rss", feedName: "Slow" });
    const posts = Array.from({ length: 5000 }, (_, i) =>
      incoming(`s${i}`, { seenAt: T0 + i, title: `common words ${i}`, excerpt: "common words again" }),
    );
    await writer.applyFeedUpdate(feed.feedId, { posts, fetchState: {} });
    await writer.close();
    // 1 ms: no search of 1,000 rows among 5,000 hits (ranked, read and sent back) finishes in time.
    const strict = (await openStore(path, {
      queryLimits: { queryTimeoutMs: 1, threads: 1 },
    })) as SqlitePooledStore;
    const relaxed = await openStore(path, { queryLimits: { threads: 1 } });
    const search = {
      limit: 1000,
      offset: 0,
      languageIds: null,
      query: parseSearchQuery("common"),
      sort: "relevance" as const,
    };
    try {
      const error = await strict.searchPosts(search).then(
        () => assert.fail("the search should have passed the deadline"),
        (e: unknown) => e,
      );
      assert.ok(error instanceof FeedServiceError);
      assert.equal(error.code, "FEED_QUERY_TIMEOUT");
      assert.match(error.message, /1 ms query deadline/);
      assert.equal(strict.laneStats.heavy.timedOut, 1);
      assert.equal((await relaxed.searchPosts(search)).length, 1000);
    } finally {
      await strict.close();
      await relaxed.close();
    }
  });
});
