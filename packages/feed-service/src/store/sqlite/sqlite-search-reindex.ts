/**
 * Schema version 9: the full-text index holds the search analyzer's tokens (fts5-index-row.ts)
 * instead of unicode61's words, so Chinese, Japanese and Korean are searchable inside runs of
 * characters, and SQLite and PostgreSQL index the very same tokens. FTS5 cannot change the
 * tokenizer of an existing table, so the table is created anew and every post re-indexed, in
 * batches by id (better-sqlite3 cannot write while a read is still stepping), reporting progress.
 */
import type Database from "better-sqlite3";
import type { MigrationProgress } from "../migration-progress.js";
import { FTS5_TOKENIZER, fts5IndexRow } from "./fts5-index-row.js";

const BATCH = 2_000;
const STEP = "re-indexing search text (schema 9)";

interface PostText {
  id: number;
  language_id: number;
  title: string;
  excerpt: string;
  content: string;
  feed_name: string;
}

export function reindexSearchText(db: Database.Database, progress: MigrationProgress): void {
  db.exec(`DROP TABLE IF EXISTS posts_fts;
    CREATE VIRTUAL TABLE posts_fts USING fts5 (
      title, body, feed_name,
      content = '', contentless_delete = 1,
      tokenize = '${FTS5_TOKENIZER}'
    )`);
  const total = (db.prepare("SELECT count(*) AS n FROM posts").get() as { n: number }).n;
  const batch = db.prepare(`SELECT p.id, p.language_id, p.title, p.excerpt, p.content, f.name AS feed_name
    FROM posts p JOIN feeds f ON f.id = p.feed_id WHERE p.id > ? ORDER BY p.id LIMIT ${BATCH}`);
  // The columns of schema 9 (rowid the post id, no language column; schema 14 rebuilds it).
  const insert = db.prepare("INSERT INTO posts_fts (rowid, title, body, feed_name) VALUES (?, ?, ?, ?)");
  let done = 0;
  let after = 0;
  progress(STEP, 0, total);
  for (;;) {
    const rows = batch.all(after) as PostText[];
    if (rows.length === 0) break;
    for (const r of rows) {
      insert.run(
        ...fts5IndexRow(r.id, r.title, r.excerpt, r.content, r.feed_name, r.language_id).slice(0, 4),
      );
    }
    after = rows[rows.length - 1]!.id;
    done += rows.length;
    progress(STEP, done, total);
  }
  // One segment, as the demo loader leaves a new index (sqlite-search-maintenance.ts).
  if (total > 0) db.exec("INSERT INTO posts_fts (posts_fts) VALUES ('optimize')");
}
