/**
 * The newest full-text hits, exactly, without reading every hit of a common word. The index's
 * rowid is each post's date key (sqlite-date-keys.ts), which follows (post_date, id) whatever
 * order posts were stored in, so FTS5's own descending rowid walk is the newest-first order and
 * stops after `offset + limit` hits (Lucene's index sorting with early termination, and Twitter's
 * Earlybird, are the models: design.md). No date is read and no hit is sorted; the language
 * filter is part of the MATCH (fts5-index-row.ts).
 */
import type { StatementCache } from "./sqlite-connection.js";

export interface HitFilter {
  /** The FTS5 MATCH expression, with the language clause when there is one. */
  match: string;
  /** JSON array of language ids, or null for every language (for reads outside the index). */
  languages: string | null;
  /**
   * The date keys the hits may have (index rowids, inclusive), when a date range bounds them
   * (`after:`/`before:`, fts5-operators.ts); absent for every key.
   */
  keys?: { low: number; high: number };
  /**
   * A MATCH of the same posts as `match` with fewer posting lists (fts5-implied-terms.ts), for
   * the reads of every hit; `match` itself is what scores them.
   */
  find?: string;
}

/**
 * The keys of hits `offset` to `offset + limit` in newest-first order (postDate desc, id desc).
 *
 * @example
 * newestHitKeys(stmts, '"rust"', 0, 20); // [date key, ...]
 */
export function newestHitKeys(stmts: StatementCache, match: string, offset: number, limit: number): number[] {
  return stmts
    .get("SELECT rowid FROM posts_fts WHERE posts_fts MATCH ? ORDER BY rowid DESC LIMIT ? OFFSET ?")
    .pluck()
    .all(match, limit, offset) as number[];
}

/**
 * The post ids of some date keys: those in `known` (ids a walk read with their keys) as given, the
 * others read by key.
 */
export function idsOfKeys(
  stmts: StatementCache,
  keys: readonly number[],
  known: ReadonlyMap<number, number> = new Map(),
): Map<number, number> {
  const ids = new Map(known);
  const unknown = keys.filter((key) => !known.has(key));
  if (unknown.length === 0) return ids;
  const rows = stmts
    .get("SELECT date_key, id FROM posts WHERE date_key IN (SELECT value FROM json_each(?))")
    .raw()
    .all(JSON.stringify(unknown)) as Array<[number, number]>;
  for (const [key, id] of rows) ids.set(key, id);
  return ids;
}

/**
 * How many hits hold keys from `from` up (the newest posts), counted up to `cap`; null when no
 * post matches at all. Read newest first and stopped at the first hit below `from`: FTS5 bounds
 * neither end of an AND's search for its first match by the rowid range (sqlite3Fts5ExprFirst
 * tests the whole expression from the doclists' start before skipping to the range), so an
 * ascending count over the newest keys walks every older hit of the combination first, and all of
 * its doclists when nothing matches (a common word in a language that never uses it); newest
 * first the walk ends on the newest match, and none found proves the page empty without the
 * ranking's walk of the same doclists after.
 */
export function newestHitsInSample(
  stmts: StatementCache,
  match: string,
  from: number,
  cap: number,
): number | null {
  const keys = stmts
    .get("SELECT rowid FROM posts_fts WHERE posts_fts MATCH ? ORDER BY rowid DESC LIMIT ?")
    .pluck()
    .iterate(match, cap + 1) as IterableIterator<number>;
  let any = false;
  let inSample = 0;
  for (const key of keys) {
    any = true;
    if (key < from || inSample >= cap) break;
    inSample++;
  }
  return any ? inSample : null;
}
