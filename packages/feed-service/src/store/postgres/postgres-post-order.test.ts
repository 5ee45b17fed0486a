/**
 * Migration 41 (postgres-post-order.ts) on a real PostgreSQL server: a database at 40 with posts,
 * clicks and stories, upgraded, has every object it had (indexes, constraints both ways,
 * triggers and their state, functions, the identity sequence and its position, storage,
 * statistics targets, options) with the columns in the new order, the same rows, and the catalog
 * of a new database; writes, clicks and searches work after it; taken again it rewrites nothing.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type pg from "pg";
import { loadDemoData } from "../../demo/load-demo-data.js";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { clickAtRandom, rankingAnswers } from "../../test-support/many-feeds-corpus.js";
import { lcgDraws } from "../../test-support/seeded-draws.js";
import { incoming } from "../../test-support/store-contract/contract-fixture.js";
import { startTestPostgres, type TestPostgres } from "../../test-support/test-postgres-server.js";
import type { Store } from "../store.js";
import { openPostgresPool, rows } from "./postgres-connection.js";
import { latestPostgresVersion, migratePostgres } from "./postgres-migrations.js";
import { POST_COLUMN_ORDER } from "./postgres-post-order.js";
import { PostgresReadSide, resolveReadSideOptions } from "./postgres-read-side.js";
import { PostgresStore } from "./postgres-store.js";

const NOW = Date.UTC(2026, 0, 10, 12);

let server: TestPostgres;
before(async () => {
  server = await startTestPostgres();
});
after(() => server?.stop());

/** The schema's objects as lines; `withOrder`: each column of `posts` with its position. */
async function catalog(pool: pg.Pool, withOrder: boolean): Promise<string[]> {
  const found = await rows<{ line: string }>(
    pool,
    `SELECT 'table ' || relname || ' ' || relkind::text || ' ' || coalesce(array_to_string(reloptions, ','), '') AS line
       FROM pg_class WHERE relnamespace = current_schema()::regnamespace AND relkind IN ('r', 'S', 'v', 'm')
     UNION ALL SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = current_schema()
     UNION ALL SELECT 'constraint ' || conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid)
       FROM pg_constraint WHERE connamespace = current_schema()::regnamespace
     UNION ALL SELECT 'trigger ' || pg_get_triggerdef(oid) || ' ' || tgenabled::text FROM pg_trigger WHERE NOT tgisinternal
     UNION ALL SELECT 'function ' || pg_get_functiondef(oid) FROM pg_proc
       WHERE pronamespace = current_schema()::regnamespace AND prokind IN ('f', 'p')
     UNION ALL SELECT 'sequence ' || s.relname || ' of ' || coalesce(d.refobjid::regclass || '.' || a.attname, '-')
       FROM pg_class s LEFT JOIN pg_depend d ON d.objid = s.oid AND d.classid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')
         LEFT JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
       WHERE s.relnamespace = current_schema()::regnamespace AND s.relkind = 'S'
     UNION ALL SELECT 'column ' || attrelid::regclass || '.' || attname || ' ' || format_type(atttypid, atttypmod) || ' '
         || concat_ws(',', attnotnull, attidentity, attgenerated, attstorage, attcompression, attstattarget, attoptions::text,
              attcollation) || ' ' || coalesce(pg_get_expr(ad.adbin, ad.adrelid), '')
         || CASE WHEN $1 THEN ' #' || attnum ELSE '' END
       FROM pg_attribute a LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
       WHERE attrelid = 'posts'::regclass AND attnum > 0 AND NOT attisdropped
     ORDER BY 1`,
    [withOrder],
  );
  return found.map((r) => r.line);
}

const postColumns = async (pool: pg.Pool) =>
  (
    await rows<{ name: string }>(
      pool,
      "SELECT attname AS name FROM pg_attribute WHERE attrelid = 'posts'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum",
    )
  ).map((r) => r.name);

/** Every post's every column, named in one order whatever the table's. */
const postRows = async (pool: pg.Pool) =>
  rows(pool, `SELECT ${[...POST_COLUMN_ORDER].sort().join(", ")} FROM posts ORDER BY id`);

