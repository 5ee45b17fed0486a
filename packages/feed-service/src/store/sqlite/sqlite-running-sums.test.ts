/**
 * Schema 21's running sums and day ranks against brute force: feed rankings over windows of every
 * kind and category lists since a post id, on a corpus of many feeds of heavy-tailed sizes whose
 * archives are stored out of date order, with clicks written out of time order, re-dated, moved
 * and deleted posts, a removed category and removed feeds; the tables themselves against a
 * recount after each kind of write; and an upgraded database against a fresh one.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import Database from "better-sqlite3";
import { loadDemoData } from "../../demo/load-demo-data.js";
import { clickAtRandom, rankingAnswers, storeManyFeeds } from "../../test-support/many-feeds-corpus.js";
import { lcgDraws } from "../../test-support/seeded-draws.js";
import { incoming } from "../../test-support/store-contract/contract-fixture.js";
import { StatementCache } from "./sqlite-connection.js";
import { mostPopularFeeds, mostProlificFeeds } from "./sqlite-feed-rankings.js";
import { migrateSqlite } from "./sqlite-migrations.js";
import { postsByFeed, recentPosts } from "./sqlite-post-queries.js";
import { SUM_BLOCK_DAYS } from "./sqlite-running-sums-schema.js";
import { SqliteStore } from "./sqlite-store.js";

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 0, 10, 12);
const SQLITE_CORPUS = { feeds: 220, words: { title: 4, excerpt: 10, content: 16 }, now: NOW };

const floorDiv = (a: number, b: number) => Math.floor(a / b);

/** The running sums a table should hold for these (feed, day) items, as rows (level, feed, period, n, through). */
function expectedSums(items: Array<[number, number]>): number[][] {
  const perDay = new Map<string, number>();
  for (const [feed, day] of items) perDay.set(`${feed} ${day}`, (perDay.get(`${feed} ${day}`) ?? 0) + 1);
  const days = [...perDay].map(([key, n]) => [...key.split(" ").map(Number), n] as [number, number, number]);
  days.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const rows: number[][] = [];
  const blocks = new Map<string, [number, number, number]>();
  let within = 0;
  let current = "";
  for (const [feed, day, n] of days) {
    const block = floorDiv(day, SUM_BLOCK_DAYS);
    const key = `${feed} ${block}`;
    within = key === current ? within + n : n;
    current = key;
    rows.push([0, feed, day, n, within]);
    const b = blocks.get(key) ?? [feed, block, 0];
    b[2] += n;
    blocks.set(key, b);
  }
  const totals = new Map<number, number>();
  for (const [feed, block, n] of [...blocks.values()].sort((a, b) => a[0] - b[0] || a[1] - b[1])) {
    const through = (totals.get(feed) ?? 0) + n;
    totals.set(feed, through);
    rows.push([1, feed, block, n, through]);
  }
  for (const [feed, n] of totals) rows.push([2, feed, 0, n, n]);
  return rows.sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]! || a[2]! - b[2]!);
}

function checkTables(db: Database.Database, when: string): void {
  const day = (x: string) => `(${x} / 86400000 - (${x} % 86400000 < 0))`;
  const kept = (table: string) =>
    db.prepare(`SELECT level, feed_id, period, n, through FROM ${table} ORDER BY 1, 2, 3`).raw().all();
  const posts = db
    .prepare(`SELECT feed_id, ${day("post_date")} FROM posts`)
    .raw()
    .all() as Array<[number, number]>;
  assert.deepEqual(kept("feed_post_sums"), expectedSums(posts), `feed_post_sums ${when}`);
  const clicks = db
    .prepare(`SELECT p.feed_id, ${day("k.clicked_at")} FROM clicks k JOIN posts p ON p.id = k.post_id`)
    .raw()
    .all() as Array<[number, number]>;
  assert.deepEqual(kept("feed_click_sums"), expectedSums(clicks), `feed_click_sums ${when}`);
  // The totals' day bounds: never narrower than the days they bound.
  for (const [table, items] of [
    ["feed_post_sums", posts],
    ["feed_click_sums", clicks],
  ] as const) {
    for (const [feed, lo, hi] of db
      .prepare(`SELECT feed_id, lo, hi FROM ${table} WHERE level = 2`)
      .raw()
      .all() as Array<[number, number, number]>) {
      const days = items.filter(([f]) => f === feed).map(([, d]) => d);
      assert.ok(lo <= Math.min(...days) && hi >= Math.max(...days), `${table} bounds of ${feed} ${when}`);
    }
  }
  assert.deepEqual(
    db
      .prepare("SELECT category_id, language_id, day, id, rank FROM post_day_ranks ORDER BY 1, 2, 3, 4")
      .raw()
      .all(),
    db
      .prepare(`SELECT coalesce(category_id, 0) AS c, language_id, ${day("post_date")} AS d, id,
          row_number() OVER (PARTITION BY coalesce(category_id, 0), language_id, ${day("post_date")} ORDER BY id)
        FROM posts ORDER BY 1, 2, 3, 4`)
      .raw()
      .all(),
    `post_day_ranks ${when}`,
  );
  // Bounds: never narrower than the rows they bound.
  const narrower = db
    .prepare(`SELECT count(*) FROM post_day_counts c JOIN (SELECT ${day("post_date")} AS d, language_id AS l,
        coalesce(category_id, 0) AS k, min(id) AS lo, max(id) AS hi FROM posts GROUP BY 1, 2, 3) b
      ON b.d = c.day AND b.l = c.language_id AND b.k = c.category_id WHERE c.min_id > b.lo OR c.max_id < b.hi`)
    .pluck()
    .get();
  assert.equal(narrower, 0, `post_day_counts bounds ${when}`);
}

