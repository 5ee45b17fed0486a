/**
 * migrate-data into PostgreSQL loads the posts into a table of their own beside the copy's
 * transaction, builds its indexes from two connections and swaps it in
 * (postgres-posts-staging.ts). The database it leaves has what a new one has, to the functions
 * taking a post row, the identity sequence, the columns' storage and the tables' options; a copy
 * that fails in the builds leaves the target as it was and no staged table; a staged table left
 * by a crash is dropped by the next copy; a dependent of `posts` the swap does not know (a view)
 * or something the swap would lose (a GRANT, a comment: notCarriedBySwap) makes the copy load
 * `posts` in place, as before, and keeps it.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import Database from "better-sqlite3";
import pg from "pg";
import { loadDemoData } from "../demo/load-demo-data.js";
import { openStore } from "../store/open-store.js";
import { startTestPostgres, type TestPostgres } from "../test-support/test-postgres-server.js";
import { migrateData } from "./migrate-data.js";

const NOW = Date.parse("2026-01-10T12:00:00Z");
const dir = mkdtempSync(join(tmpdir(), "feed-migrate-staging-"));
let server: TestPostgres;
let source: string;

before(async () => {
  server = await startTestPostgres();
  source = join(dir, "source.db");
  const s = await openStore(source);
  await loadDemoData(s, { posts: 150, now: NOW, seed: 3 });
  await s.close();
  // A body past the 16,383 positions of a tsvector: its rank columns are the server's to derive
  // (the COPY sends them for the other posts: rankColumns).
  const db = new Database(source);
  db.prepare("UPDATE posts SET content = ? WHERE id = (SELECT min(id) FROM posts)").run(
    `${"filler words ".repeat(8_300)} the end`,
  );
  db.close();
});
after(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function query(url: string, text: string): Promise<Array<Record<string, unknown>>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

/** The public schema's objects as lines: what a swap could get wrong. */
async function catalog(url: string): Promise<string[]> {
  const lines = await query(
    url,
    `SELECT 'table ' || relname || ' ' || relkind::text || ' ' || coalesce(array_to_string(reloptions, ','), '') AS line
       FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'S', 'v', 'm')
     UNION ALL SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = 'public'
     UNION ALL SELECT 'constraint ' || conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid)
       FROM pg_constraint WHERE connamespace = 'public'::regnamespace
     UNION ALL SELECT 'trigger ' || pg_get_triggerdef(oid) || ' ' || tgenabled::text FROM pg_trigger WHERE NOT tgisinternal
     UNION ALL SELECT 'function ' || pg_get_functiondef(oid) FROM pg_proc
       WHERE pronamespace = 'public'::regnamespace AND prokind IN ('f', 'p')
     UNION ALL SELECT 'sequence ' || s.relname || ' of ' || coalesce(d.refobjid::regclass || '.' || a.attname, '-')
       FROM pg_class s LEFT JOIN pg_depend d ON d.objid = s.oid AND d.classid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')
         LEFT JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
       WHERE s.relnamespace = 'public'::regnamespace AND s.relkind = 'S'
     UNION ALL SELECT 'column ' || attrelid::regclass || '.' || attname || ' ' || format_type(atttypid, atttypmod) || ' '
         || concat_ws(',', attnotnull, attidentity, attgenerated, attstorage, attcompression) || ' '
         || coalesce(pg_get_expr(ad.adbin, ad.adrelid), '')
       FROM pg_attribute a LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
       WHERE attrelid = 'posts'::regclass AND attnum > 0 AND NOT attisdropped
     ORDER BY 1`,
  );
  return lines.map((r) => String(r.line));
}