describe("PostgreSQL migration 41: posts' columns reordered", () => {
  it("keeps every object, row and sequence position, as a new database has them", async () => {
    const urls = [
      await server.createDatabase("post_order_fresh"),
      await server.createDatabase("post_order_40"),
    ];
    const pools = await Promise.all(urls.map((url) => openPostgresPool({ url })));
    const [fresh, upgraded] = pools as [pg.Pool, pg.Pool];
    try {
      assert.equal(await migratePostgres(fresh), latestPostgresVersion);
      assert.deepEqual(await postColumns(fresh), POST_COLUMN_ORDER, "a new database has the new order");
      assert.equal(await migratePostgres(upgraded, 40), 40);
      // Something of each kind a database may have changed since: a statistics target, a trigger
      // turned off and back on (its state is kept), a column option.
      const stores = pools.map(
        (pool) => new PostgresStore(pool, new PostgresReadSide(pool, resolveReadSideOptions({}))),
      );
      for (const [i, store] of stores.entries()) {
        await loadDemoData(store, { posts: 400, now: NOW, seed: 7 });
        const ids = (await rows<{ id: number }>(pools[i]!, "SELECT id FROM posts ORDER BY id")).map(
          (r) => r.id,
        );
        await clickAtRandom(store, ids, lcgDraws(3), 120, NOW);
      }
      const before40 = await catalog(upgraded, false);
      const rowsBefore = await postRows(upgraded);
      const [seq] = await rows<{ v: number }>(
        upgraded,
        "SELECT last_value::int AS v FROM pg_sequences WHERE sequencename = 'posts_id_seq'",
      );
      const progress: Array<[string, number, number]> = [];
      assert.equal(
        await migratePostgres(upgraded, undefined, (step, done, total) => progress.push([step, done, total])),
        latestPostgresVersion,
      );
      assert.ok(progress.at(-1)![1] === progress.at(-1)![2], "progress to the end");
      assert.deepEqual(
        await postColumns(upgraded),
        POST_COLUMN_ORDER,
        "the upgraded posts have the new order",
      );
      assert.deepEqual(await catalog(upgraded, false), before40, "every object as before, by name");
      assert.deepEqual(
        await catalog(upgraded, true),
        await catalog(fresh, true),
        "the catalog of a new database",
      );
      assert.deepEqual(await postRows(upgraded), rowsBefore, "the same rows");
      const [next] = await rows<{ v: number }>(upgraded, "SELECT nextval('posts_id_seq')::int AS v");
      assert.equal(next!.v, seq!.v + 1, "the identity goes on where it stood");
      const [visible] = await rows<{ pages: number; visible: number }>(
        upgraded,
        "SELECT relpages AS pages, relallvisible AS visible FROM pg_class WHERE oid = 'posts'::regclass",
      );
      assert.ok(visible!.pages > 0 && visible!.visible === visible!.pages, "VACUUMed after the commit");

      // Writes through every trigger, clicks, deletes: the same answers on both.
      for (const [i, store] of stores.entries()) {
        const feed = await store.addFeed({ feedUrl: "https://after-41.test/feed", feedName: "After" });
        const posts = Array.from({ length: 20 }, (_, j) =>
          incoming(`after-${j}`, { title: `after ${j}`, publishedAt: NOW - j * 86_400_000 }),
        );
        await store.applyFeedUpdate(feed.feedId, { fetchState: {}, posts });
        const ids = (await rows<{ id: number }>(pools[i]!, "SELECT id FROM posts ORDER BY id")).map(
          (r) => r.id,
        );
        await clickAtRandom(store, ids, lcgDraws(5), 60, NOW);
        await store.removeFeed(feed.feedId);
      }
      const answers = async (store: Store, pool: pg.Pool) => ({
        rankings: await rankingAnswers(
          store,
          (await rows<{ id: number }>(pool, "SELECT id FROM posts ORDER BY id")).map((r) => r.id),
          NOW,
          200,
        ),
        searches: await Promise.all(
          (["relevance", "date", "clicks"] as const).map((sort) =>
            store.searchPosts({
              query: parseSearchQuery("the"),
              sort,
              limit: 50,
              offset: 0,
              languageIds: null,
            }),
          ),
        ),
        ranked: await rows(pool, "SELECT id, rank_vector, body_length FROM posts ORDER BY id"),
      });
      // Ids differ between the two only if the sequences did: both were written alike.
      assert.deepEqual(await answers(stores[1]!, upgraded), await answers(stores[0]!, fresh));

      // Taken again: the columns already stand in order, nothing is rewritten.
      const [{ oid } = { oid: 0 }] = await rows<{ oid: number }>(
        upgraded,
        "SELECT 'posts'::regclass::oid::int AS oid",
      );
      await upgraded.query("DELETE FROM schema_migrations WHERE version >= 41");
      assert.equal(await migratePostgres(upgraded), latestPostgresVersion);
      const [again] = await rows<{ oid: number }>(upgraded, "SELECT 'posts'::regclass::oid::int AS oid");
      assert.equal(again!.oid, oid, "the same table");
      assert.deepEqual(await catalog(upgraded, true), await catalog(fresh, true));
    } finally {
      for (const pool of pools) await pool.end();
    }
  });

  it("leaves the order as it is where posts has a dependent the swap would not put back", async () => {
    const url = await server.createDatabase("post_order_view");
    const pool = await openPostgresPool({ url });
    try {
      assert.equal(await migratePostgres(pool, 40), 40);
      const old = await postColumns(pool);
      await pool.query("CREATE VIEW post_titles AS SELECT id, title FROM posts");
      assert.equal(await migratePostgres(pool), latestPostgresVersion);
      assert.deepEqual(await postColumns(pool), old);
      assert.equal((await rows(pool, "SELECT * FROM post_titles")).length, 0);
    } finally {
      await pool.end();
    }
  });
});
