/**
 * Posts and clicks per language (migration 25) on a real PostgreSQL server: after every kind of
 * write (ingest, clicks, a post moved to another day and language, a category removal's SET NULL,
 * feed removals, migrate-data's clear, a backfill of an older database, the migration run again)
 * `language_totals` adds up to what counting the posts gives, and so does getAggregateLanguageData.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type pg from "pg";
import { schema5Rows } from "../../test-support/schema5-rows.js";
import { DAY, HOUR, incoming, seedCorpus, T0 } from "../../test-support/store-contract/contract-fixture.js";
import { startTestPostgres, type TestPostgres } from "../../test-support/test-postgres-server.js";
import { openPostgresPool, rows } from "./postgres-connection.js";
import { PostgresEndpoint } from "./postgres-copy-endpoint.js";
import { createLanguageTotals } from "./postgres-language-totals.js";
import { latestPostgresVersion, migratePostgres } from "./postgres-migrations.js";
import { openPostgresStore, type PostgresStore } from "./postgres-store.js";

let server: TestPostgres;
before(async () => {
  server = await startTestPostgres();
});
after(() => server?.stop());

/** The totals per language as kept, and as counting the posts gives them. */
async function assertInStep(pool: pg.Pool, when: string, store?: PostgresStore): Promise<void> {
  const kept = await rows(
    pool,
    `SELECT language_id, sum(posts)::int AS posts, sum(clicks)::int AS clicks FROM language_totals
      GROUP BY 1 HAVING sum(posts) <> 0 OR sum(clicks) <> 0 ORDER BY 1`,
  );
  const counted = await rows<{ language_id: number; posts: number; clicks: number }>(
    pool,
    "SELECT language_id, count(*)::int AS posts, sum(clicks)::int AS clicks FROM posts GROUP BY 1 ORDER BY 1",
  );
  assert.deepEqual(kept, counted, `language totals out of step ${when}`);
  // Each row holds its own stripe of scope_days.
  const stripes = await rows(
    pool,
    `SELECT language_id, category_key, stripe, posts::int, clicks::int FROM language_totals
      WHERE posts <> 0 OR clicks <> 0 ORDER BY 1, 2, 3`,
  );
  const fromDays = await rows(
    pool,
    `SELECT language_id, coalesce(category_id, 0) AS category_key, ((day % 32) + 32) % 32 AS stripe,
        sum(posts)::int AS posts, sum(clicks)::int AS clicks
      FROM scope_days GROUP BY 1, 2, 3 HAVING sum(posts) <> 0 OR sum(clicks) <> 0 ORDER BY 1, 2, 3`,
  );
  assert.deepEqual(stripes, fromDays, `language totals' rows out of step with scope_days ${when}`);
  if (store) {
    const data = await store.aggregateLanguageData(T0);
    const byLanguage = new Map(counted.map((r) => [Number(r.language_id), r]));
    for (const language of data) {
      const want = byLanguage.get(language.languageId);
      assert.equal(
        Number(language.postCount),
        Number(want?.posts ?? 0),
        `posts of ${language.languageCode} ${when}`,
      );
      assert.equal(
        Number(language.clicks),
        Number(want?.clicks ?? 0),
        `clicks of ${language.languageCode} ${when}`,
      );
    }
  }
}

describe("postgres language totals", () => {
  it("stay equal to counts of posts and clicks through every kind of write", async () => {
    const url = await server.createDatabase("language_totals_writes");
    const store = await openPostgresStore({ url });
    const pool = await openPostgresPool({ url });
    try {
      const { post, feed, cat } = await seedCorpus(store);
      await assertInStep(pool, "after ingest", store);
      await store.insertClick(post.a1!, "x", T0 - HOUR);
      await store.insertClick(post.a1!, "y", T0 - 3 * DAY);
      await store.recordClick(post.g1!, "z", T0, 600_000);
      await store.recordClick(post.g1!, "z", T0 + 1, 600_000); // deduplicated
      await store.insertClick(post.b2!, "x", T0 - 2 * DAY);
      await assertInStep(pool, "after clicks", store);
      // a2 moves to another day and language; a new post arrives.
      await store.applyFeedUpdate(feed.alpha, {
        fetchState: {},
        posts: [
          incoming("a2", { title: "Node streams", publishedAt: T0 - 40 * DAY, languageId: 2 }),
          incoming("a5", { title: "Fresh", publishedAt: T0 + HOUR }),
        ],
      });
      await assertInStep(pool, "after an update", store);
      await store.removeCategory(cat.data);
      await assertInStep(pool, "after a category removal", store);
      await createLanguageTotals(pool);
      await assertInStep(pool, "after the migration ran again", store);
      await store.removeFeed(feed.gamma);
      await assertInStep(pool, "after a feed removal", store);
      const endpoint = await PostgresEndpoint.open(url);
      await endpoint.clear();
      await endpoint.close();
      await assertInStep(pool, "after migrate-data's clear", store);
      assert.equal(
        (await rows<{ n: number }>(pool, "SELECT count(*)::int AS n FROM language_totals"))[0]!.n,
        0,
      );
    } finally {
      await pool.end();
      await store.close();
    }
  });

  it("are filled from the rows of a database that had none", async () => {
    const url = await server.createDatabase("language_totals_backfill");
    const pool = await openPostgresPool({ url });
    try {
      assert.equal(await migratePostgres(pool, 5), 5);
      await pool.query(schema5Rows);
      assert.equal(await migratePostgres(pool), latestPostgresVersion);
      await assertInStep(pool, "after the backfill");
    } finally {
      await pool.end();
    }
  });
});
