/**
 * The catalogue lists kept in the process (postgres-catalog-copy.ts, migration 57) on a real
 * PostgreSQL server: a second store stands for another process (the CLI, `serve --workers N`), a
 * plain connection for any other client. Every list a store keeps must equal what the database
 * answers once a commit's notification has arrived; its own writes are seen by the very next call;
 * an open or rolled-back transaction is never seen; a lost LISTEN connection drops what is kept.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type pg from "pg";
import { startTestPostgres, type TestPostgres } from "../../test-support/test-postgres-server.js";
import * as catalog from "./postgres-catalog-queries.js";
import { openPostgresPool } from "./postgres-connection.js";
import { openPostgresStore, type PostgresStore } from "./postgres-store.js";

let server: TestPostgres;
before(async () => {
  server = await startTestPostgres();
});
after(() => server?.stop());

/** Every list the store keeps, as the store answers it. */
async function lists(store: PostgresStore, categoryIds: number[]) {
  return {
    categories: await store.categories(),
    smartCategories: await store.smartCategories(),
    languages: await store.languages(),
    feeds: await store.feeds(),
    byCategory: await Promise.all(categoryIds.map((categoryId) => store.feeds({ categoryId }))),
    byLanguage: await store.feeds({ languageId: 1 }),
  };
}

/** The same lists read from the database now. */
async function truth(pool: pg.Pool, categoryIds: number[]) {
  return {
    categories: await catalog.categories(pool),
    smartCategories: await catalog.smartCategories(pool),
    languages: await catalog.languages(pool),
    feeds: await catalog.feeds(pool),
    byCategory: await Promise.all(categoryIds.map((categoryId) => catalog.feeds(pool, { categoryId }))),
    byLanguage: await catalog.feeds(pool, { languageId: 1 }),
  };
}

/**
 * Waits (at most 3 s) until the store's lists equal the database's: a commit by another connection
 * reaches this process as a notification, after the commit.
 */
