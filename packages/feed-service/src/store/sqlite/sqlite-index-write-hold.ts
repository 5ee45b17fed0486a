/**
 * The full-text index's writes of a refresh transaction, held back until its other writes are
 * done. FTS5 keeps a transaction's new rows in memory and writes them out as one segment at
 * commit, but it also writes them out whenever a statement of the transaction opens a statement
 * journal (its xSavepoint flushes, fts5_main.c `fts5SavepointMethod`), and SQLite opens one for
 * every statement that writes more than one row or fires triggers (https://sqlite.org/tempfiles.html,
 * "Statement Journal Files"): each post's insert, with its roll-up triggers, and its story bands.
 * Written between them, each post's index row became a segment of its own, and FTS5 then spent
 * its time merging those (bench/NOTES.md, "One story once: ingest at speed"). FTS5 also writes
 * them out before a row whose rowid is below the last one written (`sqlite3Fts5IndexBeginWrite`),
 * and a feed lists its entries newest first, so their date keys come in descending order. Held
 * back and written after the rest in ascending rowid order, a transaction's index rows make one
 * segment.
 *
 * Only the index's own statements are held (`FTS5_INSERT`, `FTS5_DELETE`, whoever prepares them:
 * the feed writer and the date keys' renumbering), and those of the clicked posts' index
 * (sqlite-clicked-index.ts) and of the posts by feed (fts5-feed-index.ts), the same reasons applying; nothing in a refresh reads either index.
 * Writes to different rowids or tables commute, and the sort (by table, then rowid) is stable, so
 * the writes to one rowid keep their order: each index ends exactly as if written at once.
 */
import type Database from "better-sqlite3";
import { FEED_FTS_DELETE, FEED_FTS_INSERT } from "./fts5-feed-index.js";
import { FTS5_DELETE, FTS5_INSERT } from "./fts5-index-row.js";
import { CLICKED_DELETE, CLICKED_INSERT } from "./sqlite-clicked-index.js";
import { StatementCache } from "./sqlite-connection.js";

interface HeldWrite {
  statement: Database.Statement;
  args: unknown[];
  /** Whose write it is (`hold`'s caller's tag): a failure of it is theirs. */
  tag: number;
  /** Which index it writes: 0 posts_fts, 1 the clicked posts' (whose rowids are BigInt), 2 posts by feed's. */
  table: number;
}

/** The held statements, by the index they write. */
const HELD = new Map([
  [FTS5_INSERT, 0],
  [FTS5_DELETE, 0],
  [CLICKED_INSERT, 1],
  [CLICKED_DELETE, 1],
  [FEED_FTS_INSERT, 2],
  [FEED_FTS_DELETE, 2],
]);

/** A failure of a held write, with the tag it was held under. */
export class HeldIndexWriteError extends Error {
  constructor(
    readonly tag: number,
    override readonly cause: unknown,
  ) {
    super("A full-text index write failed.", { cause });
  }
}

export class IndexWriteHold extends StatementCache {
  readonly #held: HeldWrite[] = [];
  readonly #recorders = new Map<string, Database.Statement>();
  /** fixedWhileWriting's answers in the transaction under way (begin() and drop() forget them). */
  readonly #fixed = new Map<string, unknown>();
  #tag = 0;

  /**
   * A write transaction starts (BEGIN IMMEDIATE: no other connection commits and no schema
   * changes until it ends): answers kept from an earlier one are forgotten.
   */
  begin(): void {
    this.#fixed.clear();
  }

  override fixedWhileWriting<T>(key: string, read: () => T): T {
    if (this.#fixed.has(key)) return this.#fixed.get(key) as T;
    const value = read();
    this.#fixed.set(key, value);
    return value;
  }

  /** Writes from now on are `tag`'s (a feed's place in its batch). */
  tagAs(tag: number): void {
    this.#tag = tag;
  }

  override get(sql: string): Database.Statement {
    const statement = super.get(sql);
    const table = HELD.get(sql);
    if (table === undefined) return statement;
    let recorder = this.#recorders.get(sql);
    if (!recorder) {
      // Callers of these two statements only ever call run() and ignore its result.
      recorder = {
        run: (...args: unknown[]) => {
          this.#held.push({ statement, args, tag: this.#tag, table });
          return { changes: 1, lastInsertRowid: 0 };
        },
      } as unknown as Database.Statement;
      this.#recorders.set(sql, recorder);
    }
    return recorder;
  }

  /** Writes the held rows by rowid; throws `HeldIndexWriteError` with the failing write's tag. */
  writeHeld(): void {
    const held = this.#held.splice(0);
    // Every statement takes the rowid first; Array.prototype.sort is stable (ES2019).
    held.sort((a, b) => {
      if (a.table !== b.table) return a.table - b.table;
      const [x, y] = [a.args[0] as number | bigint, b.args[0] as number | bigint];
      return x < y ? -1 : x > y ? 1 : 0;
    });
    for (const w of held) {
      try {
        w.statement.run(...w.args);
      } catch (error) {
        throw new HeldIndexWriteError(w.tag, error);
      }
    }
  }

  /** Forgets the held rows (the transaction was rolled back). */
  drop(): void {
    this.#held.length = 0;
    this.#fixed.clear();
  }
}
