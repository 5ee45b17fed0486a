/**
 * Schema version 28: posts_fts and the clicked posts' index get the title_words column
 * (fts5-index-row.ts), so that `title:w` reads a posting list of the titles that hold w, not w's
 * whole list with every body position (bench/NOTES.md, "SQLite prefixes and `title:` at limit
 * 1000"). FTS5 cannot add a column to a table, so both are declared anew and every post indexed
 * again from its stored text, by ascending key, reporting progress (as schema 14 and 23 build
 * them). A re-run (a database put back to an older version) builds them afresh the same way. The
 * posts by feed's index keeps its columns (fts5-feed-index.ts).
 */
import type Database from "better-sqlite3";
import type { MigrationProgress } from "../migration-progress.js";
import { buildClickedIndex } from "./sqlite-clicked-index.js";
import { fillIndexByKey, POSTS_FTS_DECLARATION } from "./sqlite-date-key-migration.js";

export function addTitleWords(db: Database.Database, progress: MigrationProgress): void {
  db.exec(`DROP TABLE IF EXISTS posts_fts; ${POSTS_FTS_DECLARATION}`);
  fillIndexByKey(db, progress, "indexing posts with their title words (schema 28)");
  // Declared as posts_fts now is, from its declaration.
  buildClickedIndex(db, progress);
}
