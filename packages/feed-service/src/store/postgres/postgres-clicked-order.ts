/**
 * The clicked posts in clicks order (most clicked first, ties by id descending: spec §4), of
 * every language through `clicked_posts_by_clicks_then_id` (clicks, id), or of some languages
 * through `clicked_posts_by_language` (language_id, clicks, id; migration 33,
 * postgres-clicked-languages.ts): each language's range of that index is in the order already,
 * so a search in a language reads its own clicked posts only, never the others' to drop them.
 */

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
