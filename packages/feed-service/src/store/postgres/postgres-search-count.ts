/**
 * How many posts match a search, up to a cap (the search page's "1,234 posts match" and "more than
 * 10,000"). The count stops at `cap + 1` inside the subquery: the matches GIN hands over are read
 * (and a phrase checked) only until that many are found, never an unbounded count of a common
 * word. `OFFSET 0` keeps the matching a plan of its own, the bitmap scan of the search index, as
 * in rankedPage (postgres-search-queries.ts).
 */
import type { SearchQuery } from "../../search/search-query.js";
import { rows, type Sql } from "./postgres-connection.js";
import { condition } from "./postgres-search-plan.js";
import { searchMatch } from "./postgres-search-queries.js";

/**
 * @example
 * await countSearchMatches(sql, { query: parseSearchQuery("rust"), languageIds: null, cap: 10_000 }); // 0..10_001
 */
export async function countSearchMatches(
  sql: Sql,
  args: { query: SearchQuery; languageIds: readonly number[] | null; cap: number },
): Promise<number> {
  const match = searchMatch(args.query, args.languageIds);
  if (match === null) return 0;
  const where = condition(match, null, 2);
  const [row] = await rows<{ n: number }>(
    sql,
    `SELECT count(*)::int AS n FROM (SELECT p.id FROM posts p WHERE ${where.sql} OFFSET 0 LIMIT $1) m`,
    [args.cap + 1, ...where.params],
  );
  return row?.n ?? 0;
}
