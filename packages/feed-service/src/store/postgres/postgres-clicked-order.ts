/**
 * The clicked posts in clicks order (most clicked first, ties by id descending: spec §4), of
 * every language through `clicked_posts_by_clicks_then_id` (clicks, id), or of some languages
 * through `clicked_posts_by_language` (language_id, clicks, id; migration 33,
 * postgres-clicked-languages.ts): each language's range of that index is in the order already,
 * so a search in a language reads its own clicked posts only, never the others' to drop them.
 */
import { rows, type Sql } from "./postgres-connection.js";

/**
 * Whether a walk of `languages` (`share`: the share of the posts they hold) reads their own
 * clicked posts, one descent of the language index each, rather than every clicked post in order
 * while dropping the others. For a stretch of n posts of those languages the first reads at most
 * languages × n entries, the second about n / share: the languages' own walk costs less when
 * languages × share ≤ 1, always for one language.
 */
export function walkByLanguage(languages: readonly number[], share: number): boolean {
  return languages.length * share <= 1;
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
 * most `limit` of them, in that order; `languages` an int[] parameter or null for every
 * language. Each argument is a placeholder (`$n`) of the caller's statement.
 */
export function clickedAfter(
  key: { clicks: string; id: string },
  limit: string,
  languages: string | null,
): string {
  if (languages === null) {
    return `SELECT k.id, k.clicks FROM clicked_posts k WHERE (k.clicks, k.id) < (${key.clicks}::int, ${key.id}::int)
      ORDER BY k.clicks DESC, k.id DESC LIMIT ${limit}`;
  }
  // One descent of the language index per language, each read in order up to the limit, then
  // merged: the languages of a page are few (a search names them, or the service's list).
  return `SELECT k.id, k.clicks FROM unnest(${languages}::int[]) AS l(id) CROSS JOIN LATERAL (
      SELECT c.id, c.clicks FROM clicked_posts c WHERE c.language_id = l.id
        AND (c.clicks, c.id) < (${key.clicks}::int, ${key.id}::int)
        ORDER BY c.clicks DESC, c.id DESC LIMIT ${limit}) k
    ORDER BY k.clicks DESC, k.id DESC LIMIT ${limit}`;
}
