/**
 * The search history (spec §4, operations 14 and 1) in a SQLite file of its own beside the posts'
 * file: `<database file>-history` (feeds.db -> feeds.db-history, so `feeds.db*` takes it along
 * with the -wal and -shm files), in WAL mode like the database.
 *
 * Why a file of its own: every search at offset 0 records itself, a commit. In WAL mode a commit
 * makes every other connection of that file drop its whole page cache at its next read
 * (pager.c, pager_reset when the log changed), so with the history in the posts' file each
 * recorded search cost the query threads' next heavy read its pages again (bench/NOTES.md, "SQLite
 * first calls after start"). A commit to this file leaves the posts' file, its log and its
 * readers' caches as they were; it also leaves the posts' file's data_version and total_changes
 * alone, which is what `dataVersionBesidesSearchHistory` needs.
 *
 * Each connection of the database has at most one history connection (`searchHistoryOf`), opened
 * on first use: read-only beside a read-only connection (the query threads), in memory beside an
 * in-memory database (which has no file to be beside), else created when missing.
 */
import { realpathSync } from "node:fs";
import Database from "better-sqlite3";
import { FeedServiceError } from "../../errors.js";
import { switchToWal } from "./sqlite-connection.js";

/** The history file of a database file. */
export function searchHistoryPath(databasePath: string): string {
  return `${databasePath}-history`;
}

/** Through symbolic links, as SQLite names the database's -wal file: every name of one database finds one history. */
function historyFileOf(databasePath: string): string {
  try {
    return searchHistoryPath(realpathSync(databasePath));
  } catch {
    return searchHistoryPath(databasePath);
  }
}

// terms_key: the terms lower-cased with whitespace collapsed; terms: the latest spelling. The same
// table as the database's schema 1 to 24 held; IF NOT EXISTS: every opening writer makes sure of it.
const historySchema = `
CREATE TABLE IF NOT EXISTS searches (
  id INTEGER PRIMARY KEY,
  terms_key TEXT NOT NULL UNIQUE,
  terms TEXT NOT NULL,
  search_count INTEGER NOT NULL,
  last_searched INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS searches_by_time ON searches (last_searched, id);
`;

const histories = new WeakMap<Database.Database, Database.Database>();

function unavailable(error: unknown): FeedServiceError {
  // The message names no path: it may reach an operator's log but is also safe for a client.
  return new FeedServiceError("FEED_STORE_UNAVAILABLE", "The SQLite search history could not be opened.", {
    cause: error,
  });
}

function openHistory(db: Database.Database): Database.Database {
  if (db.memory) {
    const memory = new Database(":memory:");
    memory.exec(historySchema);
    return memory;
  }
  const path = historyFileOf(db.name);
  try {
    if (db.readonly) {
      const reader = new Database(path, { readonly: true, fileMustExist: true });
      reader.pragma("busy_timeout = 5000");
      return reader;
    }
    const writer = new Database(path);
    switchToWal(writer);
    writer.pragma("synchronous = NORMAL");
    writer.pragma("busy_timeout = 5000");
    writer.exec(historySchema);
    return writer;
  } catch (error) {
    throw unavailable(error);
  }
}

/** The history connection that goes with a database connection, opened on first use. */
export function searchHistoryOf(db: Database.Database): Database.Database {
  let history = histories.get(db);
  if (!history) {
    history = openHistory(db);
    histories.set(db, history);
  }
  return history;
}

/** Closes the history connection of `db`, if one was opened (before or with `db`'s close). */
export function closeSearchHistory(db: Database.Database): void {
  const history = histories.get(db);
  histories.delete(db);
  if (history?.open) history.close();
}

/**
 * Migration 25: the database's `searches` rows into the history file, then the table dropped.
 * The history file commits first, with its rows replaced by the database's (not added to): a
 * migration interrupted after that commit and before the database's leaves the table in place, and
 * taking it again writes the same rows, never twice. Until the database's schema is 25 nothing
 * records into the history file, so its rows before this can only be such an interrupted copy.
 */
export function moveSearchHistory(db: Database.Database): void {
  const hasTable = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'searches'").get();
  if (!hasTable) return;
  const rows = db
    .prepare("SELECT id, terms_key, terms, search_count, last_searched FROM searches ORDER BY id")
    .raw()
    .all() as unknown[][];
  const opened = histories.has(db);
  const history = searchHistoryOf(db);
  try {
    const insert = history.prepare(
      "INSERT INTO searches (id, terms_key, terms, search_count, last_searched) VALUES (?, ?, ?, ?, ?)",
    );
    history.transaction(() => {
      history.exec("DELETE FROM searches");
      for (const row of rows) insert.run(...row);
    })();
  } finally {
    // A file's history is opened again by whoever uses it; an in-memory one holds the rows.
    if (!opened && !db.memory) closeSearchHistory(db);
  }
  db.exec("DROP TABLE searches");
}
