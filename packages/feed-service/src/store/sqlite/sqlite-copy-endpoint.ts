/** The SQLite side of `migrate-data`: reads and writes the store tables of one database file. */
import type Database from "better-sqlite3";
import { type CopiedTable, type CopyEndpoint, keyAfter, onConflict, type Row } from "../copied-tables.js";
import { FEED_FTS, FEED_FTS_DELETE, FEED_FTS_INSERT, feedIndexRow } from "./fts5-feed-index.js";
import { FTS5_INSERT, fts5IndexRow } from "./fts5-index-row.js";
import { fillClickLevels } from "./sqlite-click-levels.js";
import { refillClickOrdinals } from "./sqlite-click-ordinals.js";
import {
  CLICKED_DELETE,
  CLICKED_FTS,
  CLICKED_INSERT,
  clickedKey,
  clickedRow,
} from "./sqlite-clicked-index.js";
import { openSqliteDatabase, StatementCache } from "./sqlite-connection.js";
import { forgetCountedSearches, syncCountedSearches } from "./sqlite-counted-searches.js";
import { assignDateKey } from "./sqlite-date-keys.js";
import { fillPostDayCounts } from "./sqlite-day-counts-schema.js";
import { recountLanguages } from "./sqlite-language-counts.js";
import { migrateSqlite } from "./sqlite-migrations.js";
import { fillRunningSumTables } from "./sqlite-running-sums-schema.js";
import { closeSearchHistory, searchHistoryOf } from "./sqlite-search-history.js";

const POST_TITLE = 4;
const POST_EXCERPT = 5;
const POST_CONTENT = 6;
const POST_FEED = 1;
const POST_DATE = 10;
const POST_LANGUAGE = 11;
const POST_CLICKS = 13;

export class SqliteEndpoint implements CopyEndpoint {
  readonly description: string;
  readonly #db: Database.Database;
  readonly #stmts: StatementCache;

  constructor(path: string) {
    this.description = `SQLite database ${path}`;
    this.#db = openSqliteDatabase(path);
    migrateSqlite(this.#db);
    this.#stmts = new StatementCache(this.#db);
  }

  /** The connection that holds `table`: the search history has a file of its own (schema 25). */
  #holding(table: CopiedTable): Database.Database {
    return table.name === "searches" ? searchHistoryOf(this.#db) : this.#db;
  }

  count(table: CopiedTable): Promise<number> {
    const where = table.name === "languages" ? "WHERE id > 2" : "";
    const row = this.#holding(table).prepare(`SELECT count(*) AS n FROM ${table.name} ${where}`).get() as {
      n: number;
    };
    return Promise.resolve(row.n);
  }

  read(table: CopiedTable, after: unknown, limit: number): Promise<Row[]> {
    const { where, values } = keyAfter(table, after, () => "?");
    const stmt = this.#holding(table)
      .prepare(`SELECT ${table.columns.join(", ")} FROM ${table.name} ${where} ORDER BY ${table.key} LIMIT ?`)
      .raw(true);
    return Promise.resolve(stmt.all(...values, limit) as Row[]);
  }

  begin(): Promise<void> {
    // Each batch is one transaction; the roll-up triggers keep up with SQLite's row-by-row inserts.
    return Promise.resolve();
  }