/** The post ids clicks are drawn from, in id order, so that no index the schema adds changes the draws. */
const postIds = (db: Database.Database) =>
  db.prepare("SELECT id FROM posts ORDER BY id").pluck().all() as number[];

function checkReads(db: Database.Database, when: string): void {
  const stmts = new StatementCache(db);
  const prolific = db.prepare(`SELECT feed_id, count(*) AS n FROM posts WHERE post_date >= ?
    GROUP BY feed_id ORDER BY n DESC, feed_id LIMIT ?`);
  const popular = db.prepare(`SELECT p.feed_id, count(*) AS n FROM clicks k JOIN posts p ON p.id = k.post_id
    WHERE k.clicked_at >= ? GROUP BY p.feed_id ORDER BY n DESC, p.feed_id LIMIT ?`);
  const days = [0.25, 0.5, 1, 1.7, 7, 30, 63, 64, 65, 100, 128.3, 365, 400, 700, 1099, 1100.5, 5000, 36_500];
  // Window starts on day and block edges too, and on the exact date of a post.
  const edges = [
    Math.floor(NOW / DAY) * DAY,
    Math.floor(NOW / DAY / SUM_BLOCK_DAYS) * SUM_BLOCK_DAYS * DAY,
    (Math.floor(NOW / DAY / SUM_BLOCK_DAYS) - 3) * SUM_BLOCK_DAYS * DAY,
    db.prepare("SELECT post_date FROM posts ORDER BY id LIMIT 1 OFFSET 77").pluck().get() as number,
  ];
  for (const since of [...days.map((d) => NOW - d * DAY), ...edges, NOW + DAY]) {
    for (const limit of [1, 7, 1000]) {
      const args = { since: Math.round(since), limit };
      assert.deepEqual(
        mostProlificFeeds(stmts, args).map((f) => [f.feedId, f.periodPosts]),
        prolific.raw().all(args.since, limit),
        `prolific since ${new Date(args.since).toISOString()} ${limit} ${when}`,
      );
      assert.deepEqual(
        mostPopularFeeds(stmts, args).map((f) => [f.feedId, f.periodClicks]),
        popular.raw().all(args.since, limit),
        `popular since ${new Date(args.since).toISOString()} ${limit} ${when}`,
      );
    }
  }
}

/**
 * Every post's list and the largest feeds' at pages of their older half, the last ones included:
 * seeks counted from the oldest day on, with the list's length from the running sums.
 */
function checkOlderHalfPages(db: Database.Database, when: string): number {
  const stmts = new StatementCache(db);
  const all = db.prepare("SELECT id FROM posts ORDER BY post_date DESC, id DESC LIMIT ? OFFSET ?");
  const ofFeed = db.prepare(
    "SELECT id FROM posts WHERE feed_id = ? ORDER BY post_date DESC, id DESC LIMIT ? OFFSET ?",
  );
  const feeds = db
    .prepare("SELECT feed_id, count(*) FROM posts GROUP BY feed_id ORDER BY count(*) DESC, feed_id LIMIT 3")
    .raw()
    .all() as Array<[number, number]>;
  const offsets = (total: number) => [
    Math.floor(total / 2) - 1,
    Math.floor(total / 2),
    Math.floor(total * 0.8),
    total - 1000,
    total - 21,
    total - 20,
    total - 7,
    total - 1,
    total,
    total + 5,
  ];
  let compared = 0;
  const total = db.prepare("SELECT count(*) FROM posts").pluck().get() as number;
  for (const offset of offsets(total).filter((o) => o >= 0)) {
    for (const limit of [1, 20, 1000]) {
      const expected = all.pluck().all(limit, offset);
      const page = recentPosts(stmts, { limit, offset, languageIds: null });
      assert.deepEqual(
        page.map((p) => p.postId),
        expected,
        `recent ${offset}+${limit} of ${total} ${when}`,
      );
      compared += expected.length;
    }
  }
  for (const [feedId, posts] of feeds) {
    for (const offset of offsets(posts).filter((o) => o >= 0)) {
      for (const limit of [1, 20, 1000]) {
        const expected = ofFeed.pluck().all(feedId, limit, offset);
        const page = postsByFeed(stmts, { feedId, limit, offset });
        assert.deepEqual(
          page.map((p) => p.postId),
          expected,
          `feed ${feedId} ${offset}+${limit} of ${posts} ${when}`,
        );
        compared += expected.length;
      }
    }
  }
  return compared;
}

