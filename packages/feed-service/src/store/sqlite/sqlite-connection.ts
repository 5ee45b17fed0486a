/**
 * Opens a SQLite database for the store: WAL (readers never wait for the writer, and several
 * processes may share the file), synchronous=NORMAL (durable at each checkpoint, fast commits),
 * foreign keys on, a busy timeout for writers of other processes; and a cache of prepared
 * statements so each SQL text is compiled once per connection.
 */
import { existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { FeedServiceError } from "../../errors.js";

/**
 * The store's SQLite extension (native/sampled_bm25.c, built on install by
 * scripts/build-native.mjs): the `sampled_bm25` ranking function that search uses. The same
 * relative path holds from src/ (tests) and dist/.
 */
const EXTENSION = fileURLToPath(new URL("../../../native/build/sampled_bm25.so", import.meta.url));

const withExtension = new WeakSet<Database.Database>();

/** Loads the store's extension into a connection (once; the store does it for every connection it uses). */
export function loadStoreExtension(db: Database.Database): void {
  if (withExtension.has(db)) return;
  if (!existsSync(EXTENSION)) {
    throw new FeedServiceError(
      "FEED_STORE_UNAVAILABLE",
      "The SQLite search extension of the feed service has not been built (npm install or npm run build builds it).",
    );
  }
  // SQLite derives the entry point, sqlite3_sampledbm_init, from the file name.
  db.loadExtension(EXTENSION);
  withExtension.add(db);
}

/**
 * Puts the file in WAL mode, trying again for up to 5 s while another process holds it. Two
 * processes creating one new file at once (serve --workers) can find the switch SQLITE_BUSY at
 * once: SQLite returns it without calling the busy handler where waiting could deadlock
 * (https://sqlite.org/c3ref/busy_handler.html), so the timeout alone does not cover it.
 */
export function switchToWal(db: Database.Database): void {
  const deadline = Date.now() + 5000;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      db.pragma("journal_mode = WAL");
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== "SQLITE_BUSY" || Date.now() > deadline) throw error;
      Atomics.wait(pause, 0, 0, 10);
    }
  }
}

export function openSqliteDatabase(path: string): Database.Database {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  let db: Database.Database;
  try {
    db = new Database(path);
  } catch (error) {
    // The message names no path: it may reach an operator's log but is also safe for a client.
    throw new FeedServiceError("FEED_STORE_UNAVAILABLE", "The SQLite database could not be opened.", {
      cause: error,
    });
  }
  switchToWal(db);
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  db.pragma("busy_timeout = 5000");
  // 64 MiB page cache (https://sqlite.org/pragma.html#pragma_cache_size): sized for the hot indexes
  // of about a million posts, the demo corpus; a larger database reads more of them from the OS.
  db.pragma("cache_size = -65536");
  // Statement journals in memory: a write whose triggers keep the roll-ups in step (migration 8)
  // journals every page it touches, which spills past SQLite's 64 KiB threshold into a temporary
  // file per statement (https://sqlite.org/tempfiles.html).
  db.pragma("temp_store = MEMORY");
  return db;
}

/** Where SQLite's lock-byte page lies in every database file: PENDING_BYTE, https://sqlite.org/fileformat2.html#lockbyte. */
const LOCK_BYTE_OFFSET = 0x4000_0000;

/** Each writing connection's page cache as `fitWriterCache` last set it, in KiB. */
const writerCaches = new WeakMap<Database.Database, number>();

/**
 * The writing connection's page cache for a file of `bytes`, in KiB (`fitWriterCache`).
 *
 * @example
 * writerCacheKiB(50 * 2 ** 20); // -> 2000
 */
export function writerCacheKiB(bytes: number): number {
  return bytes < LOCK_BYTE_OFFSET ? 2000 : 65_536;
}

/**
 * The writing connection's memory map for a file of `bytes` (`fitWriterCache`): the first GiB, all
 * of a file under 1 GiB (and its growth up to there), beside its small page cache; none from 1 GiB,
 * where the 64 MiB cache holds the pages read.
 *
 * @example
 * writerMmapBytes(50 * 2 ** 20); // -> 1073741824
 */
export function writerMmapBytes(bytes: number): number {
  return bytes < LOCK_BYTE_OFFSET ? LOCK_BYTE_OFFSET : 0;
}

