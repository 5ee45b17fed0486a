/**
 * A query thread's warm-up of the indexes that searches read whatever their words
 * (sqlite-read-worker.ts): every leaf read once into the connection's page cache. Spec §4
 * Latency allows general warm-ups only; these are whole indexes, no particular word's or post's.
 */
import { CLICKED_POSTS_COUNT } from "./sqlite-clicked-index.js";
import type { StatementCache } from "./sqlite-connection.js";

/**
 * The indexes, each as the statement that walks it leaf by leaf:
 * - posts_sort_keys holds, by post id, every column a filter reads but the date key: the hits a
 *   search checks against its filters (`feed:` with a language, dates the index does not answer),
 *   the unclicked tail of a page by clicks and the feeds' lists are each a seek in it per post,
 *   spread over the ids. Walked first: fewer searches read it than the other two, and a search's
 *   own pages push the least recently read out of the cache first;
 * - posts_by_date_key turns hits' keys into post ids (a page's hits, its tie groups, the unclicked
 *   hits of a page by clicks, ordered by id): a seek per hit, over the whole index, since hits
 *   are spread over the dates;
 * - posts_clicked_by_key holds the clicked posts by clicks, which every search by clicks walks
 *   from its top or seeks per clicked hit.
 * Together a few MB per 100,000 posts, within a reader's cache at a million (sqlite-connection.ts).
 */
export const SEARCH_INDEX_WALKS = [
  "SELECT count(*) FROM posts INDEXED BY posts_sort_keys WHERE id IS NOT NULL",
  "SELECT count(*) FROM posts INDEXED BY posts_by_date_key WHERE date_key IS NOT NULL",
  CLICKED_POSTS_COUNT,
] as const;

/** Reads the search indexes through (SEARCH_INDEX_WALKS); returns how many entries they hold. */
export function readSearchIndexes(stmts: StatementCache): number {
  let entries = 0;
  for (const walk of SEARCH_INDEX_WALKS) entries += stmts.get(walk).pluck().get() as number;
  return entries;
}
