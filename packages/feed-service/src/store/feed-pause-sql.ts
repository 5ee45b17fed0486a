/**
 * What a pause (admin store, `feed_pauses`) means to ingest, in SQL both dialects share: a paused
 * feed is handed to no ingest pass, due or `--all`, and a refresh that was already running when
 * the feed was paused leaves its next check where the pause put it.
 */

/** A condition on `feeds f`: the feed is not paused. */
export const NOT_PAUSED = "NOT EXISTS (SELECT 1 FROM feed_pauses p WHERE p.feed_id = f.id)";

/**
 * The `SET` item of a refresh's `UPDATE feeds` for one column: `next_fetch_at` keeps its value
 * while the feed is paused; every other column is set as given.
 *
 * @example
 * feedColumnSet("etag", "?"); // "etag = ?"
 */
export function feedColumnSet(column: string, placeholder: string): string {
  if (column !== "next_fetch_at") return `${column} = ${placeholder}`;
  return `next_fetch_at = CASE WHEN EXISTS (SELECT 1 FROM feed_pauses p WHERE p.feed_id = feeds.id) THEN next_fetch_at ELSE ${placeholder} END`;
}
