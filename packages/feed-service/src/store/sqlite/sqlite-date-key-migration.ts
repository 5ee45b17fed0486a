/**
 * Schema version 14: every post gets its date key (sqlite-date-keys.ts), and the full-text index
 * is built anew keyed by it, with the language column (fts5-index-row.ts). FTS5 cannot renumber
 * or add a column in place, so every post is indexed again, in batches of keys (better-sqlite3
 * cannot write while a read is still stepping), oldest first (FTS5 appends rising rowids cheaply),
 * reporting progress. The keys of a second are spread over its slots, so later posts fit between.
 * The clicked posts' index for a search by clicks gains the key (sqlite-clicked-hits.ts).
 */
import type Database from "better-sqlite3";
import type { MigrationProgress } from "../migration-progress.js";
import { FTS5_COLUMNS, FTS5_INSERT, FTS5_TOKENIZER, fts5IndexRow } from "./fts5-index-row.js";
import { SLOTS, secondKeySql } from "./sqlite-date-keys.js";

const BATCH = 2_000;
const STEP = "indexing posts in date order (schema 14)";

interface PostText {
  key: number;
  feed_id: number;
  language_id: number;
  title: string;
  excerpt: string;
  content: string;
  feed_name: string;
}

/** Numbers every post (keys spread evenly over each second's slots) and indexes it under its key. */
export function indexByDateKey(db: Database.Database, progress: MigrationProgress): void {
  const columns = db.pragma("table_info(posts)") as Array<{ name: string }>;
  // Run again (a test re-running earlier migrations), the column is there: the keys are renumbered.
  if (!columns.some((c) => c.name === "date_key")) db.exec("ALTER TABLE posts ADD COLUMN date_key INTEGER");
  db.exec(`DROP INDEX IF EXISTS posts_by_date_key;
    UPDATE posts SET date_key = s.k FROM (
      SELECT id, sk + (row_number() OVER w) * (${SLOTS} / (count(*) OVER (PARTITION BY sk) + 1)) AS k
      FROM (SELECT id, post_date, ${secondKeySql("post_date")} AS sk FROM posts)
      WINDOW w AS (PARTITION BY sk ORDER BY post_date, id)
    ) AS s WHERE posts.id = s.id;
    CREATE UNIQUE INDEX posts_by_date_key ON posts (date_key);
    -- The clicked posts in the order of a search by clicks, with the key the index knows them by.
    DROP INDEX IF EXISTS posts_clicked_by_id;
    DROP INDEX IF EXISTS posts_clicked_by_key;
    CREATE INDEX posts_clicked_by_key ON posts (clicks, id, language_id, date_key) WHERE clicks > 0;
    DROP TABLE IF EXISTS posts_fts;
    ${POSTS_FTS_DECLARATION};`);
  fillIndexByKey(db, progress);
}

/**
 * posts_fts's declaration: the columns of schema 28 (fts5-index-row.ts) and schema 17's prefix
 * index (fts5-prefix-index.ts), which a database passing schema 14 gets there in the same pass.
 */
export const POSTS_FTS_DECLARATION = `CREATE VIRTUAL TABLE posts_fts USING fts5 (
      ${FTS5_COLUMNS},
      prefix = '3', content = '', contentless_delete = 1,
      tokenize = '${FTS5_TOKENIZER}'
    )`;

/** Writes the index row of every post, by ascending key (the index must be empty). */
export function fillIndexByKey(db: Database.Database, progress: MigrationProgress, step = STEP): void {
  const insert = db.prepare(FTS5_INSERT);
  const total = forEachIndexRowByKey(db, step, progress, (row) => insert.run(...row));
  // One segment, as the demo loader leaves a new index (sqlite-search-maintenance.ts).
  if (total > 0) db.exec("INSERT INTO posts_fts (posts_fts) VALUES ('optimize')");
}

/**
 * Hands every keyed post's index row (fts5IndexRow) and feed to `visit`, by ascending key, in
 * batches, reporting progress under `step`; returns how many posts it visited. For the index
 * builds of schema 14, 17 and 24 alike.
 */
export function forEachIndexRowByKey(
  db: Database.Database,
  step: string,
  progress: MigrationProgress,
  visit: (row: ReturnType<typeof fts5IndexRow>, feedId: number) => void,
): number {
  const total = db.prepare("SELECT count(*) FROM posts WHERE date_key IS NOT NULL").pluck().get() as number;
  const batch = db.prepare(`SELECT p.date_key AS key, p.feed_id, p.language_id, p.title, p.excerpt,
      p.content, f.name AS feed_name
    FROM posts p JOIN feeds f ON f.id = p.feed_id WHERE p.date_key > ? ORDER BY p.date_key LIMIT ${BATCH}`);
  let done = 0;
  let after = Number.MIN_SAFE_INTEGER;
  progress(step, 0, total);
  for (;;) {
    const rows = batch.all(after) as PostText[];
    if (rows.length === 0) break;
    for (const r of rows) {
      visit(fts5IndexRow(r.key, r.title, r.excerpt, r.content, r.feed_name, r.language_id), r.feed_id);
    }
    after = rows[rows.length - 1]!.key;
    done += rows.length;
    progress(step, done, total);
  }
  return done;
}
