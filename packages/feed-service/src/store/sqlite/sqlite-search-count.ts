/**
 * How many posts match a search, up to a cap (the search page's "1,234 posts match" and "more than
 * 10,000"). The count stops at `cap + 1` inside the subquery, so FTS5 hands over that many hits at
 * most (the language filter reads each hit's row through the covering `posts_sort_keys`, as the
 * relevance search does): never an unbounded count of a common word's doclist.
 */
import type { SearchQuery } from "../../search/search-query.js";
import { toFts5Match } from "./fts5-match.js";
import { LANGUAGE_FILTER } from "./sqlite-columns.js";
import type { StatementCache } from "./sqlite-connection.js";

/**
 * @example
 * countSearchMatches(stmts, { query: parseSearchQuery("rust"), languageIds: null, cap: 10_000 }); // 0..10_001
 */
export function countSearchMatches(
  stmts: StatementCache,
  args: { query: SearchQuery; languageIds: readonly number[] | null; cap: number },
): number {
  const match = toFts5Match(args.query);
  if (match === null || args.languageIds?.length === 0) return 0;
  if (args.languageIds === null) {
    return stmts
      .get("SELECT count(*) FROM (SELECT rowid FROM posts_fts WHERE posts_fts MATCH ? LIMIT ?)")
      .pluck()
      .get(match, args.cap + 1) as number;
  }
  return stmts
    .get(`SELECT count(*) FROM (SELECT t.rowid FROM posts_fts t
      CROSS JOIN posts p INDEXED BY posts_sort_keys ON p.id = t.rowid
      WHERE posts_fts MATCH ? AND ${LANGUAGE_FILTER} LIMIT ?)`)
    .pluck()
    .get(match, JSON.stringify(args.languageIds), args.cap + 1) as number;
}
