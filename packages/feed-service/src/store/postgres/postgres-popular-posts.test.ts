/**
 * PostgreSQL's most popular posts on demo data: every way the store has (counting the window,
 * walking the posts by all-time clicks in small or large batches with either index probe, a walk
 * handed over to counting past its budget, the all-time read) gives what counting the clicks
 * table row by row gives, ties included, with the same columns.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type pg from "pg";
import { loadDemoData } from "../../demo/load-demo-data.js";
import { openTestPostgresStore, type TestPostgresStore } from "../../test-support/test-postgres-server.js";
import { openPostgresPool, rows } from "./postgres-connection.js";
import { mostPopularPosts, type PopularPostsTuning, warmPopularPosts } from "./postgres-popular-posts.js";
import type { PostgresStore } from "./postgres-store.js";

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 0, 10, 12);

const ways: Record<string, PopularPostsTuning> = {
  counting: {
    walkPostCost: Number.POSITIVE_INFINITY,
    categoryWalkPostCost: Number.POSITIVE_INFINITY,
    walkBatch: 1000,
    minWalk: 12_000,
  },
  "walking 7 posts a statement": {
    walkPostCost: 0,
    categoryWalkPostCost: 0,
    walkBatch: 7,
    minWalk: -1,
  },
  "walking 1,000 posts a statement": {
    walkPostCost: 0,
    categoryWalkPostCost: 0,
    walkBatch: 1000,
    minWalk: -1,
  },
  "walking past a budget of 30 posts": {
    walkPostCost: 0,
    categoryWalkPostCost: 0,
    walkBatch: 7,
    minWalk: -1,
    walkBudget: 30,
  },
  "walking with a budget of 1,500 posts": {
    walkPostCost: 0,
    categoryWalkPostCost: 0,
    walkBatch: 1000,
    minWalk: -1,
    walkBudget: 1500,
  },
};

describe("postgres most popular posts", () => {
  let db: TestPostgresStore;
  let store: PostgresStore;
  let pool: pg.Pool;
  before(async () => {
    db = await openTestPostgresStore("popular_posts");
    ({ store, pool } = db);
    await loadDemoData(store, { posts: 6000, now: NOW });
  });
  after(() => db?.close());

  it("ranks the same by counting, walking and a walk handed over to counting, as a count of every click", async () => {
    const [{ clicks }] = (await rows<{ clicks: number }>(pool, "SELECT count(*) AS clicks FROM clicks")) as [
      { clicks: number },
    ];
    assert.ok(clicks > 2000, `the demo data has clicks to rank (${clicks})`);
    // Windows from hours to more than the demo's 90 days of clicks; under and over half of them.
    for (const days of [0.25, 1, 3, 10, 30, 44, 60, 89, 36_500]) {
      for (const categoryId of [null, 1, 3]) {
        for (const limit of [1, 7, 50, 1000]) {
          const since = NOW - days * DAY;
          const expected = await rows<{ id: number; n: number }>(
            pool,
            `SELECT k.post_id AS id, count(*) AS n FROM clicks k JOIN posts p ON p.id = k.post_id
              WHERE k.clicked_at >= $1 AND ($2::int IS NULL OR p.category_id = $2)
              GROUP BY k.post_id, p.post_date ORDER BY n DESC, p.post_date DESC, k.post_id DESC LIMIT $3`,
            [since, categoryId, limit],
          );
          let first: unknown;
          for (const [way, tuning] of Object.entries(ways)) {
            const label = `${way}: ${days} days, category ${categoryId}, limit ${limit}`;
            const got = await mostPopularPosts(pool, { since, limit, categoryId }, tuning);
            assert.deepEqual(
              got.map((p) => ({ id: p.postId, n: p.periodClicks })),
              expected,
              label,
            );
            if (first === undefined) first = got;
            else assert.deepEqual(got, first, `${label}: the same columns as counting`);
          }
        }
      }
    }
  });

  it("walks on past a low first cut instead of handing a walk that fits its budget to counting", async () => {
    // Sixty unclicked posts get thirty clicks long ago and one an hour ago: they lead the walk by
    // all-time clicks, so its first batch fills the top with window counts of 1. The walk must
    // raise that cut batch by batch, not read every post above it at once (over budget, counted).
    await pool.query(
      `WITH picked AS (SELECT id FROM posts WHERE clicks = 0 ORDER BY id LIMIT 60),
        made AS (INSERT INTO clicks (post_id, clicked_at, client_hash)
          SELECT id, CASE WHEN n = 0 THEN $1::bigint ELSE $2::bigint + n END, 'old' || n
          FROM picked CROSS JOIN generate_series(0, 30) AS n RETURNING post_id)
      UPDATE posts SET clicks = clicks + 31 WHERE id IN (SELECT id FROM picked)`,
      [NOW - 3_600_000, NOW - 85 * DAY],
    );
    for (const days of [10, 30, 44, 60]) {
      const since = NOW - days * DAY;
      const limit = 50;
      const expected = await rows<{ id: number; n: number }>(
        pool,
        `SELECT k.post_id AS id, count(*) AS n FROM clicks k JOIN posts p ON p.id = k.post_id
          WHERE k.clicked_at >= $1 GROUP BY k.post_id, p.post_date
          ORDER BY n DESC, p.post_date DESC, k.post_id DESC LIMIT $2`,
        [since, limit],
      );
      const cut = expected[limit - 1]!.n;
      const [reach] = await rows<{ posts: number; all: number }>(
        pool,
        "SELECT count(*) FILTER (WHERE clicks >= $1) AS posts, count(*) AS all FROM posts WHERE clicks > 0",
        [cut],
      );
      const label = `${days} days: cut ${cut}, ${reach!.posts} of ${reach!.all} clicked posts reach it`;
      assert.ok(cut > 1 && reach!.posts + limit < reach!.all, `${label}: a window the test is about`);
      // Every post the walk needs is among those whose all-time count reaches the cut.
      const tuning = {
        walkPostCost: 0,
        categoryWalkPostCost: 0,
        minWalk: -1,
        walkBatch: limit,
        walkBudget: reach!.posts + limit,
      };
      const statements: string[] = [];
      const spy = {
        query: (q: { text: string }) => {
          statements.push(q.text);
          return pool.query(q as never);
        },
      };
      const got = await mostPopularPosts(spy as never, { since, limit, categoryId: null }, tuning);
      assert.deepEqual(
        got.map((p) => ({ id: p.postId, n: p.periodClicks })),
        expected,
        label,
      );
      assert.ok(
        !statements.some((text) => text.includes("GROUP BY post_id")),
        `${label}: walked, not counted`,
      );
    }
  });

  it("warms up by answering once in every way, with no category and in one", async () => {
    // One connection, so that every statement the warm-up prepared is on the one asked.
    const one = await openPostgresPool({ url: db.url, max: 1 });
    try {
      // Counting up to 400 window clicks (300 in a category), walking past them.
      const tuning = { walkPostCost: 4, categoryWalkPostCost: 3, walkBatch: 1000, minWalk: 100 };
      await warmPopularPosts(one, tuning);
      const prepared = (
        await rows<{ statement: string }>(one, "SELECT statement FROM pg_prepared_statements")
      ).map((r) => r.statement);
      const has = (what: string, test: (text: string) => boolean) =>
        assert.ok(prepared.some(test), `${what} was prepared on the connection`);
      const counting = (t: string) => t.includes("GROUP BY post_id");
      const walking = (t: string) => t.startsWith("SELECT p.id, p.clicks");
      has("counting", (t) => counting(t) && !t.includes("p.category_id = $"));
      has("counting in a category", (t) => counting(t) && t.includes("p.category_id = $3"));
      has("walking with window counts", (t) => walking(t) && t.includes("k.clicked_at >= $1"));
      has("walking with earlier counts", (t) => walking(t) && t.includes("k.clicked_at < $1"));
      has("walking in a category", (t) => walking(t) && t.includes("p.category_id = $2"));
    } finally {
      await one.end();
    }
  });

  it("reads each post's columns as the other operations do", async () => {
    const [top] = await mostPopularPosts(
      pool,
      { since: NOW - 10 * DAY, limit: 1, categoryId: null },
      ways.counting,
    );
    const [walked] = await mostPopularPosts(
      pool,
      { since: NOW - 10 * DAY, limit: 1, categoryId: null },
      ways["walking 7 posts a statement"]!,
    );
    assert.ok(top && walked);
    const { periodClicks, ...post } = walked;
    assert.equal(periodClicks, top.periodClicks);
    const ofItsFeed = await store.postsByFeed({
      feedId: post.feedId,
      limit: 1000,
      offset: 0,
    });
    assert.deepEqual(
      ofItsFeed.find((p) => p.postId === post.postId),
      post,
    );
  });
});
