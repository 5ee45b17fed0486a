/**
 * The store contract on real SQLite files in a temporary folder, plus what only SQLite has:
 * upgrading an old database in place, pragmas, query plans that use the indexes, and openStore's
 * location forms.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import { FeedServiceError } from "../../errors.js";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { lcgDraws } from "../../test-support/seeded-draws.js";
import { runStoreContract } from "../../test-support/store-contract.js";
import { openStore } from "../open-store.js";
import { toFts5Match } from "./fts5-match.js";
import {
  fitWriterCache,
  openSqliteDatabase,
  StatementCache,
  writerCacheKiB,
  writerMmapBytes,
} from "./sqlite-connection.js";
import { latestSchemaVersion, migrateSqlite, schemaVersion, sqliteMigrations } from "./sqlite-migrations.js";
import { searchHistoryPath } from "./sqlite-search-history.js";
import { openSqliteStore } from "./sqlite-store.js";

const dir = mkdtempSync(join(tmpdir(), "feed-store-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function fileFor(name: string): string {
  return join(dir, `${name.replace(/[^A-Za-z0-9-]+/g, "_").slice(0, 80)}.db`);
}

runStoreContract("sqlite", (name) => openStore(fileFor(name)));

describe("sqlite store", () => {
  it("upgrades a version 1 database in place, indexing its posts and adding click counts", async () => {
    const path = fileFor("v1-upgrade");
    const old = new Database(path);
    assert.equal(migrateSqlite(old, 1), 1);
    old.exec(`INSERT INTO categories (id, name, name_key) VALUES (1, 'Web', 'web');
      INSERT INTO feeds (id, url, name, name_key, category_id, language_id, post_count, last_post_date)
        VALUES (1, 'https://old.test/rss', 'Old Feed', 'old feed', 1, 1, 1, 1000);
      INSERT INTO posts (feed_id, guid, link, title, excerpt, content, seen_at, post_date, language_id, category_id)
        VALUES (1, 'g', 'https://old.test/1', 'Vintage Café', 'from before', '<p>légende</p>', 1000, 1000, 1, 1);`);
    old.close();

    const store = await openStore(path);
    try {
      const found = await store.searchPosts({
        limit: 10,
        offset: 0,
        languageIds: null,
        query: parseSearchQuery("cafe legende old"),
        sort: "relevance",
      });
      assert.deepEqual(
        found.map((p) => [p.postTitle, p.clicks, p.categoryName]),
        [["Vintage Café", 0, "Web"]],
      );
      await store.recordClick(found[0]!.postId, "h", 2000, 600_000);
      assert.equal((await store.recentPosts({ limit: 1, offset: 0, languageIds: null }))[0]!.clicks, 1);
      const en = (await store.aggregateLanguageData(3000)).find((l) => l.languageId === 1);
      assert.deepEqual([en?.postCount, en?.clicks, en?.lastPostDate], [1, 1, 1000]);
    } finally {
      await store.close();
    }
    const db = new Database(path, { readonly: true });
    assert.equal(schemaVersion(db), latestSchemaVersion);
    const versions = db.prepare("SELECT version FROM schema_migrations ORDER BY version").all();
    assert.deepEqual(
      versions.map((v) => (v as { version: number }).version),
      sqliteMigrations.map((m) => m.version),
    );
    db.close();
  });

  it("opens in WAL mode with foreign keys, and a second open migrates nothing", async () => {
    const path = fileFor("pragmas");
    await (await openStore(path)).close();
    await (await openStore(`sqlite:${path}`)).close();
    const db = new Database(path);
    assert.equal(db.pragma("journal_mode", { simple: true }), "wal");
    assert.equal(
      (db.prepare("SELECT count(*) AS n FROM schema_migrations").get() as { n: number }).n,
      sqliteMigrations.length,
    );
    db.close();
  });

  it("sizes the writer's page cache by the file: SQLite's default below the lock-byte page and the file mapped, 64 MiB from there", () => {
    assert.equal(writerCacheKiB(2 ** 30 - 4096), 2000);
    assert.equal(writerCacheKiB(2 ** 30), 65_536);
    assert.equal(writerMmapBytes(2 ** 30 - 4096), 2 ** 30);
    assert.equal(writerMmapBytes(2 ** 30), 0);
    const db = openSqliteDatabase(fileFor("writer-cache"));
    db.exec("CREATE TABLE t (x)");
    assert.equal(db.pragma("cache_size", { simple: true }), -65_536);
    fitWriterCache(db, new StatementCache(db));
    assert.equal(db.pragma("cache_size", { simple: true }), -2000);
    assert.equal(db.pragma("mmap_size", { simple: true }), 2 ** 30);
    db.close();
    const memory = openSqliteDatabase(":memory:");
    fitWriterCache(memory, new StatementCache(memory));
    assert.equal(memory.pragma("cache_size", { simple: true }), -65_536);
    memory.close();
  });

  it("plans every post list as an index scan, never a full table scan or a sort", () => {
    const db = new Database(":memory:");
    migrateSqlite(db);
    const plan = (sql: string, ...params: unknown[]) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>)
        .map((r) => r.detail)
        .join(" | ");
    const cols =
      "SELECT p.id FROM posts p JOIN feeds f ON f.id = p.feed_id LEFT JOIN categories c ON c.id = p.category_id";
    const order = "ORDER BY p.post_date DESC, p.id DESC LIMIT 20";
    const checks = [
      plan(`${cols} ${order}`),
      plan(`${cols} WHERE p.feed_id = ? ${order}`, 1),
      plan(`${cols} WHERE p.category_id = ? ${order}`, 1),
      plan(`${cols} WHERE p.category_id = ? AND p.post_date > ? ${order}`, 1, 0),
      plan(`${cols} WHERE p.language_id = ? ${order}`, 1),
      plan(`${cols} WHERE p.category_id = ? AND p.language_id = ? ${order}`, 1, 1),
    ];
    for (const detail of checks) {
      assert.match(detail, /USING (COVERING )?INDEX posts_by_/, detail);
      assert.doesNotMatch(detail, /SCAN p\b(?! USING)|TEMP B-TREE/, detail);
    }
    // A level of the most popular posts' index is seeked by category and time (schema 26).
    const popular = plan(
      `SELECT count(*) FROM post_click_levels INDEXED BY post_click_levels_by_time
        WHERE level = ? AND category_key IN (SELECT 0 UNION ALL SELECT id FROM categories) AND clicked_at >= ?`,
      1,
      0,
    );
    assert.match(
      popular,
      /SEARCH post_click_levels USING COVERING INDEX post_click_levels_by_time \(level=\? AND category_key=\? AND clicked_at>\?\)/,
      popular,
    );
    db.close();
  });

  it("tells a data version that recorded searches leave unchanged, and one that they change", async () => {
    const path = fileFor("history-versions");
    const store = openSqliteStore(path);
    const other = openSqliteStore(path);
    // A reader of the posts' file, as a query thread is: a commit to that file is what makes it
    // drop its page cache, and data_version tells it.
    const reader = new Database(path, { readonly: true });
    const readerVersion = () => reader.pragma("data_version", { simple: true });
    try {
      const all = await store.dataVersion();
      const besides = await store.dataVersionBesidesSearchHistory();
      const seen = readerVersion();
      await store.recordSearch("rust", Date.UTC(2026, 0, 1));
      await store.recordSearch("rust", Date.UTC(2026, 0, 2));
      assert.notEqual(await store.dataVersion(), all);
      assert.equal(await store.dataVersionBesidesSearchHistory(), besides);
      assert.equal(readerVersion(), seen, "recording a search wrote the posts' file");
      // Another process's recorded search too: seen by the history, not by the posts' file.
      const allBefore = await store.dataVersion();
      await other.recordSearch("zig", Date.UTC(2026, 0, 3));
      assert.notEqual(await store.dataVersion(), allBefore);
      assert.equal(await store.dataVersionBesidesSearchHistory(), besides);
      assert.equal(readerVersion(), seen);
      assert.deepEqual(
        (await store.searchHistory(5)).map((h) => [h.searchTerms, h.searchCount]),
        [
          ["zig", 1],
          ["rust", 2],
        ],
      );
      await store.addCategory("Web");
      assert.notEqual(await store.dataVersionBesidesSearchHistory(), besides);
      await other.addCategory("Science");
      const besidesNow = await store.dataVersionBesidesSearchHistory();
      assert.notEqual(besidesNow, besides, "another process's write left the version");
      // A search that records nothing (no word in it) changes neither.
      const allNow = await store.dataVersion();
      await store.recordSearch("   ", Date.UTC(2026, 0, 4));
      assert.equal(await store.dataVersion(), allNow);
      assert.equal(await store.dataVersionBesidesSearchHistory(), besidesNow);
    } finally {
      reader.close();
      await other.close();
      await store.close();
    }
  });

  it("moves the search history into its own file once (schema 25), also after an interrupted move", async () => {
    const path = fileFor("history-move");
    const old = new Database(path);
    migrateSqlite(old, 24);
    old.exec(`INSERT INTO searches (id, terms_key, terms, search_count, last_searched) VALUES
      (1, 'rust', 'Rust', 3, 1000), (2, 'open source', 'Open  Source', 1, 3000), (5, 'zig', 'zig', 7, 2000)`);
    old.close();
    // What a move interrupted after the history file's commit leaves: the rows copied there and
    // the database still at 24, here with one row since changed in the database.
    const partial = new Database(searchHistoryPath(path));
    partial.exec(`CREATE TABLE searches (id INTEGER PRIMARY KEY, terms_key TEXT NOT NULL UNIQUE,
        terms TEXT NOT NULL, search_count INTEGER NOT NULL, last_searched INTEGER NOT NULL);
      INSERT INTO searches VALUES (1, 'rust', 'Rust', 2, 900), (9, 'stale', 'stale', 1, 9000)`);
    partial.close();
    const expected = [
      { searchTerms: "Open  Source", searchCount: 1, lastSearched: 3000 },
      { searchTerms: "zig", searchCount: 7, lastSearched: 2000 },
      { searchTerms: "Rust", searchCount: 3, lastSearched: 1000 },
    ];
    for (let open = 0; open < 2; open++) {
      const store = openSqliteStore(path);
      try {
        assert.deepEqual(await store.searchHistory(10), expected, `opening ${open + 1}`);
      } finally {
        await store.close();
      }
    }
    const db = new Database(path, { readonly: true });
    assert.equal(schemaVersion(db), latestSchemaVersion);
    assert.equal(db.prepare("SELECT 1 FROM sqlite_master WHERE name LIKE 'searches%'").get(), undefined);
    db.close();
    // Recording goes on in the file, with the ids after the moved ones.
    const store = openSqliteStore(path);
    try {
      await store.recordSearch("new words", 4000);
      await store.recordSearch("RUST", 5000);
      assert.deepEqual(
        (await store.searchHistory(2)).map((h) => [h.searchTerms, h.searchCount]),
        [
          ["RUST", 4],
          ["new words", 1],
        ],
      );
    } finally {
      await store.close();
    }
  });

  it("translates every search into a MATCH that FTS5 accepts", () => {
    const db = new Database(":memory:");
    migrateSqlite(db);
    const stmt = db.prepare("SELECT count(*) AS n FROM posts_fts WHERE posts_fts MATCH ?");
    const alphabet = [
      '"',
      "-",
      " ",
      " ",
      "OR",
      "AND",
      "NOT",
      "NEAR",
      "(",
      ")",
      "*",
      ":",
      "^",
      "+",
      "a",
      "é",
      "{",
      "}",
      "'",
    ];
    const random = lcgDraws(42);
    for (let i = 0; i < 2000; i++) {
      let text = "";
      const length = 1 + Math.floor(random() * 12);
      for (let j = 0; j < length; j++) text += alphabet[Math.floor(random() * alphabet.length)];
      const match = toFts5Match(parseSearchQuery(text));
      if (match !== null) assert.doesNotThrow(() => stmt.get(match), `${JSON.stringify(text)} -> ${match}`);
    }
    // The longest inputs the operation allows (256 characters): 128 ANDed words, 86 ORed, 85 exclusions.
    for (const text of [
      Array(128).fill("a").join(" "),
      Array(86).fill("x").join(" OR "),
      `a ${"-b ".repeat(84)}`,
    ]) {
      const match = toFts5Match(parseSearchQuery(text))!;
      assert.doesNotThrow(() => stmt.get(match), text.slice(0, 30));
    }
    db.close();
  });
});

describe("openStore", () => {
  it("creates the folder of a new database file", async () => {
    const path = join(dir, "nested", "deeper", "feeds.db");
    const store = await openStore(path);
    assert.equal(await store.ping(), true);
    await store.close();
    assert.ok(existsSync(path));
    assert.equal(await store.ping(), false, "a closed store does not answer");
  });

  it("opens :memory:", async () => {
    const store = await openStore(":memory:");
    assert.equal(store.dialect, "sqlite");
    assert.equal((await store.languages())[0]!.languageCode, "en");
    await store.close();
  });

  it("refuses what is not a database location, with a clear message", async () => {
    await assert.rejects(
      openStore("  "),
      (e: unknown) => e instanceof FeedServiceError && e.code === "FEED_BAD_ARGUMENT",
    );
    await assert.rejects(
      openStore("mysql://x/y"),
      (e: unknown) => e instanceof FeedServiceError && /file path, sqlite:<path>/.test(e.message),
    );
  });
});
