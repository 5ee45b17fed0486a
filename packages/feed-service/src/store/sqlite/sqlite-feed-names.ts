/**
 * Every feed's id and name for a search's `feed:` (spec §4: up to 10,000 feeds), kept until a feed
 * is added, renamed or removed, as PostgreSQL keeps them (postgres-feed-names.ts). The SQLite file
 * counts no such changes (that would be a migration); a connection counts its own instead, in a
 * TEMP table that TEMP triggers on `feeds` bump (per connection, outside the file's schema: a
 * refresh that rewrites a feed's row with the same name does not count), and `PRAGMA data_version`
 * moves on every commit of any other connection (another process, migrate-data, the CLI;
 * https://sqlite.org/pragma.html#pragma_data_version). The names are kept while both are unchanged.
 */
import type Database from "better-sqlite3";
import type { StatementCache } from "./sqlite-connection.js";

const WATCH = `
CREATE TEMP TABLE IF NOT EXISTS feed_name_changes (changes INTEGER NOT NULL);
INSERT INTO temp.feed_name_changes (changes) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM temp.feed_name_changes);
CREATE TEMP TRIGGER IF NOT EXISTS feed_added AFTER INSERT ON main.feeds
  BEGIN UPDATE feed_name_changes SET changes = changes + 1; END;
CREATE TEMP TRIGGER IF NOT EXISTS feed_removed AFTER DELETE ON main.feeds
  BEGIN UPDATE feed_name_changes SET changes = changes + 1; END;
CREATE TEMP TRIGGER IF NOT EXISTS feed_renamed AFTER UPDATE OF name ON main.feeds
  WHEN old.name IS NOT new.name BEGIN UPDATE feed_name_changes SET changes = changes + 1; END;
`;

const watched = new WeakSet<Database.Database>();

/**
 * A value that changes whenever a feed may have been added, renamed or removed since it was
 * read, or null while this connection is inside a transaction (its own change, counted but not
 * yet committed, would let another connection read the old names under the new count).
 */
export function feedNamesVersion(db: Database.Database, stmts: StatementCache): string | null {
  if (db.inTransaction) return null;
  if (!watched.has(db)) {
    db.exec(WATCH);
    watched.add(db);
  }
  const { changes, others } = stmts
    .get(`SELECT (SELECT changes FROM temp.feed_name_changes) AS changes,
      (SELECT data_version FROM pragma_data_version) AS others`)
    .get() as { changes: number; others: number };
  return `${changes}.${others}`;
}

/**
 * A read's answer as last read (the feed names; the pool's catalog lists), with the version it was
 * read at: `read` runs again when the version differs, or when there is none. The version is taken
 * before the read starts, so a change made after it moves the version the next call compares,
 * whenever the read's snapshot began.
 */
export class KeptRead<T> {
  #kept: { version: string; answer: T } | null = null;

  get(version: string | null, read: () => T): T {
    if (version !== null && this.#kept?.version === version) return this.#kept.answer;
    const answer = read();
    this.#kept = version === null ? null : { version, answer };
    return answer;
  }

  /** Forgets the answer (a read that failed must not be kept). */
  forget(answer: T): void {
    if (this.#kept?.answer === answer) this.#kept = null;
  }
}
