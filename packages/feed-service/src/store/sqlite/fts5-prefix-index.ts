/**
 * Schema version 17: the full-text index gets a prefix index of 3 characters (`prefix = '3'`,
 * https://sqlite.org/fts5.html#prefix_indexes), so that a search operator `the*` (spec §4: at
 * least 3 characters before the star) reads one posting list instead of merging the posting lists
 * of every word that begins with `the` on each read, which cost seconds on a million posts
 * (bench/NOTES.md, "Search operators"). Longer prefixes are still merged, from fewer and shorter
 * lists. FTS5 cannot add a prefix index to an existing table, so the table is created anew from
 * its own declaration with the option added, and every post re-indexed in batches by id.
 */
import type Database from "better-sqlite3";
import type { MigrationProgress } from "../migration-progress.js";
import { FTS5_INSERT, fts5IndexRow } from "./fts5-index-row.js";

const BATCH = 2_000;
const STEP = "adding a prefix index to the search index (schema 17)";

interface PostText {
  id: number;
  title: string;
  excerpt: string;
  content: string;
  feed_name: string;
}

/** The table's declaration with `prefix = '3'` added (the declaration itself when it has one). */
export function withPrefixIndex(declaration: string): string {
  if (/\bprefix\s*=/iu.test(declaration)) return declaration;
  return declaration.replace(/USING\s+fts5\s*\(/iu, "$& prefix = '3', ");
}

export function addPrefixIndex(db: Database.Database, progress: MigrationProgress): void {
  const row = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'posts_fts'").get() as
    | { sql: string }
    | undefined;
  if (row === undefined) throw new Error("schema 17 needs the full-text index of schema 9");
  const declaration = withPrefixIndex(row.sql);
  if (declaration === row.sql) return;
  db.exec(`DROP TABLE posts_fts; ${declaration}`);
  const total = (db.prepare("SELECT count(*) AS n FROM posts").get() as { n: number }).n;
  const batch = db.prepare(`SELECT p.id, p.title, p.excerpt, p.content, f.name AS feed_name
    FROM posts p JOIN feeds f ON f.id = p.feed_id WHERE p.id > ? ORDER BY p.id LIMIT ${BATCH}`);
  const insert = db.prepare(FTS5_INSERT);
  let done = 0;
  let after = 0;
  progress(STEP, 0, total);
  for (;;) {
    const rows = batch.all(after) as PostText[];
    if (rows.length === 0) break;
    for (const r of rows) insert.run(...fts5IndexRow(r.id, r.title, r.excerpt, r.content, r.feed_name));
    after = rows[rows.length - 1]!.id;
    done += rows.length;
    progress(STEP, done, total);
  }
  // One segment, as the demo loader leaves a new index (sqlite-search-maintenance.ts).
  if (total > 0) db.exec("INSERT INTO posts_fts (posts_fts) VALUES ('optimize')");
}
