/**
 * The re-index migrations (SQLite 9, PostgreSQL 8) on a database indexed the old way: whole runs
 * of letters as words, so `東京` could not find `東京都の天気`. After the migration it does, on
 * both backends, every post is re-indexed with progress reported, and the search index is back.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import pg from "pg";
import { postgresBackend, sqliteBackend } from "../test-support/test-backends.js";
import { storeTitledPosts, titlesFound } from "../test-support/titled-posts.js";
import { openStore } from "./open-store.js";
import { inTransaction } from "./postgres/postgres-connection.js";
import { postgresMigrations } from "./postgres/postgres-migrations.js";
import { sqliteMigrations } from "./sqlite/sqlite-migrations.js";
import type { Store } from "./store.js";

const titles = ["東京都の天気", "서울 날씨", "Crème brûlée", "北京的天气"];

/** What each query finds once the index holds the analyzer's tokens. */
async function assertReindexed(store: Store): Promise<void> {
  assert.deepEqual(await titlesFound(store, "東京"), ["東京都の天気"]);
  assert.deepEqual(await titlesFound(store, "京"), ["東京都の天気", "北京的天气"]);
  assert.deepEqual(await titlesFound(store, "날씨"), ["서울 날씨"]);
  assert.deepEqual(await titlesFound(store, "creme"), ["Crème brûlée"]);
}

type Step = [string, number, number];

describe("search re-index migration", () => {
  it("SQLite 9 rebuilds an index of unicode61 words from the posts", async () => {
    const db = await sqliteBackend.newDatabase();
    try {
      const store = await openStore(db.location);
      await storeTitledPosts(store, titles);
      await store.close();
      // Back to version 8: the index as unicode61 wrote it from the raw text.
      const again = new Database(db.location);
      again.exec(`DROP TABLE posts_fts;
        CREATE VIRTUAL TABLE posts_fts USING fts5 (title, body, feed_name, content = '',
          contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2');
        INSERT INTO posts_fts (rowid, title, body, feed_name)
          SELECT p.id, p.title, p.excerpt, f.name FROM posts p JOIN feeds f ON f.id = p.feed_id;
`);
      const before = again.prepare("SELECT count(*) AS n FROM posts_fts WHERE posts_fts MATCH ?");
      assert.equal((before.get('"東京"') as { n: number }).n, 0, "the old index has whole runs only");
      // The migration itself, run again on the old index (later migrations have run on this
      // database too, so migrateSqlite would rightly see nothing left to do).
      const steps: Step[] = [];
      const reindex = sqliteMigrations.find((m) => m.version === 9)!;
      again.transaction(() => reindex.up(again, (...s) => steps.push(s)))();
      assert.deepEqual(steps.at(-1)?.slice(1), [titles.length, titles.length]);
      assert.match(steps[0]![0], /re-indexing/);
      assert.equal((before.get('"東京"') as { n: number }).n, 1, "version 9 indexes the words inside runs");
      // Then version 14 keys that index by date again, as it does on any database of version 13.
      const byDate = sqliteMigrations.find((m) => m.version === 14)!;
      again.transaction(() => byDate.up(again, () => {}))();
      again.close();
      const store2 = await openStore(db.location);
      try {
        await assertReindexed(store2);
      } finally {
        await store2.close();
      }
    } finally {
      db.drop();
    }
  });

  const postgres = postgresBackend();
  after(() => postgres.stop());

  it("PostgreSQL 8 rebuilds search vectors and the index from the posts", async () => {
    const db = await postgres.newDatabase();
    const store = await openStore(db.location);
    await storeTitledPosts(store, titles);
    await store.close();
    const pool = new pg.Pool({ connectionString: db.location, max: 2 });
    try {
      // Back to version 7: vectors of whole words as PostgreSQL's simple parser cuts them.
      await pool.query("UPDATE posts SET search_vector = to_tsvector('simple', title)");
      const before = await pool.query(
        "SELECT count(*)::int AS n FROM posts WHERE search_vector @@ '東京'::tsquery",
      );
      assert.equal(before.rows[0].n, 0, "the old vectors have whole runs only");
      const steps: Step[] = [];
      const reindex = postgresMigrations.find((m) => m.version === 8)!;
      await inTransaction(pool, (sql) => reindex.up(sql, (...s) => steps.push(s)));
      assert.deepEqual(steps.at(-1)?.slice(1), [titles.length, titles.length]);
      const index = await pool.query("SELECT 1 FROM pg_indexes WHERE indexname = 'posts_search_facets'");
      assert.equal(index.rowCount, 1, "the search index is rebuilt");
    } finally {
      await pool.end();
    }
    const store2 = await openStore(db.location);
    try {
      await assertReindexed(store2);
    } finally {
      await store2.close();
    }
  });
});
