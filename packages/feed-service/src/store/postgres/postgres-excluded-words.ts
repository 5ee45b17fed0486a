/**
 * Plain-word searches that exclude words, kept exact while GIN moves its pending list into the
 * entry tree (bench/NOTES.md, pgflake34 and pgexcl34). GIN's `!word` is then a superset: a post's
 * lexemes reach the tree one key at a time, so a scan meanwhile may find its `k3` and not yet its
 * `the` and hand it over for `k3 & !the`. Two exact ways to leave such a post out:
 *
 * - check: the query on each candidate's `search_vector` (Match.verify): one read of the vector
 *   per candidate, out of TOAST for a long post;
 * - subtract: the posts among the positive matches that hold an excluded word, found through the
 *   same index positively and left out by id (Match.subtract). A positive lookup stays exact while
 *   the list moves: a scan reads the pending list before the entry tree, and the cleanup deletes
 *   pending pages only once their entries are in the tree (ginInsertCleanup in
 *   src/backend/access/gin/ginfast.c; bench/gin-pending-exclusion.mjs shows it).
 *
 * The counts choose: subtracting reads each post holding an excluded word among the positive
 * matches (an index entry and its heap row), checking reads each candidate's vector, which costs
 * EXCLUDED_CHECK_POSTS such posts (postgres-plan-costs.ts).
 */
import type { SearchQuery } from "../../search/search-query.js";
import { termPhrase } from "../../search/term-phrase.js";
import { rows, type Sql } from "./postgres-connection.js";
import { pendingEmptyNow, pendingGate } from "./postgres-gin-pending.js";
import { toSearchIndexTsquery } from "./postgres-phrase-pairs.js";
import {
  EXCLUDED_CHECK_POSTS,
  MAX_SAMPLE_POSTS,
  MIN_SAMPLE_MATCHES,
  SAMPLE_POSTS,
} from "./postgres-plan-costs.js";
import { languagesFacet, SEARCH_EXPRESSION, sinceDayFacet } from "./postgres-search-facets.js";
import { expectation, type Match, postsPerDay } from "./postgres-search-plan.js";
import { toTsquery } from "./postgres-text-search.js";

/**
 * The search index's query for the posts to subtract from `query`'s matches: its positive
 * clauses AND any of its excluded words, in its languages. Null when the query excludes no word,
 * or when its candidates are checked on their vectors anyway (a phrase GIN cannot settle, an
 * excluded phrase: searchMatch's verify), so that subtracting would save nothing.
 */
export function excludedPostsQuery(
  query: SearchQuery,
  languageIds: readonly number[] | null,
): { index: string; words: string } | null {
  if (query.excluded.length === 0) return null;
  if (query.excluded.some((t) => t.prefix === true || t.titleOnly === true || termPhrase(t).length !== 1)) {
    return null;
  }
  const holding = { clauses: [...query.clauses, query.excluded], excluded: [] };
  const indexed = toSearchIndexTsquery(holding);
  const words = toTsquery(holding);
  const positive = toSearchIndexTsquery({ clauses: query.clauses, excluded: [] });
  if (indexed === null || words === null || positive === null || !indexed.exact || !positive.exact)
    return null;
  return {
    index: languageIds ? `(${indexed.tsquery}) & ${languagesFacet(languageIds)}` : indexed.tsquery,
    words,
  };
}

/** The statement of newestCounts: it steers the choice, never an answer. */
export const NEWEST_COUNTS = `SELECT (SELECT count(*) FROM posts p WHERE ${SEARCH_EXPRESSION} @@ $1::tsquery)::int AS candidates,
  (SELECT count(*) FROM posts p WHERE ${SEARCH_EXPRESSION} @@ $2::tsquery)::int AS holding`;

/**
 * How many posts GIN hands over for `match` and how many hold an excluded word among the positive
 * matches, in the newest days holding SAMPLE_POSTS posts, where the tiers start: counted
 * through the index alone (no post's vector, no heap row where the page is all-visible). Null
 * when the newest day alone is too crowded to count cheaply, or the sample too small to say.
 * Words are far from independent ('the' and 'new'), so the statistics alone mistake the ratio.
 */
async function newestCounts(
  sql: Sql,
  match: Match,
  subtract: string,
): Promise<{ candidates: number; holding: number } | null> {
  const perDay = await postsPerDay(sql, null);
  let posts = 0;
  let days = 0;
  while (days < perDay.length && posts < SAMPLE_POSTS) posts += perDay[days++]!.n;
  if (days === 0 || posts > MAX_SAMPLE_POSTS) return null;
  const facet = sinceDayFacet(perDay[days - 1]!.day, perDay[0]!.day);
  const [row] = await rows<{ candidates: number; holding: number }>(sql, NEWEST_COUNTS, [
    `(${match.index}) & ${facet}`,
    `(${subtract}) & ${facet}`,
  ]);
  return row!.candidates + row!.holding >= MIN_SAMPLE_MATCHES ? row! : null;
}

/**
 * `match` (searchMatch's, which checks every candidate's vector when the query excludes a word)
 * gated, when GIN settles the query whole once its pending list is empty (postgres-gin-pending.ts):
 * each statement then skips the check while the list is empty after its snapshot. When the list
 * is not empty now, also with its excluded words' posts subtracted instead of the check, when
 * fewer of those are expected than EXCLUDED_CHECK_POSTS times the candidates (counted among the
 * newest posts, else the statistics' estimate); else `match` as it is.
 */
export async function settleExclusions(
  sql: Sql,
  match: Match,
  query: SearchQuery,
  languageIds: readonly number[] | null,
): Promise<Match> {
  if (query.excluded.length === 0) return match;
  // The check is there for the excluded words alone when GIN answers the rest exactly.
  const gate = toSearchIndexTsquery(query)?.exact === true ? await pendingGate(sql) : null;
  const gated = gate === null ? match : { ...match, gate };
  // An empty list now most likely stays empty for the statements that follow (no writes, or
  // writes far apart): the counts that choose a fallback would be spent for nothing.
  if (gate !== null && (await pendingEmptyNow(sql, gate))) return gated;
  const excluded = excludedPostsQuery(query, languageIds);
  if (excluded === null) return gated;
  const counted = await newestCounts(sql, match, excluded.index);
  const { candidates, holding } = counted ?? {
    candidates: (await expectation(sql, match)).matches,
    holding: (await expectation(sql, { ...match, words: excluded.words })).matches,
  };
  if (holding > EXCLUDED_CHECK_POSTS * Math.max(1, candidates)) return gated;
  return { ...gated, verify: null, subtract: excluded.index };
}