describe("migrate-data into PostgreSQL: the posts staged and swapped in", () => {
  it("leaves what a new database has, and the post functions work", async () => {
    const fresh = await server.createDatabase("staging_fresh");
    await (await openStore(fresh)).close();
    const target = await server.createDatabase("staging_target");
    const summary = await migrateData({ from: source, to: target, batchSize: 40 });
    assert.ok(summary.steps.some((s) => s.step === "posts swapped in"));
    assert.deepEqual(await catalog(target), await catalog(fresh));
    const [row] = await query(
      target,
      "SELECT count(*)::int AS n, count(rank_vector)::int AS ranked FROM posts",
    );
    assert.deepEqual(row, { n: 150, ranked: 150 });
    // The rank columns the COPY sent are the ones the row trigger derives (migration 5).
    const [ranks] = await query(
      target,
      `SELECT count(*) FILTER (WHERE rank_vector IS DISTINCT FROM ts_filter(search_vector, '{a,b}')
          OR body_length IS DISTINCT FROM length(ts_filter(search_vector, '{d}')))::int AS differing,
        max(length(search_vector))::int > 0 AS words
        FROM posts`,
    );
    assert.deepEqual(ranks, { differing: 0, words: true });
    // The identity continues after the copied ids; a function taking a post row accepts one.
    const store = await openStore(target);
    await store.close();
    const [next] = await query(
      target,
      "SELECT nextval(pg_get_serial_sequence('posts', 'id'))::int > (SELECT max(id) FROM posts) AS after",
    );
    assert.deepEqual(next, { after: true });
  });

  it("leaves the target as it was when an index build beside the load fails", async () => {
    const target = await server.createDatabase("staging_failed_build");
    await (await openStore(target)).close();
    // An index the loaded posts cannot satisfy: built on the empty table, failing on the staged one.
    await query(target, "CREATE UNIQUE INDEX posts_one_a_language ON posts (language_id)");
    const before = await catalog(target);
    await assert.rejects(migrateData({ from: source, to: target }), /already exists|duplicate|unique/i);
    assert.deepEqual(await catalog(target), before);
    const [row] = await query(target, "SELECT count(*)::int AS n FROM posts");
    assert.deepEqual(row, { n: 0 });
  });

  it("drops a staged table a crashed copy left, and loads posts in place under a view", async () => {
    const target = await server.createDatabase("staging_leftover");
    const fresh = await server.createDatabase("staging_leftover_fresh");
    await (await openStore(fresh)).close();
    await (await openStore(target)).close();
    await query(target, "CREATE TABLE posts_migrating (id int); INSERT INTO posts_migrating VALUES (1)");
    await migrateData({ from: source, to: target });
    assert.deepEqual(await catalog(target), await catalog(fresh));

    await query(target, "CREATE VIEW post_titles AS SELECT id, title FROM posts");
    const summary = await migrateData({ from: source, to: target, force: true });
    assert.ok(!summary.steps.some((s) => s.step === "posts swapped in"));
    const [row] = await query(target, "SELECT count(*)::int AS n FROM post_titles");
    assert.deepEqual(row, { n: 150 });
  });

  it("keeps a GRANT and comments on posts by loading it in place", async () => {
    const target = await server.createDatabase("staging_granted");
    await (await openStore(target)).close();
    // Roles are the server's, not the database's: a name of this process, dropped at the end.
    const role = `feed_reader_${process.pid}`;
    await query(target, `CREATE ROLE ${role}`);
    try {
      await query(
        target,
        `GRANT SELECT ON posts TO ${role}; GRANT UPDATE (title) ON posts TO ${role};
         COMMENT ON TABLE posts IS 'the copied posts'; COMMENT ON COLUMN posts.title IS 'as fetched'`,
      );
      const summary = await migrateData({ from: source, to: target });
      assert.ok(!summary.steps.some((s) => s.step === "posts swapped in"));
      const [kept] = await query(
        target,
        `SELECT has_table_privilege('${role}', 'posts', 'SELECT') AS reads,
            has_column_privilege('${role}', 'posts', 'title', 'UPDATE') AS updates_title,
            has_column_privilege('${role}', 'posts', 'excerpt', 'UPDATE') AS updates_excerpt,
            obj_description('posts'::regclass, 'pg_class') AS comment,
            col_description('posts'::regclass, (SELECT attnum FROM pg_attribute
              WHERE attrelid = 'posts'::regclass AND attname = 'title')) AS title_comment,
            (SELECT count(*)::int FROM posts) AS n`,
      );
      assert.deepEqual(kept, {
        reads: true,
        updates_title: true,
        updates_excerpt: false,
        comment: "the copied posts",
        title_comment: "as fetched",
        n: 150,
      });
      // Without them, the next copy is staged again.
      await query(
        target,
        `REVOKE ALL ON posts FROM ${role}; COMMENT ON TABLE posts IS NULL; COMMENT ON COLUMN posts.title IS NULL`,
      );
      const again = await migrateData({ from: source, to: target, force: true });
      assert.ok(again.steps.some((s) => s.step === "posts swapped in"));
    } finally {
      await query(target, `DROP OWNED BY ${role}`);
      await query(target, `DROP ROLE ${role}`);
    }
  });

  it("loads posts in place when asked to (postsInPlace), to the same catalog", async () => {
    const target = await server.createDatabase("staging_in_place");
    const fresh = await server.createDatabase("staging_in_place_fresh");
    await (await openStore(fresh)).close();
    const summary = await migrateData({ from: source, to: target, postsInPlace: true });
    assert.ok(!summary.steps.some((s) => s.step === "posts swapped in"));
    assert.deepEqual(await catalog(target), await catalog(fresh));
  });
});
