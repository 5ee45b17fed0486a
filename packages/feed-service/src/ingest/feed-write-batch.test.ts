import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { FeedServiceError } from "../errors.js";
import { openStore } from "../store/open-store.js";
import type { FeedUpdate, FeedUpdateResult, Store } from "../store/store.js";
import { incoming } from "../test-support/store-contract/contract-fixture.js";
import { postgresBackend, sqliteBackend, type TestBackend } from "../test-support/test-backends.js";
import { FeedWriteBatch } from "./feed-write-batch.js";

async function withStore(backend: TestBackend, fn: (store: Store) => Promise<void>): Promise<void> {
  const db = await backend.newDatabase();
  const store = await openStore(db.location);
  try {
    await fn(store);
  } finally {
    await store.close();
    db.drop();
  }
}

async function addFeeds(store: Store, n: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    ids.push((await store.addFeed({ feedUrl: `https://f${i}.test/feed`, feedName: `Feed ${i}` })).feedId);
  }
  return ids;
}

function posts(feed: string, n: number) {
  return Array.from({ length: n }, (_, i) => incoming(`${feed}-${i}`));
}

function codeOf(result: PromiseSettledResult<unknown>): string | undefined {
  if (result.status === "fulfilled") return undefined;
  return result.reason instanceof FeedServiceError ? result.reason.code : String(result.reason);
}

async function settleInTurn<T>(writes: ReadonlyArray<() => Promise<T>>): Promise<PromiseSettledResult<T>[]> {
  const results: PromiseSettledResult<T>[] = [];
  for (const write of writes) {
    try {
      results.push({ status: "fulfilled", value: await write() });
    } catch (reason) {
      results.push({ status: "rejected", reason });
    }
  }
  return results;
}

function suite(backend: TestBackend) {
  describe(`the write batch of an ingest pass (${backend.name})`, () => {
    it("keeps every other feed's posts and fetch state when some feeds of the batch fail", () =>
      withStore(backend, async (store) => {
        const [a, b, c, d] = await addFeeds(store, 4);
        // The batches the store is handed (both stores have the batch method).
        const batches: number[] = [];
        const applyAll = store.applyFeedUpdates?.bind(store);
        if (applyAll) {
          store.applyFeedUpdates = (updates) => {
            batches.push(updates.length);
            return applyAll(updates);
          };
        }
        const writer = new FeedWriteBatch(store);
        const write = (feedId: number, update: FeedUpdate) => writer.applyFeedUpdate(feedId, update);
        // Issued in one turn, so that on SQLite they form one batch; b and the unknown feed fail
        // after a and before c and d.
        const results = await Promise.allSettled([
          write(a!, { posts: posts("a", 3), fetchState: { etag: "a1" } }),
          write(b!, { posts: [...posts("b", 2), incoming("")], fetchState: { etag: "b1", errorCount: 0 } }),
          write(9999, { posts: posts("x", 1), fetchState: {} }),
          write(c!, { posts: posts("c", 2), fetchState: { etag: "c1" } }),
          write(d!, { posts: [incoming("d-0", { languageId: 9999 })], fetchState: { etag: "d1" } }),
        ]);
        assert.deepEqual(
          results.map((r) => (r.status === "fulfilled" ? r.value : codeOf(r))),
          [
            { inserted: 3, updated: 0 },
            "FEED_BAD_ARGUMENT",
            "FEED_NOT_FOUND",
            { inserted: 2, updated: 0 },
            "FEED_NOT_FOUND",
          ],
        );
        const feeds = new Map((await store.adminFeeds()).map((f) => [f.feedId, f]));
        assert.deepEqual(
          [a, b, c, d].map((id) => [feeds.get(id!)?.postCount, feeds.get(id!)?.etag]),
          [
            [3, "a1"],
            [0, null],
            [2, "c1"],
            [0, null],
          ],
          "the failed feeds wrote nothing, not even the posts before the bad one",
        );
        assert.deepEqual(
          batches,
          applyAll ? [5] : [],
          "the five writes of one turn went to the store together",
        );
        const stored = await store.postsByFeed({ feedId: c!, limit: 10, offset: 0 });
        assert.deepEqual(stored.map((p) => p.postTitle).sort(), ["Title c-0", "Title c-1"]);
      }));

    it("gives each feed the answer it would get written alone, in order", () =>
      withStore(backend, async (store) => {
        const [a, b] = await addFeeds(store, 2);
        const writer = new FeedWriteBatch(store);
        // Both move to one new URL: the first takes it, the second clashes with it, as one after the other.
        const move = { feedUrl: "https://moved.test/feed" };
        const writes: Array<() => Promise<FeedUpdateResult>> = [
          () => writer.applyFeedUpdate(a!, { posts: posts("a", 1), feed: move, fetchState: {} }),
          () => writer.applyFeedUpdate(b!, { posts: posts("b", 1), feed: move, fetchState: {} }),
          () => writer.applyFeedUpdate(a!, { posts: [...posts("a", 1), incoming("a-new")], fetchState: {} }),
        ];
        // With a batch method the three, issued in one turn, are one batch that must keep their
        // order. Without one each write goes straight to the store (PostgreSQL's pool commits
        // concurrent writes in the server's order): there the order is the caller's awaits.
        const results = store.applyFeedUpdates
          ? await Promise.allSettled(writes.map((write) => write()))
          : await settleInTurn(writes);
        assert.deepEqual(
          results.map((r) => (r.status === "fulfilled" ? r.value : codeOf(r))),
          [{ inserted: 1, updated: 0 }, "FEED_CONFLICT", { inserted: 1, updated: 0 }],
        );
        assert.equal((await store.feedById(a!))?.feedUrl, move.feedUrl);
        assert.equal((await store.feedById(b!))?.postCount, 0);
        assert.equal((await store.feedById(a!))?.postCount, 2);
      }));

    it("writes a queue larger than one batch's posts in several batches, losing none", () =>
      withStore(backend, async (store) => {
        const ids = await addFeeds(store, 5);
        const writer = new FeedWriteBatch(store, { maxPosts: 4 });
        const results = await Promise.all(
          ids.map((id, i) => writer.applyFeedUpdate(id, { posts: posts(`f${i}`, 3), fetchState: {} })),
        );
        assert.deepEqual(
          results.map((r) => r.inserted),
          [3, 3, 3, 3, 3],
        );
        const counts = (await store.adminFeeds()).map((f) => f.postCount);
        assert.deepEqual(counts, [3, 3, 3, 3, 3]);
      }));
  });
}

suite(sqliteBackend);
const pg = postgresBackend();
after(() => pg.stop());
suite(pg);