async function settles(store: PostgresStore, pool: pg.Pool, categoryIds: number[], what: string) {
  const expected = await truth(pool, categoryIds);
  const deadline = Date.now() + 3000;
  for (;;) {
    const got = await lists(store, categoryIds);
    try {
      assert.deepEqual(got, expected, what);
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}

/** Counts the statements a store's read pool is sent. */
function countReads(store: PostgresStore): { count: number } {
  const counter = { count: 0 };
  const pool = store.readSide.pool;
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  (pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    counter.count++;
    return query(...args);
  };
  return counter;
}

describe("PostgreSQL catalogue lists kept in the process", () => {
  let url: string;
  let store: PostgresStore;
  let other: PostgresStore;
  let pool: pg.Pool;
  let ids: number[];
  before(async () => {
    url = await server.createDatabase("catalog_copy");
    store = await openPostgresStore({ url });
    other = await openPostgresStore({ url });
    pool = await openPostgresPool({ url });
    const a = await other.addCategory("Alpha");
    const b = await other.addCategory("Beta");
    ids = [a.categoryId, b.categoryId];
    await other.addFeed({ feedUrl: "https://a.test/feed", feedName: "Kyoto Notes", categoryId: ids[0] });
    await other.addFeed({ feedUrl: "https://b.test/feed", feedName: "Osaka Daily", categoryId: ids[1] });
  });
  after(async () => {
    await store?.close();
    await other?.close();
    await pool?.end();
  });

  it("answers a second call from the process, with no statement", async () => {
    assert.equal(store.catalogCopy?.listening, true);
    await settles(store, pool, ids, "first read");
    const reads = countReads(store);
    const first = await store.categories();
    const again = await store.categories();
    await store.feeds({ categoryId: ids[0]! });
    await store.smartCategories();
    await store.languages();
    assert.equal(reads.count, 0, "kept lists sent no statement");
    assert.notEqual(first, again, "each caller gets its own array");
    assert.deepEqual(first, again);
  });

  it("sees this store's own writes on the very next call", async () => {
    for (let i = 0; i < 10; i++) {
      const c = await store.addCategory(`Own ${i}`);
      assert.ok((await store.categories()).some((r) => r.categoryId === c.categoryId));
      const feed = await store.admin.addFeed(
        "test",
        { feedUrl: `https://own${i}.test/feed`, feedName: `Own ${i}` },
        1,
      );
      await store.admin.editFeed("test", feed.feedId, { categoryId: c.categoryId }, 2);
      assert.equal((await store.categories()).find((r) => r.categoryId === c.categoryId)?.feedCount, 1);
      assert.deepEqual(
        (await store.feeds({ categoryId: c.categoryId })).map((f) => f.feedId),
        [feed.feedId],
      );
      await store.admin.renameCategory("test", c.categoryId, `Own renamed ${i}`, 3);
      assert.equal((await store.feeds({ categoryId: c.categoryId }))[0]?.categoryName, `Own renamed ${i}`);
      assert.equal(await store.removeFeed(feed.feedId), true);
      assert.equal((await store.categories()).find((r) => r.categoryId === c.categoryId)?.feedCount, 0);
      assert.equal(await store.removeCategory(c.categoryId), true);
      assert.ok(!(await store.categories()).some((r) => r.categoryId === c.categoryId));
    }
    assert.deepEqual(await lists(store, ids), await truth(pool, ids));
  });

  it("sees every write another process commits: categories, feeds added, moved, removed", async () => {
    await settles(store, pool, ids, "start");
    const c = await other.admin.addCategory("test", "Gamma", 1);
    await settles(store, pool, ids, "category added");
    await other.admin.renameCategory("test", c.categoryId, "Gamma renamed", 2);
    await settles(store, pool, ids, "category renamed");
    const feed = await other.admin.addFeed("test", { feedUrl: "https://c.test/feed", feedName: "Nara" }, 3);
    await settles(store, pool, ids, "feed added");
    await other.admin.editFeed("test", feed.feedId, { categoryId: ids[0]! }, 4);
    await settles(store, pool, ids, "feed moved into a category");
    await other.admin.editFeed("test", feed.feedId, { categoryId: ids[1]! }, 5);
    await settles(store, pool, ids, "feed moved between categories");
    await other.admin.editFeed("test", feed.feedId, { feedName: "Nara Weekly" }, 6);
    await settles(store, pool, ids, "feed renamed");
    await other.removeFeed(feed.feedId);
    await settles(store, pool, ids, "feed removed");
    await other.removeCategory(c.categoryId);
    await settles(store, pool, ids, "category removed");
    const smart = await other.addSmartCategory({ name: "Rust", query: "rust" });
    await settles(store, pool, ids, "smart category added");
    await other.removeSmartCategory(smart.smartCategoryId);
    await settles(store, pool, ids, "smart category removed");
    await other.ensureLanguage("pt");
    await settles(store, pool, ids, "language added");
    // A plain connection's statements (the feed's post count, as a refresh writes it).
    await pool.query("UPDATE feeds SET post_count = post_count + 7 WHERE category_id = $1", [ids[0]]);
    await settles(store, pool, ids, "a feed's post count");
    await pool.query("UPDATE feeds SET category_id = NULL WHERE category_id = $1", [ids[1]]);
    await settles(store, pool, ids, "feeds moved out by a plain UPDATE");
  });

  it("never sees a write before its commit, nor one rolled back", async () => {
    await settles(store, pool, ids, "start");
    const before = await lists(store, ids);
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      await client.query("INSERT INTO categories (name, name_key) VALUES ('Open', 'open')");
      await client.query("UPDATE feeds SET category_id = $1", [ids[0]]);
      // Another connection's commit after the open one's writes: once its notification is seen,
      // any notification of the open transaction would have been too.
      await other.addSmartCategory({ name: "Sentinel", query: "sentinel" });
      await settles(store, pool, ids, "sentinel");
      const during = await lists(store, ids);
      assert.deepEqual(during.categories, before.categories, "an open transaction is not seen");
      assert.deepEqual(during.byCategory, before.byCategory);
      await client.query("ROLLBACK");
      await other.addSmartCategory({ name: "Sentinel 2", query: "sentinel2" });
      await settles(store, pool, ids, "after the rollback");
      assert.deepEqual((await lists(store, ids)).categories, before.categories, "a rollback is not seen");
      await client.query("BEGIN");
      await client.query("INSERT INTO categories (name, name_key) VALUES ('Late', 'late')");
      await client.query("COMMIT");
      await settles(store, pool, ids, "the same write committed");
      assert.ok((await store.categories()).some((r) => r.categoryName === "Late"));
    } finally {
      client.release();
    }
  });

  it("drops what it keeps when the LISTEN connection is lost, and keeps again once it listens", async () => {
    await settles(store, pool, ids, "start");
    const copy = store.catalogCopy!;
    const client = await pool.connect();
    let unsignalled = "";
    try {
      // A write that notifies no one (triggers off on this connection): the kept list goes stale,
      // which only the lost connection's drop can mend.
      // The store's idle write connections hear the earlier commits' notifications too, and may
      // deliver one after the lists were read again: once it has dropped them, they stay kept.
      let stale = false;
      for (let attempt = 0; attempt < 5 && !stale; attempt++) {
        await new Promise((r) => setTimeout(r, 200));
        await store.categories();
        unsignalled = `Unsignalled ${attempt}`;
        await client.query("SET session_replication_role = replica");
        await client.query("INSERT INTO categories (name, name_key) VALUES ($1, lower($1))", [unsignalled]);
        await client.query("SET session_replication_role = origin");
        stale = !(await store.categories()).some((r) => r.categoryName === unsignalled);
      }
      assert.ok(stale, "kept, stale");
      const pid = copy.listenerPid;
      assert.ok(pid !== null);
      await client.query("SELECT pg_terminate_backend($1)", [pid]);
    } finally {
      client.release();
    }
    const deadline = Date.now() + 3000;
    for (;;) {
      if ((await store.categories()).some((r) => r.categoryName === unsignalled)) break;
      assert.ok(Date.now() < deadline, "the lost connection dropped the kept lists");
      await new Promise((r) => setTimeout(r, 5));
    }
    // Listening again: kept again, and a commit is seen again.
    const again = Date.now() + 5000;
    while (!copy.listening) {
      assert.ok(Date.now() < again, "listens again");
      await new Promise((r) => setTimeout(r, 20));
    }
    await other.addCategory("After reconnect");
    await settles(store, pool, ids, "a commit after the reconnect");
  });
});
