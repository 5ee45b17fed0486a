/**
 * Upkeep of the FTS5 index. Each write transaction adds index segments that FTS5 merges only
 * gradually (automerge); after a bulk load of many transactions the index is left in many
 * segments, and every search then reads and merges one doclist per segment. 'optimize' merges them
 * all into one (https://sqlite.org/fts5.html#the_optimize_command), so a search reads one doclist
 * per term (figures in bench/NOTES.md).
 */
import type Database from "better-sqlite3";

/** Merges the full-text index into a single segment (one write transaction rewriting the whole index). */
export function optimizeSearchIndex(db: Database.Database): void {
  db.prepare("INSERT INTO posts_fts (posts_fts) VALUES ('optimize')").run();
}

/** How many segments the full-text index is spread over (1 after `optimizeSearchIndex`, 0 when empty). */
export function searchIndexSegments(db: Database.Database): number {
  // The %_idx shadow table holds one row per leaf page per segment (https://sqlite.org/fts5.html#the_idx_table).
  return (db.prepare("SELECT count(DISTINCT segid) AS n FROM posts_fts_idx").get() as { n: number }).n;
}
