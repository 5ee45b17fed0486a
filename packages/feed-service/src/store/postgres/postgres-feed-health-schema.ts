/**
 * Feed health on PostgreSQL: the same columns as on SQLite (`../sqlite/sqlite-feed-health-schema.ts`):
 * when the feed last refreshed well, and its last failure's time, stage and stable code next to the
 * message in `last_error`. A `<stage>: ` prefix that older versions wrote becomes the stage.
 */
import type { Sql } from "./postgres-connection.js";

export async function addFeedHealthColumns(sql: Sql): Promise<void> {
  await sql.query(`
    ALTER TABLE feeds ADD COLUMN last_success_at BIGINT, ADD COLUMN last_error_at BIGINT,
      ADD COLUMN last_error_stage TEXT, ADD COLUMN last_error_code TEXT;
    UPDATE feeds SET last_success_at = last_fetched_at WHERE error_count = 0;
    UPDATE feeds SET last_error_at = last_fetched_at, last_error_stage = split_part(last_error, ': ', 1),
        last_error = substr(last_error, length(split_part(last_error, ': ', 1)) + 3)
      WHERE last_error IS NOT NULL AND split_part(last_error, ': ', 1) IN ('fetch', 'parse', 'store');
  `);
}