async function checkSincePages(store: SqliteStore, db: Database.Database, when: string): Promise<number> {
  const reference = db.prepare(`SELECT id FROM posts WHERE category_id = ? AND id > ?
    AND (? IS NULL OR language_id IN (SELECT value FROM json_each(?)))
    ORDER BY post_date DESC, id DESC LIMIT ? OFFSET ?`);
  const ids = db.prepare("SELECT id FROM posts ORDER BY id").pluck().all() as number[];
  const categories = db.prepare("SELECT id FROM categories ORDER BY id").pluck().all() as number[];
  let compared = 0;
  for (const categoryId of categories) {
    for (const at of [0, 0.1, 0.5, 0.9, 0.999]) {
      const sincePostId = ids[Math.floor(at * (ids.length - 1))]!;
      for (const languageIds of [null, [1], [3, 4]]) {
        const languages = languageIds === null ? null : JSON.stringify(languageIds);
        const total = reference.pluck().all(categoryId, sincePostId, languages, languages, -1, 0).length;
        for (const [offset, limit] of [
          [0, 20],
          [500, 20],
          [Math.floor(total / 2), 30],
          [Math.max(0, total - 7), 20],
          [total + 5, 20],
        ] as const) {
          const page = await store.postsByCategory({
            limit,
            offset,
            categoryId,
            languageIds,
            sincePostId,
            sinceDate: null,
          });
          const expected = reference
            .pluck()
            .all(categoryId, sincePostId, languages, languages, limit, offset);
          assert.deepEqual(
            page.map((p) => p.postId),
            expected,
            `category ${categoryId} since ${sincePostId} ${languages} ${offset} of ${total} ${when}`,
          );
          compared += expected.length;
        }
      }
    }
  }
  return compared;
}

