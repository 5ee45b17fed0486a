/**
 * The roll-ups of migrations 13, 14 and 27 (scope_days, clicked_posts, the running sums per feed
 * that replaced migration 6's post_days and click_days) on a real PostgreSQL server: after every kind of write (ingest,
 * updates that move a post to another day or language, clicks, a category removal's SET NULL, a
 * feed removal's cascade, migrate-data's TRUNCATE, a backfill of an older database) they equal
 * what counting the base tables gives.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type pg from "pg";
import { runningDayCounts } from "../../test-support/postgres-running-counts.js";
import { schema5Rows } from "../../test-support/schema5-rows.js";
import { DAY, HOUR, incoming, seedCorpus, T0 } from "../../test-support/store-contract/contract-fixture.js";
import { startTestPostgres, type TestPostgres } from "../../test-support/test-postgres-server.js";
import { openPostgresPool, rows } from "./postgres-connection.js";
import { PostgresEndpoint } from "./postgres-copy-endpoint.js";
import { latestPostgresVersion, migratePostgres } from "./postgres-migrations.js";
import { openPostgresStore } from "./postgres-store.js";

let server: TestPostgres;
before(async () => {
  server = await startTestPostgres();
});
after(() => server?.stop());

/** The roll-ups and the same figures counted from the base tables, for deepEqual. */
async function rollupsAndCounts(pool: pg.Pool) {
  // Migration 27's running sums per feed and day (post_days and click_days before it).
  const postCounts = `SELECT feed_id, post_day(post_date) AS day, count(*)::int AS n FROM posts GROUP BY 1, 2 ORDER BY 1, 2`;
  const clickCounts = `SELECT p.feed_id, post_day(k.clicked_at) AS day, count(*)::int AS n
    FROM clicks k JOIN posts p ON p.id = k.post_id GROUP BY 1, 2 ORDER BY 1, 2`;
  // Migrations 13 and 14: per (category, language, day), and the clicked posts.
  const scopeDays = `SELECT category_id, language_id, day, posts, clicks FROM scope_days
    WHERE posts <> 0 OR clicks <> 0 ORDER BY 1, 2, 3`;
  const scopeCounts = `SELECT category_id, language_id, post_day(post_date) AS day, count(*)::int AS posts,
    sum(clicks) AS clicks FROM posts GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`;
  const clicked = "SELECT id, clicks, post_date, category_id FROM clicked_posts ORDER BY id";
  const clickedCounts = "SELECT id, clicks, post_date, category_id FROM posts WHERE clicks > 0 ORDER BY id";
  return {
    rollups: {
      days: await rows(pool, runningDayCounts("post")),
      clicks: await rows(pool, runningDayCounts("click")),
      scope: await rows(pool, scopeDays),
      clicked: await rows(pool, clicked),
    },
    counts: {
      days: await rows(pool, postCounts),
      clicks: await rows(pool, clickCounts),
      scope: await rows(pool, scopeCounts),
      clicked: await rows(pool, clickedCounts),
    },
  };
}

async function assertInStep(pool: pg.Pool, when: string): Promise<void> {
  const { rollups, counts } = await rollupsAndCounts(pool);
  assert.deepEqual(rollups, counts, `roll-ups out of step ${when}`);
}

describe("postgres roll-ups", () => {
  it("stay equal to counts of posts and clicks through every kind of write", async () => {
    const url = await server.createDatabase("rollups_writes");
    const store = await openPostgresStore({ url });
    const pool = await openPostgresPool({ url });
    try {
      const { post, feed, cat } = await seedCorpus(store);
      await assertInStep(pool, "after ingest");
      await store.insertClick(post.a1!, "x", T0 - HOUR);
      await store.insertClick(post.a1!, "y", T0 - 3 * DAY);
      await store.recordClick(post.g1!, "z", T0, 600_000);
      await store.recordClick(post.g1!, "z", T0 + 1, 600_000); // deduplicated
      await store.insertClick(post.b2!, "x", T0 - 2 * DAY);
      await assertInStep(pool, "after clicks");
      // a2 moves to another day and language; a3 is unchanged; a new post arrives.
      await store.applyFeedUpdate(feed.alpha, {
        fetchState: {},
        posts: [
          incoming("a2", { title: "Node streams", publishedAt: T0 - 40 * DAY, languageId: 2 }),
          incoming("a3", { title: "Deno and Bun", publishedAt: T0 - 2 * HOUR }),
          incoming("a5", { title: "Fresh", publishedAt: T0 + HOUR }),
        ],
      });
      await assertInStep(pool, "after an update");
      await store.removeCategory(cat.data);
      await assertInStep(pool, "after a category removal");
      await store.removeFeed(feed.gamma);
      await store.removeFeed(feed.alpha);
      await assertInStep(pool, "after feed removals");
      const endpoint = await PostgresEndpoint.open(url);
      await endpoint.clear();
      await endpoint.close();
      await assertInStep(pool, "after migrate-data's clear");
      assert.equal((await rows<{ n: number }>(pool, "SELECT count(*) AS n FROM feed_post_sums"))[0]!.n, 0);
    } finally {
      await pool.end();
      await store.close();
    }
  });

  it("are filled from the rows of a database that had none", async () => {
    const url = await server.createDatabase("rollups_backfill");
    const pool = await openPostgresPool({ url });
    try {
      assert.equal(await migratePostgres(pool, 5), 5);
      await pool.query(
        `${schema5Rows}
         INSERT INTO clicks (post_id, clicked_at, client_hash)
           SELECT p.id, ${T0} - g * ${DAY}, 'h' FROM posts p, generate_series(1, p.clicks) g;`,
      );
      assert.equal(await migratePostgres(pool), latestPostgresVersion);
      await assertInStep(pool, "after the backfill");
    } finally {
      await pool.end();
    }
  });
});
