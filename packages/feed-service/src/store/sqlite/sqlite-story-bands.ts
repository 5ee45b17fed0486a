/**
 * Migration 22: the band rows of the text prints (text-fingerprint.ts) kept in the order they are
 * written, and found through an index by day. Schema 18 keyed `story_bands` by (band, post_date,
 * post_id): every new post put its 8 rows at 8 random places of one B-tree spanning all time, so
 * a refresh's commit wrote a page to the log for nearly every band row (a commit writes each page
 * it changed, https://sqlite.org/wal.html). Now the table's key is (post_id, band), so new rows
 * append, and the look-up goes
 * through `story_bands_by_day` (UTC day, band, date): new posts are dated within a few days of
 * now, so their index rows fall on the few pages of those days. A look-up seeks once per day and
 * band of its window (7 x 8) instead of once per band, each seek as cheap as before.
 *
 * The columns stay those of schema 18 (band, post_date, post_id), so every statement that writes
 * or reads them by name works on either layout: schema 18's data step, which runs the writer's
 * statements before this migration, included.
 */
import type Database from "better-sqlite3";
import type { MigrationProgress } from "../migration-progress.js";

const dayMs = 86_400_000;

/**
 * The index's day of a date column, as SQL: integer division, which truncates toward zero, so
 * `bandDays` truncates the same way (day 0 is the two days around the epoch; no date is lost).
 */
export function bandDay(column: string): string {
  return `${column} / ${dayMs}`;
}

/**
 * The days `bandDay` gives the dates from `from` to `to`, in order.
 *
 * @example
 * bandDays(0, 3 * 86_400_000); // -> [0, 1, 2, 3]
 */
export function bandDays(from: number, to: number): number[] {
  const days: number[] = [];
  for (let d = Math.trunc(from / dayMs); d <= Math.trunc(to / dayMs); d++) days.push(d);
  return days;
}

/** Posts whose band rows move in one statement (one progress line each at most). */
const batch = 50_000;

/**
 * Rebuilds `story_bands` keyed by post, with the index by day. Idempotent: a database already
 * keyed so (the re-filing test puts databases back to older versions) is left as it is.
 */
export function storyBandsByDay(db: Database.Database, progress: MigrationProgress): void {
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'story_bands_by_day'").get())
    return;
  db.exec(`CREATE TABLE story_bands_by_post_id (
    band INTEGER NOT NULL,
    post_date INTEGER NOT NULL,
    post_id INTEGER NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
    PRIMARY KEY (post_id, band)
  ) WITHOUT ROWID`);
  const last =
    (db.prepare("SELECT max(post_id) AS id FROM story_bands").get() as { id: number | null }).id ?? 0;
  // In post order through schema 18's index by post, so the new table is written by appending.
  const move = db.prepare(`INSERT OR IGNORE INTO story_bands_by_post_id (band, post_date, post_id)
    SELECT band, post_date, post_id FROM story_bands WHERE post_id > ? AND post_id <= ? ORDER BY post_id`);
  const step = "keying text-print bands by post and day";
  for (let from = 0; from < last; from += batch) {
    move.run(from, from + batch);
    progress(step, Math.min(from + batch, last), last);
  }
  db.exec(`DROP TABLE story_bands;
    ALTER TABLE story_bands_by_post_id RENAME TO story_bands;
    CREATE INDEX story_bands_by_day ON story_bands (${bandDay("post_date")}, band, post_date);`);
}