describe("SQLite running sums (schema 21)", () => {
  it("rank feeds and page lists since a post id exactly, on many feeds stored out of order, after every kind of write", async () => {
    const db = new Database(":memory:");
    migrateSqlite(db);
    const store = new SqliteStore(db);
    const next = lcgDraws(21);
    await storeManyFeeds(store, next, SQLITE_CORPUS);
    await clickAtRandom(store, postIds(db), next, 3000, NOW);
    const posts = db.prepare("SELECT count(*) FROM posts").pluck().get() as number;
    assert.ok(posts > 3000, `${posts} posts`);
    checkTables(db, "after loading");
    checkReads(db, "after loading");
    assert.ok(checkOlderHalfPages(db, "after loading") > 1000);
    assert.ok((await checkSincePages(store, db, "after loading")) > 1000);

    // Re-dated posts (a feed that edits its dates), some across block edges and before 1970.
    const moved = db
      .prepare("SELECT feed_id, guid FROM posts WHERE id % 13 = 0 ORDER BY id")
      .raw()
      .all() as Array<[number, string]>;
    for (const [i, [feedId, guid]] of moved.entries()) {
      const date = i % 11 === 0 ? Date.UTC(1969, 11, 30, 5) : NOW - Math.floor(next() * 1200 * DAY);
      await store.applyFeedUpdate(feedId, {
        fetchState: {},
        posts: [
          incoming(guid, { title: `moved ${i} ${guid}`, publishedAt: date, languageId: 1 + (i % 2) * 2 }),
        ],
      });
    }
    checkTables(db, "after re-dating");
    checkReads(db, "after re-dating");
    checkOlderHalfPages(db, "after re-dating");
    await checkSincePages(store, db, "after re-dating");

    // Posts deleted by another writer (their clicks with them), a category removed, feeds removed.
    db.prepare(
      "DELETE FROM posts WHERE id IN (SELECT id FROM posts WHERE clicks > 0 ORDER BY id LIMIT 40)",
    ).run();
    db.prepare("DELETE FROM posts WHERE id % 17 = 3").run();
    checkTables(db, "after deleting posts");
    checkReads(db, "after deleting posts");
    checkOlderHalfPages(db, "after deleting posts");
    await checkSincePages(store, db, "after deleting posts");
    const [first] = db.prepare("SELECT id FROM categories ORDER BY id").pluck().all() as number[];
    await store.removeCategory(first!);
    const largest = db
      .prepare("SELECT feed_id FROM posts GROUP BY feed_id ORDER BY count(*) DESC LIMIT 3")
      .pluck()
      .all() as number[];
    for (const feedId of largest) await store.removeFeed(feedId);
    await clickAtRandom(store, postIds(db), next, 500, NOW);
    checkTables(db, "after removals and more clicks");
    checkReads(db, "after removals and more clicks");
    checkOlderHalfPages(db, "after removals and more clicks");
    await checkSincePages(store, db, "after removals and more clicks");
    for (const feed of await store.adminFeeds()) await store.removeFeed(feed.feedId);
    for (const table of ["feed_post_sums", "feed_click_sums", "post_day_ranks"]) {
      assert.equal(db.prepare(`SELECT count(*) FROM ${table}`).pluck().get(), 0, `${table} emptied`);
    }
    await store.close();
  });

  it("answer the same on a database upgraded to schema 21 as on a fresh one, writes after it included", async () => {
    const fresh = new Database(":memory:");
    migrateSqlite(fresh);
    const upgraded = new Database(":memory:");
    migrateSqlite(upgraded, 19);
    const stores = [new SqliteStore(fresh), new SqliteStore(upgraded)] as const;
    for (const store of stores) {
      await loadDemoData(store, { posts: 1500, now: NOW, seed: 5 });
      await storeManyFeeds(store, lcgDraws(4), SQLITE_CORPUS);
    }
    const progress: Array<[string, number, number]> = [];
    migrateSqlite(upgraded, undefined, (step, done, total) => progress.push([step, done, total]));
    assert.ok(progress.length >= 2 && progress.at(-1)![1] === progress.at(-1)![2], "progress to the end");
    const schema = (db: Database.Database) =>
      db
        .prepare("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite%' ORDER BY 1, 2")
        .all();
    assert.deepEqual(schema(upgraded), schema(fresh), "the upgraded schema is the fresh one");
    for (const [i, store] of stores.entries()) {
      const db = i === 0 ? fresh : upgraded;
      await clickAtRandom(store, postIds(db), lcgDraws(9), 400, NOW);
      const feed = await store.addFeed({ feedUrl: "https://after-21.test/feed", feedName: "After" });
      const posts = Array.from({ length: 30 }, (_, j) =>
        incoming(`after-${j}`, { title: `after twenty one ${j}`, publishedAt: NOW - j * 5 * DAY }),
      );
      await store.applyFeedUpdate(feed.feedId, { fetchState: {}, posts });
      await store.applyFeedUpdate(feed.feedId, {
        fetchState: {},
        posts: [incoming("after-3", { title: "after twenty one moved", publishedAt: NOW - 400 * DAY })],
      });
      checkTables(db, i === 0 ? "fresh" : "upgraded");
    }
    const tables = (db: Database.Database) =>
      [
        "feed_post_sums ORDER BY 1, 2, 3",
        "feed_click_sums ORDER BY 1, 2, 3",
        "post_day_ranks ORDER BY 1, 2, 3, 4",
        "post_day_counts ORDER BY 1, 2, 3",
      ].map((t) => db.prepare(`SELECT * FROM ${t}`).raw().all());
    assert.deepEqual(tables(upgraded), tables(fresh));
    const answers = (store: SqliteStore, db: Database.Database) =>
      rankingAnswers(
        store,
        db.prepare("SELECT id FROM posts ORDER BY id").pluck().all() as number[],
        NOW,
        600,
      );
    assert.deepEqual(await answers(stores[1], upgraded), await answers(stores[0], fresh));
    // Taken again (the re-filing test re-runs later migrations), it makes the same tables anew.
    upgraded.prepare("DELETE FROM schema_migrations WHERE version >= 21").run();
    migrateSqlite(upgraded);
    // Bounds made anew are tight where the fresh database's are wide (a re-dated post's old row).
    const counts = (db: Database.Database) =>
      tables(db).map((rows, i) => rows.map((row) => (row as unknown[]).slice(0, i === 3 ? 4 : 5)));
    assert.deepEqual(counts(upgraded), counts(fresh));
    for (const store of stores) await store.close();
  });
});
