/**
 * How many posts match a search, up to a cap (the search page's "1,234 posts match" and "more than
 * 10,000"). The count stops at `cap + 1` inside the subquery, so FTS5 hands over that many hits at
 * most (the language filter is part of the MATCH): never an unbounded count of a common word's
 * doclist.
 */
import type { SearchQuery } from "../../search/search-query.js";
import type { StatementCache } from "./sqlite-connection.js";
import { searchMatch } from "./sqlite-search-queries.js";

/**
 * @example
 * countSearchMatches(stmts, { query: parseSearchQuery("rust"), languageIds: null, cap: 10_000 }); // 0..10_001
 */
export function countSearchMatches(
  stmts: StatementCache,
  args: { query: SearchQuery; languageIds: readonly number[] | null; cap: number },
): number {
  const match = searchMatch(args.query, args.languageIds);
  if (match === null) return 0;
  return stmts
    .get("SELECT count(*) FROM (SELECT rowid FROM posts_fts WHERE posts_fts MATCH ? LIMIT ?)")
    .pluck()
    .get(match, args.cap + 1) as number;
}
