/**
 * Schema version 17: the full-text index gets a prefix index of 3 characters (`prefix = '3'`,
 * https://sqlite.org/fts5.html#prefix_indexes), so that a search operator `the*` (spec §4: at
 * least 3 characters before the star) reads one posting list instead of merging the posting lists
 * of every word that begins with `the` on each read, which cost seconds on a million posts
 * (bench/NOTES.md, "Search operators"). Longer prefixes are still merged, from fewer and shorter
 * lists. FTS5 cannot add a prefix index to an existing table, so the table is created anew from
 * its own declaration with the option added,
 * and every post re-indexed by its date key; databases that pass schema 14 get the option there.
 * The rows written are today's (fts5IndexRow), so a table without schema 28's columns is
 * declared as schema 28 does.
 */
import type Database from "better-sqlite3";
import type { MigrationProgress } from "../migration-progress.js";
import { FTS5_COLUMNS } from "./fts5-index-row.js";
import { fillIndexByKey, POSTS_FTS_DECLARATION } from "./sqlite-date-key-migration.js";

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
  const current = row.sql.includes(FTS5_COLUMNS) ? declaration : POSTS_FTS_DECLARATION;
  db.exec(`DROP TABLE posts_fts; ${current}`);
  // Rows are keyed by each post's date key (schema 14, sqlite-date-key-migration.ts).
  fillIndexByKey(db, progress);
}
