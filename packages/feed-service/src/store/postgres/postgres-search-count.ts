/**
 * How many posts match a search, up to a cap (the search page's "1,234 posts match" and "more than
 * 10,000"). The count stops at `cap + 1` inside the subquery: the matches GIN hands over are read
 * (and a phrase checked) only until that many are found, never an unbounded count. `OFFSET 0`
 * keeps the matching a plan of its own, the bitmap scan of the search index, as in rankedPage
 * (postgres-search-queries.ts). A bitmap scan still reads a common word's whole posting list
 * before the LIMIT stops it, so the count first tries the tier of the newest days that should
 * hold `cap + 1` matches, as the relevance search does (postgres-search-plan.ts): when the tier
 * holds that many, more than `cap` match in all; when it falls short, all posts are counted.
 */
import type { SearchQuery } from "../../search/search-query.js";
import { rows, type Sql } from "./postgres-connection.js";
import { condition, dayTier, expectation, sampleNewest } from "./postgres-search-plan.js";
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
  const expected = await expectation(sql, match);
  await sampleNewest(sql, match, expected);
  const tier = await dayTier(sql, match, args.cap + 1, expected);
  for (const facet of tier ? [tier, null] : [null]) {
    const where = condition(match, facet, 2);
    const [row] = await rows<{ n: number }>(
      sql,
      `SELECT count(*)::int AS n FROM (SELECT p.id FROM ${where.from} WHERE ${where.sql} OFFSET 0 LIMIT $1) m`,
      [args.cap + 1, ...where.params],
    );
    const n = row?.n ?? 0;
    // A tier past the cap answers: the posts outside it can only add to the count.
    if (facet === null || n > args.cap) return n;
  }
  return 0;
}
