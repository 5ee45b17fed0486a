/**
 * Migration 33's language and title vector on clicked_posts (postgres-clicked-languages.ts) on a
 * real PostgreSQL server: after clicks, a post moved to another language by its feed's update or
 * re-filed by SQL, a clicked post's title changed,
 * clicks taken back, deletions, migrate-data's bulk load into another database, and the upgrade of
 * a database at schema 31 that has clicked posts (the migration run twice), clicked_posts equals
 * what a rebuild from `posts` gives, language and title vector included.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type pg from "pg";
import { migrateData } from "../../migrate/migrate-data.js";
import { schema5Rows } from "../../test-support/schema5-rows.js";
import { DAY, HOUR, incoming, seedCorpus, T0 } from "../../test-support/store-contract/contract-fixture.js";
import { startTestPostgres, type TestPostgres } from "../../test-support/test-postgres-server.js";
import { createClickedLanguages } from "./postgres-clicked-languages.js";
import { openPostgresPool, rows } from "./postgres-connection.js";
import { latestPostgresVersion, migratePostgres } from "./postgres-migrations.js";
import { openPostgresStore } from "./postgres-store.js";

let server: TestPostgres;
before(async () => {
  server = await startTestPostgres();
});
after(() => server?.stop());

const COLUMNS = "id, clicks, post_date, category_id, language_id, rank_vector::text";

/** clicked_posts and its rebuild from the posts, for deepEqual. */
async function assertRebuilt(pool: pg.Pool, when: string): Promise<number> {
  const kept = await rows(pool, `SELECT ${COLUMNS} FROM clicked_posts ORDER BY id`);
  const rebuilt = await rows(pool, `SELECT ${COLUMNS} FROM posts WHERE clicks > 0 ORDER BY id`);
  assert.deepEqual(kept, rebuilt, `clicked_posts out of step ${when}`);
  return kept.length;
}

describe("postgres clicked posts' languages", () => {
  it("stay equal to a rebuild through clicks, re-filing, deletions and migrate-data", async () => {
    const url = await server.createDatabase("clicked_languages_writes");
    const copy = await server.createDatabase("clicked_languages_copy");
    const store = await openPostgresStore({ url });
    const pool = await openPostgresPool({ url });
    try {
      const { post, feed } = await seedCorpus(store);
      const ja = (await store.ensureLanguage("ja")).languageId;
      await store.insertClick(post.a1!, "x", T0 - HOUR);
      await store.recordClick(post.g1!, "z", T0, 600_000);
      await store.insertClick(post.b2!, "x", T0 - 2 * DAY);
      await store.insertClick(post.a2!, "y", T0 - 2 * DAY);
      assert.ok((await assertRebuilt(pool, "after clicks")) >= 4);
      // A clicked post's feed update files it under another language.
      await store.applyFeedUpdate(feed.alpha, {
        fetchState: {},
        posts: [incoming("a2", { title: "Node streams", publishedAt: T0 - 40 * DAY, languageId: ja })],
      });
      await assertRebuilt(pool, "after a clicked post moved language");
      assert.equal(
        (
          await rows<{ n: number }>(
            pool,
            "SELECT count(*)::int AS n FROM clicked_posts WHERE language_id = $1",
            [ja],
          )
        )[0]!.n,
        1,
      );
      // A clicked post's title changes (its rank_vector, set from search_vector by a trigger).
      await store.applyFeedUpdate(feed.alpha, {
        fetchState: {},
        posts: [incoming("a1", { title: "Retitled in spring", publishedAt: T0 - HOUR })],
      });
      await assertRebuilt(pool, "after a clicked post's title changed");
      assert.match(
        (
          await rows<{ v: string }>(pool, "SELECT rank_vector::text AS v FROM clicked_posts WHERE id = $1", [
            post.a1,
          ])
        )[0]!.v,
        /retitl/,
      );
      // Re-filing moves posts by SQL, as migration 12 does (postgres-language-refiling.ts).
      await pool.query("UPDATE posts SET language_id = $1 WHERE id = ANY($2)", [ja, [post.a1, post.b2]]);
      await assertRebuilt(pool, "after re-filing");
      // A click taken back (clicks to 0), then a post deleted with its feed.
      await pool.query("UPDATE posts SET clicks = 0 WHERE id = $1", [post.b2]);
      await assertRebuilt(pool, "after clicks went to 0");
      await store.removeFeed(feed.gamma);
      await assertRebuilt(pool, "after a feed removal");
      // migrate-data: the bulk load fills clicked_posts from the copied posts.
      await migrateData({ from: url, to: copy, batchSize: 100 });
      const copied = await openPostgresPool({ url: copy });
      try {
        assert.ok((await assertRebuilt(copied, "after migrate-data")) >= 2);
        assert.deepEqual(
          await rows(copied, `SELECT ${COLUMNS} FROM clicked_posts ORDER BY id`),
          await rows(pool, `SELECT ${COLUMNS} FROM clicked_posts ORDER BY id`),
        );
      } finally {
        await copied.end();
      }
    } finally {
      await pool.end();
      await store.close();
    }
  });

  it("are filled when a database with clicked posts is upgraded, and a second run changes nothing", async () => {
    const url = await server.createDatabase("clicked_languages_upgrade");
    const pool = await openPostgresPool({ url });
    try {
      assert.equal(await migratePostgres(pool, 5), 5);
      await pool.query(schema5Rows);
      assert.equal(await migratePostgres(pool, 31), 31);
      await pool.query("UPDATE posts SET language_id = 2 WHERE id % 2 = 0");
      assert.equal(await migratePostgres(pool), latestPostgresVersion);
      assert.ok((await assertRebuilt(pool, "after the upgrade")) > 0);
      await createClickedLanguages(pool);
      await assertRebuilt(pool, "after the migration ran again");
      // The click path after the upgrade.
      await pool.query(
        "UPDATE posts SET clicks = clicks + 1 WHERE id IN (SELECT id FROM posts ORDER BY id LIMIT 3)",
      );
      await assertRebuilt(pool, "after clicks on the upgraded database");
    } finally {
      await pool.end();
    }
  });
});
