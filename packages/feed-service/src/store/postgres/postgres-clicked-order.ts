/**
 * The clicked posts in clicks order (most clicked first, ties by id descending: spec §4), of
 * every language through `clicked_posts_by_clicks_then_id` (clicks, id; its rows' language and
 * counted words beside each key since migration 50, postgres-counted-clicks.ts), of some languages
 * through `clicked_posts_by_language` (language_id, clicks, id; migration 33,
 * postgres-clicked-languages.ts) or of some feeds through `clicked_posts_by_feed` (feed_id,
 * clicks, id; migration 34, postgres-clicked-feeds.ts): each language's or feed's range of those
 * indexes is in the order already, so a search in a language or feed reads its own clicked posts
 * only, never the others' to drop them.
 */
import { rows, type Sql } from "./postgres-connection.js";

/**
 * Whether a walk of `languages` (`share`: the share of the posts they hold) reads their own
 * clicked posts, one descent of the language index each, rather than every clicked post in order
 * while dropping the others. For a stretch of n posts of those languages the first reads at most
 * languages × n entries, the second about n / share: the languages' own walk costs less when
 * languages × share ≤ 1, always for one language. The same holds of feeds (walkByFeed).
 */
export function walkByLanguage(languages: readonly number[], share: number): boolean {
  return languages.length * share <= 1;
}

/** Whether a walk of `feeds` (`share`: the share of the posts they hold) reads their own clicked posts (walkByLanguage's rule). */
export function walkByFeed(feeds: readonly number[], share: number): boolean {
  return walkByLanguage(feeds, share);
}

/** A range of clicked posts read by its own index: the column and an int[] placeholder of its values. */
export interface ClickedRange {
  column: "language_id" | "feed_id";
  ids: string;
}

/** The share of the posts that `languages` hold, from their totals (postgres-language-totals.ts). */
export async function languagesShare(sql: Sql, languages: readonly number[]): Promise<number> {
  const [row] = await rows<{ share: number }>(
    sql,
    `SELECT (SELECT coalesce(sum(posts), 0) FROM language_totals WHERE language_id = ANY($1::int[]))::float8
      / greatest((SELECT reltuples FROM pg_class WHERE oid = 'posts'::regclass), 1)::float8 AS share`,
    [languages],
  );
  return Math.min(1, row!.share);
}

/**
 * SQL of the clicked posts (`id`, `clicks`) after the key (`clicks`, `id`) in clicks order, at
 * most `limit` of them, in that order; `within` the languages or feeds whose own ranges are read,
 * or null for every clicked post. Each argument is a placeholder (`$n`) of the caller's statement.
 */
export function clickedAfter(
  key: { clicks: string; id: string },
  limit: string,
  within: ClickedRange | null,
): string {
  if (within === null) {
    return `SELECT k.id, k.clicks FROM clicked_posts k WHERE (k.clicks, k.id) < (${key.clicks}::int, ${key.id}::int)
      ORDER BY k.clicks DESC, k.id DESC LIMIT ${limit}`;
  }
  // One descent of the index per language or feed, each read in order up to the limit, then
  // merged: few of them (walkByLanguage, walkByFeed).
  return `SELECT k.id, k.clicks FROM unnest(${within.ids}::int[]) AS l(id) CROSS JOIN LATERAL (
      SELECT c.id, c.clicks FROM clicked_posts c WHERE c.${within.column} = l.id
        AND (c.clicks, c.id) < (${key.clicks}::int, ${key.id}::int)
        ORDER BY c.clicks DESC, c.id DESC LIMIT ${limit}) k
    ORDER BY k.clicks DESC, k.id DESC LIMIT ${limit}`;
}
