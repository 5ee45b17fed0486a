/**
 * A relevance page of one word read from the posts whose title or feed name holds it, when every
 * match is ranked (no more than RANKED_NEWEST match): those posts' scores are above every other
 * match's, so when they fill the page, the page is theirs, and only they are read, not every match
 * (one heap row each: bench/NOTES.md, pgmix31).
 *
 * Why their scores are above: the score (SEARCH_SCORE) is ts_rank over `rank_vector` (the title's
 * and feed name's words, weights A and B) plus a body share under 0.1 / 2. For a query of one
 * word, ts_rank (PostgreSQL's src/backend/utils/adt/tsrank.c, calc_rank_or) is 0 on a vector
 * without it, and at least its heaviest position's weight / (pi^2 / 6) on one with it: 0.25 /
 * 1.645 > 0.15 with the store's weights. So ordering those posts by score orders the top of all.
 */
import { analyzeText } from "../../search/text-analyzer.js";
import { rows, type Sql, translatePostgresError } from "./postgres-connection.js";
import type { FeedName } from "./postgres-feed-names.js";
import { OPERATOR_EXPRESSION } from "./postgres-operator-plan.js";
import { SEARCH_EXPRESSION } from "./postgres-search-facets.js";
import type { Match } from "./postgres-search-plan.js";
import { quoteLexeme, SEARCH_SCORE } from "./postgres-text-search.js";

/** The feed names with the count of changes they are as of (FeedNames.current). */
export interface CurrentFeedNames {
  changes: string | null;
  names: readonly FeedName[];
}

/** The longest title word (bytes) the operators' index holds as a ` ttl ` lexeme (postgres-operator-plan.ts). */
const MAX_TITLE_LEXEME_BYTES = 2_040;

/** The word of a query of one plain word in every language (no prefix, phrase or exclusion), or null. */
export function singleWord(match: Match): string | null {
  if (!match.estimable || match.languageIds !== null) return null;
  return plainWord(match);
}

/** The word of a query of one plain word (no prefix, phrase or exclusion), in any languages, or null. */
export function plainWord(match: Match): string | null {
  if (match.titleImplies !== true) return null;
  const words = match.clauses?.length === 1 && match.clauses[0]!.length === 1 ? match.clauses[0]![0] : null;
  if (words?.length !== 1) return null;
  return Buffer.byteLength(words[0]!) <= MAX_TITLE_LEXEME_BYTES ? words[0]! : null;
}

/**
 * At least as many posts as match `match` (GIN's item pointers for its index query, counted as
 * the bitmap is built, before any row is read: a row version no snapshot sees still counts), or
 * null when the plan reads no bitmap. The count is the executor's own (EXPLAIN ANALYZE of a scan
 * stopped at its first row; the CTE is planned for all its rows, so as the plain query would be);
 * a count(*) would read every match's heap row, which is what this module spares. BUFFERS OFF:
 * PostgreSQL 18's EXPLAIN ANALYZE counts buffers unless told not to, and nothing reads them here.
 */
export async function matchesAtMost(sql: Sql, match: Match): Promise<number | null> {
  try {
    const result = await sql.query(
      `EXPLAIN (ANALYZE, BUFFERS OFF, TIMING OFF, SUMMARY OFF, COSTS OFF, FORMAT JSON)
        WITH m AS MATERIALIZED (SELECT 1 FROM posts p WHERE ${SEARCH_EXPRESSION} @@ $1::tsquery)
        SELECT 1 FROM m LIMIT 1`,
      [match.index],
    );
    const [plan] = result.rows as Array<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }>;
    return bitmapRows(plan!["QUERY PLAN"][0]!.Plan);
  } catch (error) {
    throw translatePostgresError(error);
  }
}

interface PlanNode {
  "Node Type": string;
  "Index Name"?: string;
  "Actual Rows"?: number;
  Plans?: PlanNode[];
}

function bitmapRows(node: PlanNode): number | null {
  if (node["Node Type"] === "Bitmap Index Scan" && node["Index Name"] === "posts_search_words") {
    return node["Actual Rows"] ?? null;
  }
  if (node["Node Type"] === "Bitmap Heap Scan" && node.Plans?.length !== 1) return null;
  for (const child of node.Plans ?? []) {
    const found = bitmapRows(child);
    if (found !== null) return found;
  }
  return null;
}

/** Each word of the feed names with the feeds whose name holds it, as the search vectors hold them (weight B). */
const namedFeeds = new WeakMap<readonly FeedName[], Map<string, number[]>>();

export function feedsNaming(names: readonly FeedName[], word: string): number[] {
  let byWord = namedFeeds.get(names);
  if (!byWord) {
    byWord = new Map();
    for (const { feedId, feedName } of names) {
      for (const w of new Set(analyzeText(feedName))) {
        const feeds = byWord.get(w) ?? [];
        feeds.push(feedId);
        byWord.set(w, feeds);
      }
    }
    namedFeeds.set(names, byWord);
  }
  return byWord.get(word) ?? [];
}

/**
 * The page (ids and scores) of the posts matching `word` whose title or feed name holds it,
 * found through the operators' index (` ttl ` lexemes, ` feed ` facets) and checked on
 * `rank_vector`; null when they do not fill it, or when a feed was added, renamed or removed
 * since `names` were read (the count is checked in the statement's own snapshot). Exact only
 * when every match is ranked (matchesAtMost <= RANKED_NEWEST): the caller's to know.
 */
export async function titledPage(
  sql: Sql,
  match: Match,
  word: string,
  page: { offset: number; limit: number },
  names: CurrentFeedNames,
): Promise<Array<{ id: number; score: number }> | null> {
  if (names.changes === null) return null;
  const need = page.offset + page.limit;
  const facets = [
    `' ttl ${quoteLexeme(word).slice(1, -1)}'`,
    ...feedsNaming(names.names, word).map((f) => `' feed ${f}'`),
  ];
  const found = await rows<{ id: number; score: number; titled: number }>(
    sql,
    `SELECT id, score, count(*) OVER ()::int AS titled FROM (
        SELECT p.id, ${SEARCH_SCORE} AS score FROM posts p
          WHERE ${OPERATOR_EXPRESSION} @@ $4::tsquery AND p.rank_vector @@ $1::tsquery
            AND (SELECT changes FROM feed_name_changes) = $5::bigint
          OFFSET 0
      ) t ORDER BY score DESC, id DESC LIMIT $2 OFFSET $3`,
    [match.words, page.limit, page.offset, facets.join(" | "), names.changes],
  );
  return found.length > 0 && found[0]!.titled >= need ? found.map(({ id, score }) => ({ id, score })) : null;
}