  write(table: CopiedTable, rows: readonly Row[], feedNames: ReadonlyMap<number, string>): Promise<void> {
    const marks = table.columns.map(() => "?").join(", ");
    if (table.name === "searches") {
      const history = searchHistoryOf(this.#db);
      const insert = history.prepare(
        `INSERT INTO searches (${table.columns.join(", ")}) VALUES (${marks}) ${onConflict(table, table.columns)}`,
      );
      history.transaction(() => {
        for (const row of rows) insert.run(...row);
      })();
      return Promise.resolve();
    }
    // Languages 1 and 2 exist in every database: the copy's spelling replaces them.
    const insert = this.#db.prepare(
      `INSERT INTO ${table.name} (${table.columns.join(", ")}) VALUES (${marks})
        ${onConflict(table, table.columns)}`,
    );
    const index = this.#db.prepare(FTS5_INSERT);
    const keyOf = this.#db.prepare("SELECT date_key, clicks FROM posts WHERE id = ?").raw();
    const indexClicked = this.#db.prepare(CLICKED_INSERT);
    const unindexClicked = this.#db.prepare(CLICKED_DELETE);
    const unindex = this.#db.prepare("DELETE FROM posts_fts WHERE rowid = ?");
    // The posts by feed's index (schema 24, fts5-feed-index.ts) takes the same rows.
    const indexByFeed = this.#db.prepare(FEED_FTS_INSERT);
    const unindexByFeed = this.#db.prepare(FEED_FTS_DELETE);
    const unkey = this.#db.prepare("UPDATE posts SET date_key = NULL WHERE id = ?");
    this.#db.transaction(() => {
      for (const row of rows) {
        if (table.name === "posts") {
          // A post copied over an existing one (--force) leaves the old key and index rows first.
          const [old, oldClicks] = (keyOf.get(Number(row[0])) as [number | null, number] | undefined) ?? [
            null,
            0,
          ];
          if (old !== null) {
            unindexClicked.run(clickedKey(oldClicks, Number(row[0])));
            unindex.run(old);
            unindexByFeed.run(old);
            unkey.run(Number(row[0]));
          }
        }
        insert.run(...row);
        if (table.name === "posts") {
          const id = Number(row[0]);
          const indexed = fts5IndexRow(
            assignDateKey(this.#stmts, id, Number(row[POST_DATE])),
            String(row[POST_TITLE]),
            String(row[POST_EXCERPT]),
            String(row[POST_CONTENT]),
            feedNames.get(Number(row[POST_FEED])) ?? "",
            Number(row[POST_LANGUAGE]),
          );
          index.run(...indexed);
          indexByFeed.run(...feedIndexRow(indexed, Number(row[POST_FEED])));
          // Every post also goes into the clicked posts' index (sqlite-clicked-index.ts).
          indexClicked.run(...clickedRow(clickedKey(Number(row[POST_CLICKS]), id), indexed));
        }
      }
    })();
    return Promise.resolve();
  }

  clear(): Promise<void> {
    this.#db.transaction(() => {
      this.#db.exec("INSERT INTO posts_fts (posts_fts) VALUES ('delete-all')");
      this.#db.exec(`INSERT INTO ${CLICKED_FTS} (${CLICKED_FTS}) VALUES ('delete-all')`);
      this.#db.exec(`INSERT INTO ${FEED_FTS} (${FEED_FTS}) VALUES ('delete-all')`);
      const claims = this.#db.prepare(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'feed_claims'",
      );
      if (claims.get()) this.#db.exec("DELETE FROM feed_claims");
      for (const name of [
        "feed_pauses",
        "sign_in_failures",
        "suggestions",
        "audit_log",
        "admin_sessions",
        "admin_users",
        "websub_subscriptions",
        "clicks",
        "smart_categories",
        "posts",
        "feeds",
        "categories",
        "settings",
      ]) {
        this.#db.exec(`DELETE FROM ${name}`);
      }
      this.#db.exec("DELETE FROM languages WHERE id > 2");
      forgetCountedSearches(this.#db);
    })();
    searchHistoryOf(this.#db).exec("DELETE FROM searches");
    return Promise.resolve();
  }

  finish(): Promise<void> {
    // INTEGER PRIMARY KEY continues after the largest id by itself. What the store keeps counted
    // is counted again from the copied rows: the per-language counts travel in no copied column,
    // and --force leaves roll-up bounds of the posts it removed (wider, so true, but not tight).
    this.#db.transaction(() => {
      this.#db.exec(`DELETE FROM post_day_counts; ${fillPostDayCounts}`);
      this.#db.exec("DELETE FROM feed_post_sums; DELETE FROM feed_click_sums; DELETE FROM post_day_ranks;");
      fillRunningSumTables(this.#db, () => {});
      // Posts arrive with their all-time counts before their clicks: the levels are read again.
      this.#db.exec("DELETE FROM post_click_levels");
      fillClickLevels(this.#db, () => {});
      // Clicks arrive in id order, not each post's click order: numbered again in one pass.
      refillClickOrdinals(this.#db);
      recountLanguages(this.#db);
      // The smart categories' queries counted from the copied posts (schema 29).
      forgetCountedSearches(this.#db);
      syncCountedSearches(new StatementCache(this.#db));
    })();
    return Promise.resolve();
  }

  close(): Promise<void> {
    closeSearchHistory(this.#db);
    this.#db.close();
    return Promise.resolve();
  }
}
