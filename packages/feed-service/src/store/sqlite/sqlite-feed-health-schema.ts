/**
 * Feed health on SQLite: when the feed last refreshed well, and its last failure's time, stage
 * and stable code next to the message already kept in `last_error` (`error_count` already counts
 * the failures in a row). Feeds that failed before this migration keep their message; its
 * `<stage>: ` prefix, which older versions wrote, becomes the stage.
 */
import type Database from "better-sqlite3";

export function addFeedHealthColumns(db: Database.Database): void {
  db.exec(`
    ALTER TABLE feeds ADD COLUMN last_success_at INTEGER;
    ALTER TABLE feeds ADD COLUMN last_error_at INTEGER;
    ALTER TABLE feeds ADD COLUMN last_error_stage TEXT;
    ALTER TABLE feeds ADD COLUMN last_error_code TEXT;
    UPDATE feeds SET last_success_at = last_fetched_at WHERE error_count = 0;
    UPDATE feeds SET last_error_at = last_fetched_at,
        last_error_stage = substr(last_error, 1, instr(last_error, ':') - 1),
        last_error = substr(last_error, instr(last_error, ':') + 2)
      WHERE last_error IS NOT NULL
        AND substr(last_error, 1, instr(last_error, ':') - 1) IN ('fetch', 'parse', 'store');
  `);
}
