/**
 * The refreshed click levels (migration 60): the most popular posts ranked from them, with the
 * clicks since their refresh added at read, are what counting every click gives, ties included,
 * over windows, categories and limits; right after a refresh, with clicks written since (new and
 * dated in the past), after clicks deleted or moved and a post's category changed (unusable until
 * the next refresh, then exact), after TRUNCATE, and too far behind. The schema is re-runnable.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type pg from "pg";
import { loadDemoData } from "../../demo/load-demo-data.js";
import { openTestPostgresStore, type TestPostgresStore } from "../../test-support/test-postgres-server.js";
import {
  CONSECUTIVE_LEVELS,
  clickLevelsSchema,
  MAX_CLICKS_BEHIND,
  rankByClickLevels,
  refreshClickLevels,
} from "./postgres-click-levels.js";
import { rows } from "./postgres-connection.js";
import { mostPopularPosts } from "./postgres-popular-posts.js";
import type { PostgresStore } from "./postgres-store.js";

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 0, 10, 12);
const LEVELS = {
  walkPostCost: 6.5,
  categoryWalkPostCost: 5,
  walkBatch: 1000,
  minWalk: 12_000,
  clickLevels: true,
};

describe("postgres refreshed click levels", () => {
  let db: TestPostgresStore;
  let store: PostgresStore;
  let pool: pg.Pool;
  before(async () => {
    db = await openTestPostgresStore("click_levels");
    ({ store, pool } = db);
    await loadDemoData(store, { posts: 6000, now: NOW });
    // A few posts clicked far more than the demo's: pages of 1 and 7 reach levels past the
    // consecutive ones, and pages of 50 hold posts counted from their clicks.
    await addClicks(
      `SELECT p.id, $1::bigint - ((n * 7919 + p.id) % 89) * $2::bigint - n, 'heavy-' || n
        FROM (SELECT id FROM posts WHERE clicks > 0 ORDER BY id LIMIT 12) p
        CROSS JOIN LATERAL generate_series(1, 20 + (p.id % 12) * 15) AS n`,
      [NOW, DAY],
    );
    await store.refreshClickLevels();
  });
  after(() => db?.close());

  /** Clicks from a SELECT of (post_id, clicked_at, client_hash), with the posts' counters. */
  async function addClicks(select: string, params: unknown[]): Promise<void> {
    const made = await rows<{ post_id: number }>(
      pool,
      `INSERT INTO clicks (post_id, clicked_at, client_hash) ${select} RETURNING post_id`,
      params,
    );
    const counts = new Map<number, number>();
    for (const { post_id } of made) counts.set(post_id, (counts.get(post_id) ?? 0) + 1);
    await pool.query(
      "UPDATE posts p SET clicks = p.clicks + c.n FROM unnest($1::int[], $2::int[]) AS c(id, n) WHERE p.id = c.id",
      [[...counts.keys()], [...counts.values()]],
    );
  }

  const expected = (since: number, categoryId: number | null, limit: number) =>
    rows<{ id: number; n: number }>(
      pool,
      `SELECT k.post_id AS id, count(*)::int AS n FROM clicks k JOIN posts p ON p.id = k.post_id
        WHERE k.clicked_at >= $1 AND ($2::int IS NULL OR p.category_id = $2)
        GROUP BY k.post_id, p.post_date ORDER BY n DESC, p.post_date DESC, k.post_id DESC LIMIT $3`,
      [since, categoryId, limit],
    );

  /** Every window, category and limit from the levels, against a count of every click. */
  async function allExact(label: string): Promise<void> {
    for (const days of [0.25, 1, 3, 10, 30, 44, 60, 89]) {
      for (const categoryId of [null, 1, 3]) {
        for (const limit of [1, 7, 50, 1000]) {
          const since = NOW - days * DAY;
          const want = await expected(since, categoryId, limit);
          const what = `${label}: ${days} days, category ${categoryId}, limit ${limit}`;
          for (const countWithin of [true, false]) {
            const ranked = await rankByClickLevels(pool, { since, limit, categoryId, countWithin });
            assert.ok(ranked !== null, `${what}: the levels are usable`);
            const sorted = [...ranked].sort((a, b) => b.period - a.period);
            assert.deepEqual(
              sorted.map((r) => r.period),
              want.map((r) => r.n),
              `${what} (${countWithin ? "counted within" : "counted before"}): the counts`,
            );
            assert.deepEqual(new Set(ranked.map((r) => r.id)), new Set(want.map((r) => r.id)), what);
          }
          let stale = false;
          const got = await mostPopularPosts(pool, { since, limit, categoryId }, LEVELS, () => {
            stale = true;
          });
          assert.ok(!stale, `${what}: through the levels`);
          assert.deepEqual(
            got.map((p) => ({ id: p.postId, n: p.periodClicks })),
            want,
            what,
          );
        }
      }
    }
  }

  it("has posts deep in the levels, so the counted way and the levels' sum are both read", async () => {
    const [deep] = await rows<{ n: number }>(
      pool,
      "SELECT count(*)::int AS n FROM refreshed_click_levels WHERE level = $1 AND clicked_at >= $2",
      [CONSECUTIVE_LEVELS * 2, NOW - 30 * DAY],
    );
    assert.ok(deep!.n > 1, `posts with ${CONSECUTIVE_LEVELS * 2} clicks in 30 days (${deep!.n})`);
    const [state] = await rows<{ t: number; max: number }>(
      pool,
      "SELECT through_id AS t, (SELECT max(id) FROM clicks) AS max FROM refreshed_click_levels_state",
    );
    assert.equal(state!.t, state!.max, "the refresh reached the newest click");
  });

  it("is exact right after a refresh", async () => {
    await allExact("refreshed");
  });

  it("is exact with clicks written since the refresh, new and dated in the past, then refreshed", async () => {
    // Clicks on the most clicked posts (raising them past levels), on posts outside the ranges and
    // on unclicked ones; some now, some weeks back.
    const picked = await rows<{ id: number }>(
      pool,
      `(SELECT id FROM posts WHERE clicks > 0 ORDER BY clicks DESC, id LIMIT 5)
      UNION ALL (SELECT id FROM posts WHERE clicks BETWEEN 1 AND 3 ORDER BY id LIMIT 40)
      UNION ALL (SELECT id FROM posts WHERE clicks = 0 ORDER BY id LIMIT 40)`,
    );
    const clicks = picked.flatMap(({ id }, i) =>
      Array.from({ length: 1 + (i % 7) * 3 }, (_, j) => ({
        postId: id,
        clientHash: `since-${i}-${j}`,
        at: NOW - (j % 3 === 0 ? 20 * DAY : j * 3_600_000) - i,
      })),
    );
    await store.insertClicks(clicks);
    await allExact(`${clicks.length} clicks since the refresh`);
    const report = await refreshClickLevels(pool);
    assert.ok(report.refreshed && report.posts === picked.length, `refreshed ${report.posts} posts`);
    await allExact("refreshed again");
  });

  it("is unusable after clicks are deleted or moved, or a clicked post's category changes, until refreshed", async () => {
    const changes: Array<[string, string]> = [
      [
        "clicks deleted",
        `WITH gone AS (DELETE FROM clicks WHERE id IN (SELECT id FROM clicks ORDER BY clicked_at DESC LIMIT 30) RETURNING post_id)
        UPDATE posts p SET clicks = p.clicks - g.n FROM (SELECT post_id, count(*)::int AS n FROM gone GROUP BY 1) g WHERE p.id = g.post_id`,
      ],
      [
        "clicks moved to another post",
        `WITH top AS (SELECT id FROM posts WHERE clicks > 0 ORDER BY clicks DESC, id LIMIT 2)
        UPDATE clicks SET post_id = (SELECT max(id) FROM top) WHERE post_id = (SELECT min(id) FROM top);
        UPDATE posts SET clicks = (SELECT count(*) FROM clicks k WHERE k.post_id = posts.id)
          WHERE id IN (SELECT id FROM posts WHERE clicks > 0 ORDER BY clicks DESC, id LIMIT 2)`,
      ],
      [
        "a clicked post's category changed",
        `UPDATE posts SET category_id = CASE WHEN category_id = 1 THEN 3 ELSE 1 END
          WHERE id = (SELECT id FROM posts WHERE clicks > 0 ORDER BY clicks DESC, id LIMIT 1)`,
      ],
      [
        "a clicked post deleted",
        "DELETE FROM posts WHERE id = (SELECT id FROM posts WHERE clicks > 0 ORDER BY clicks DESC, id LIMIT 1 OFFSET 3)",
      ],
    ];
    for (const [what, statement] of changes) {
      await pool.query(statement);
      const ranked = await rankByClickLevels(pool, {
        since: NOW - 10 * DAY,
        limit: 50,
        categoryId: null,
        countWithin: true,
      });
      assert.equal(ranked, null, `${what}: unusable`);
      let stale = false;
      const want = await expected(NOW - 10 * DAY, 1, 50);
      const got = await mostPopularPosts(
        pool,
        { since: NOW - 10 * DAY, limit: 50, categoryId: 1 },
        LEVELS,
        () => {
          stale = true;
        },
      );
      assert.ok(stale, `${what}: the read asked for a refresh`);
      assert.deepEqual(
        got.map((p) => ({ id: p.postId, n: p.periodClicks })),
        want,
        `${what}: exact the other way`,
      );
      await refreshClickLevels(pool);
      await allExact(`${what}, refreshed`);
    }
  });

  it("counts a post clicked since the refresh, outside the ranges, that ties the page's last count and is newer", async () => {
    await refreshClickLevels(pool);
    const since = NOW - 10 * DAY;
    const limit = 7;
    // The start level as the read finds it: the highest whose range holds the limit.
    const [start] = await rows<{ l: number }>(
      pool,
      `SELECT max(level) AS l FROM (SELECT level FROM refreshed_click_levels WHERE clicked_at >= $1
        GROUP BY level HAVING count(*) >= $2) x`,
      [since, limit],
    );
    const level = start!.l;
    const cut = (await expected(since, null, limit))[limit - 1]!.n;
    assert.ok(level >= 2 && cut >= level, `start level ${level}, cut ${cut}`);
    // The newest unclicked post: L - 1 clicks in the window before the refresh (outside the
    // ranges), then enough since for L - 1 plus its clicks since to equal the cut exactly.
    const [newest] = await rows<{ id: number }>(
      pool,
      "SELECT id FROM posts WHERE clicks = 0 ORDER BY post_date DESC, id DESC LIMIT 1",
    );
    const clicksOn = (n: number, tag: string) =>
      addClicks(
        `SELECT $3::int, $1::bigint - n * 60000, '${tag}-' || n FROM generate_series(1, $2::int) AS n`,
        [NOW, n, newest!.id],
      );
    await clicksOn(level - 1, "before");
    await refreshClickLevels(pool);
    await clicksOn(cut - (level - 1), "since");
    const want = await expected(since, null, limit);
    assert.ok(
      want.some((r) => r.id === newest!.id && r.n === cut),
      "the post makes the page on its date",
    );
    let stale = false;
    const got = await mostPopularPosts(pool, { since, limit, categoryId: null }, LEVELS, () => {
      stale = true;
    });
    assert.ok(!stale, "through the levels");
    assert.deepEqual(
      got.map((p) => ({ id: p.postId, n: p.periodClicks })),
      want,
    );
  });

  it("ranks from the clicks alone after TRUNCATE, rebuilds every post on the next refresh, and stops at too many clicks behind", async () => {
    await pool.query("TRUNCATE clicks");
    await pool.query("UPDATE posts SET clicks = 0 WHERE clicks > 0");
    const [state] = await rows<{ t: number }>(
      pool,
      "SELECT through_id AS t FROM refreshed_click_levels_state",
    );
    assert.equal(state!.t, 0);
    await addClicks(
      `SELECT p.id, $1::bigint - ((p.n * 7 + j * 13) % 80) * $2::bigint - j, 't-' || p.n || '-' || j
        FROM (SELECT id, row_number() OVER (ORDER BY id)::int AS n FROM posts ORDER BY id LIMIT 300) p
        CROSS JOIN LATERAL generate_series(0, p.n % 23) AS j`,
      [NOW, DAY],
    );
    const posts = await rows<{ id: number }>(pool, "SELECT id FROM posts WHERE clicks > 0");
    await allExact("after TRUNCATE, none refreshed");
    const report = await refreshClickLevels(pool);
    assert.equal(report.posts, posts.length, "every clicked post computed");
    await allExact("after TRUNCATE, refreshed");
    // One more than the bound, in one statement.
    await pool.query(
      `WITH made AS (INSERT INTO clicks (post_id, clicked_at, client_hash)
          SELECT (SELECT min(id) FROM posts) , $1::bigint - n, 'bulk' || n FROM generate_series(1, $2) AS n RETURNING post_id)
      UPDATE posts SET clicks = clicks + $2 WHERE id = (SELECT min(id) FROM posts)`,
      [NOW, MAX_CLICKS_BEHIND + 1],
    );
    assert.equal(
      await rankByClickLevels(pool, { since: NOW - DAY, limit: 7, categoryId: null, countWithin: true }),
      null,
      "too far behind",
    );
    await refreshClickLevels(pool);
    await allExact("after many clicks, refreshed");
  });

  it("re-runs its schema", async () => {
    await pool.query(clickLevelsSchema);
    await pool.query(clickLevelsSchema);
    const [state] = await rows<{ n: number }>(
      pool,
      "SELECT count(*)::int AS n FROM refreshed_click_levels_state",
    );
    assert.equal(state!.n, 1);
    await allExact("schema run again");
  });
});