/**
 * Sizes a writing connection's page cache by its file: SQLite's default (2,000 KiB) below 1 GiB,
 * the 64 MiB of `openSqliteDatabase` from there. Below 1 GiB a commit after a b-tree split walks
 * the whole cache: SQLite orders a split's new pages by renumbering one through the lock-byte
 * page's number (btree.c `balance_nonroot`), the cache keeps that as its largest page number, and
 * the commit's truncation to the file's size then visits every cached page (pcache1.c
 * `pcache1TruncateUnsafe`): every page of a 64 MiB cache for each small refresh. From 1 GiB that
 * page is inside the file and nothing is walked. A file under 1 GiB is one the OS can cache whole,
 * so a smaller cache there would cost a copy from the OS per page missed (`pread`, the refresh's
 * band look-ups missing on most pages): the file is mapped instead (`writerMmapBytes`), and a page
 * that a statement only reads is used in place (https://sqlite.org/mmap.html); a page the
 * transaction writes is still copied into the cache. The store calls this after opening and after
 * refreshes, as the file grows; in-memory databases keep theirs (their cache is the data).
 */
export function fitWriterCache(db: Database.Database, stmts: StatementCache): void {
  if (db.memory) return;
  const { bytes } = stmts
    .get("SELECT page_count * page_size AS bytes FROM pragma_page_count(), pragma_page_size()")
    .get() as { bytes: number };
  const kib = writerCacheKiB(bytes);
  if (writerCaches.get(db) === kib) return;
  db.pragma(`cache_size = -${kib}`);
  db.pragma(`mmap_size = ${writerMmapBytes(bytes)}`);
  writerCaches.set(db, kib);
}

/**
 * Opens an existing, already migrated database for reading only: the connection of a query
 * thread. WAL lets it read beside the writer of this or another process.
 */
export function openSqliteReader(path: string): Database.Database {
  let db: Database.Database;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new FeedServiceError("FEED_STORE_UNAVAILABLE", "The SQLite database could not be opened.", {
      cause: error,
    });
  }
  db.pragma("busy_timeout = 5000");
  db.pragma("cache_size = -65536");
  return db;
}

/**
 * How far the database has been written, as a connection sees it: `changes` counts the rows this
 * connection changed (total_changes(), its triggers' included) and `others` the commits of other
 * connections (data_version, https://sqlite.org/pragma.html#pragma_data_version). Together they
 * change on every write, by this process or another.
 */
export function writeCounts(stmts: StatementCache): { changes: number; others: number } {
  return stmts
    .get("SELECT total_changes() AS changes, (SELECT data_version FROM pragma_data_version) AS others")
    .get() as { changes: number; others: number };
}

/** Prepared statements by SQL text, compiled on first use and reused for the connection's life. */
export class StatementCache {
  readonly #db: Database.Database;
  readonly #statements = new Map<string, Database.Statement>();

  constructor(db: Database.Database) {
    this.#db = db;
  }

  /** The connection the statements belong to. */
  get database(): Database.Database {
    return this.#db;
  }

  get(sql: string): Database.Statement {
    let stmt = this.#statements.get(sql);
    if (!stmt) {
      stmt = this.#db.prepare(sql);
      this.#statements.set(sql, stmt);
    }
    return stmt;
  }

  /**
   * `read()`'s answer, for a fact of the database that only a schema change or another
   * connection's commit can change (a table's existence, data_version). Here it is read at every
   * call; a write transaction's cache (IndexWriteHold) keeps it until the transaction ends, since
   * neither can happen while the transaction holds the write lock.
   */
  fixedWhileWriting<T>(_key: string, read: () => T): T {
    return read();
  }
}

/** Turns driver errors into the package's error type without leaking SQL text or paths. */
export function translateSqliteError(error: unknown, conflictMessage?: string): unknown {
  if (error instanceof FeedServiceError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string") {
    if (code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
      return new FeedServiceError(
        "FEED_CONFLICT",
        conflictMessage ?? "That would duplicate an existing entry.",
        {
          cause: error,
        },
      );
    }
    if (code === "SQLITE_CONSTRAINT_FOREIGNKEY") {
      return new FeedServiceError(
        "FEED_NOT_FOUND",
        "The change refers to a category, language, feed or post that does not exist.",
        { cause: error },
      );
    }
    if (
      code.startsWith("SQLITE_BUSY") ||
      code.startsWith("SQLITE_IOERR") ||
      code.startsWith("SQLITE_CANTOPEN")
    ) {
      return new FeedServiceError(
        "FEED_STORE_UNAVAILABLE",
        "The database is busy or unavailable; try again.",
        {
          cause: error,
        },
      );
    }
  }
  return error;
}
