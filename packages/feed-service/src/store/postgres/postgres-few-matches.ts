/**
 * A counted word (postgres-counted-searches.ts) within `lang:` or `feed:` filters that leave few of
 * its matches (spec §4: every first call within its budget, bounds from the store's statistics):
 * `feed:diario lang:pt-BR la`, where the feeds' words hand over the word's matches in every
 * language of the feeds and the row check keeps a few, and `feed:tagebuch la`, where a tier of the
 * newest days falls short and the whole scope is read through the word's posting list. The
 * counts the store keeps say how many matches each filter leaves: the word's posts per language
 * and day (search_days) and per feed and block of ids or month (counted_feed_blocks, migration 56;
 * counted_feed_months, migration 52). When either
 * side holds at most FEW_MATCHES, every one of its matches is read at once, through GIN keys that
 * hold just them (the word with the language and the counted days' facets, or the feeds' words of
 * the feeds that hold it), the filters checked on each, and the page sorted from them in any order.
 * Exact: the page statement counts the side's matches again in its own snapshot, and any
 * difference (a write between the two statements) hands the page to the other plans.
 */
import { type SearchQuery, usesOperators } from "../../search/search-query.js";
import type { PostPage, SearchSort } from "../store.js";
import { Where } from "./postgres-columns.js";
import { rows, type Sql, translatePostgresError } from "./postgres-connection.js";
import { FEED_WORDS_EXPRESSION, feedWordQuery } from "./postgres-feed-words.js";
import { FEED_QUERIES, OPERATOR_EXPRESSION, type Plan } from "./postgres-operator-plan.js";
import { MIN_TIER_POSTS } from "./postgres-plan-costs.js";
import { dayRangeFacet, languagesFacet } from "./postgres-search-facets.js";
import { lexemeOf, searchKey } from "./postgres-search-key.js";
import { SEARCH_SCORE } from "./postgres-text-search.js";

/**
 * The matches read at once, at most: the posts of the smallest tier of the newest days the other
 * plans read (MIN_TIER_POSTS), so reading them all costs no more than any of those plans' first
 * statement. Each count read to decide it is bounded by it too (a counted row holds a match).
 */
export const FEW_MATCHES = MIN_TIER_POSTS;

/**
 * Runs of days whose facets one GIN query holds at most (a date range's exact cover, dayRangeBlocks,
 * is about 45 facets: this is that order).
 */
const MAX_DAY_RUNS = 64;

/** Relevance ranks at most this many of the newest matches (spec §4); FEW_MATCHES is fewer. */
const RANKED_NEWEST = 10_000;

/** The page's order over the matches read (as the other plans order them). */
const ORDER: Record<SearchSort, string> = {
  relevance: "score DESC, id DESC",
  date: "post_date DESC, id DESC",
  clicks: "clicks DESC, id DESC",
};

/** The lexeme query of the words when they are one counted-able word (a plain lexeme), else null. */
function plainWord(query: SearchQuery, plan: Plan): string | null {
  if (plan.words === null || plan.index === null || plan.expression !== OPERATOR_EXPRESSION) return null;
  if (query.excluded.length > 0) return null;
  const words: SearchQuery = { clauses: query.clauses, excluded: [] };
  if (usesOperators(words)) return null;
  const key = searchKey(words);
  if (key === null || lexemeOf(key.index, key.verify) === null) return null;
  return key.index;
}

/** Runs of consecutive days as [first, last] pairs, oldest first. */
function dayRuns(days: readonly number[]): Array<[number, number]> {
  const sorted = [...new Set(days)].sort((a, b) => a - b);
  const runs: Array<[number, number]> = [];
  for (const day of sorted) {
    const last = runs[runs.length - 1];
    if (last !== undefined && day === last[1] + 1) last[1] = day;
    else runs.push([day, day]);
  }
  return runs;
}

/**
 * The counted rows `text` selects (its last parameter the LIMIT), when they hold at most
 * FEW_MATCHES matches (each row holds one or more), else null. A common word's first few rows
 * already hold more: they are read first; past them the rows are summed in the server before any
 * is sent, so that a filter that leaves many matches costs one aggregate of FEW_MATCHES rows at
 * most, not their transfer.
 */
async function fewCounted<T extends { n: number }>(
  sql: Sql,
  text: string,
  params: unknown[],
): Promise<T[] | null> {
  const first = await rows<T>(sql, text, [...params, MAX_DAY_RUNS]);
  const inFirst = first.reduce((sum, r) => sum + r.n, 0);
  if (inFirst > FEW_MATCHES) return null;
  if (first.length < MAX_DAY_RUNS) return first;
  const [all] = await rows<{ rows: number; n: number }>(
    sql,
    `SELECT count(*)::int AS rows, coalesce(sum(n), 0)::float8 AS n FROM (${text}) c`,
    [...params, FEW_MATCHES + 1],
  );
  if (all!.rows > FEW_MATCHES || all!.n > FEW_MATCHES) return null;
  return rows<T>(sql, text, [...params, FEW_MATCHES + 1]);
}

/** How the matches of one side are read: the condition, and how many it hands over. */
interface Side {
  add: (where: Where) => void;
  matches: number;
}

/**
 * The word's matches in the scope's languages from its counted days: null when they are more than
 * FEW_MATCHES (or the days are not read: no language). Days with no match in those languages hold
 * none of the posts the condition hands over, so the days' facets keep exactly the counted ones.
 */
async function languageSide(sql: Sql, searchId: number, plan: Plan, lexeme: string): Promise<Side | null> {
  const languageIds = plan.scope.languageIds;
  if (languageIds === null || languageIds.length === 0) return null;
  const counted = await fewCounted<{ day: number; n: number }>(
    sql,
    `SELECT day, posts AS n FROM search_days
      WHERE search_id = $1 AND language_id = ANY($2::int[]) AND posts > 0 LIMIT $3`,
    [searchId, languageIds],
  );
  if (counted === null) return null;
  const matches = counted.reduce((sum, d) => sum + d.n, 0);
  // One GIN query: the days' facets are its rarest keys, the word's and the language's posting
  // lists skipped through in id order. One scan per run of days instead read those lists again
  // for each. GIN weighs each candidate against every key of the query: past MAX_DAY_RUNS runs
  // the word and the language alone, their two posting lists read once.
  const runs = dayRuns(counted.map((d) => d.day));
  const days =
    runs.length <= MAX_DAY_RUNS ? ` & (${runs.map(([a, b]) => dayRangeFacet(a, b)).join(" | ")})` : "";
  const query = `${lexeme} & ${languagesFacet(languageIds)}${days}`;
  return { matches, add: (where) => where.add(`${OPERATOR_EXPRESSION} @@ ?::tsquery`, query) };
}

/**
 * The feeds' counts a word's matches are summed from, in the order tried: per feed and block of
 * 32,768 ids (migration 56), then per feed and month (migration 52) for a word whose blocks are
 * not counted. Each counts every match once; a block row holds years of a feed's posts where a
 * month row holds four weeks, so a `feed:` of many feeds whose matches are just past FEW_MATCHES
 * (`feed:日 the` on the long-tail) is found too many from fewer rows (bench/NOTES.md).
 */
const FEED_COUNTS = [
  { table: "counted_feed_blocks", marks: "counted_feed_block_searches" },
  { table: "counted_feed_months", marks: "counted_feed_searches" },
] as const;

/**
 * The word's matches in the scope's feeds from their counted blocks or months (every language):
 * null when more than FEW_MATCHES, neither is counted for the word, or a feed's key cannot hold
 * it. Read through the index of posts by feed and word, one scan per feed that holds the word.
 */
async function feedSide(sql: Sql, searchId: number, plan: Plan): Promise<Side | null> {
  const feedIds = plan.scope.feedIds;
  if (feedIds === null || feedIds.length === 0 || plan.feedIndex === null) return null;
  for (const { table, marks } of FEED_COUNTS) {
    const counted = await fewCounted<{ feed: number; n: number }>(
      sql,
      `SELECT m.feed_id AS feed, m.posts AS n FROM ${marks} k
        JOIN ${table} m ON m.search_id = k.search_id
        WHERE k.search_id = $1 AND m.feed_id = ANY($2::int[]) AND m.posts > 0 LIMIT $3`,
      [searchId, feedIds],
    );
    // Rows come only with the word's mark: too many of them are too many in every table.
    if (counted === null) return null;
    // The counts are kept only once marked: no row of an unmarked word says nothing.
    if (counted.length === 0) {
      const [marked] = await rows<{ id: number }>(
        sql,
        `SELECT search_id AS id FROM ${marks} WHERE search_id = $1`,
        [searchId],
      );
      if (!marked) continue;
    }
    const matches = counted.reduce((sum, m) => sum + m.n, 0);
    const queries: string[] = [];
    for (const feed of new Set(counted.map((m) => m.feed))) {
      const query = feedWordQuery(plan.feedIndex, feed);
      if (query === null) return null;
      queries.push(query);
    }
    return { matches, add: (where) => where.add(`${FEED_WORDS_EXPRESSION} @@ ${FEED_QUERIES}`, queries) };
  }
  return null;
}

/**
 * The ids of one page of a counted word within filters that leave at most FEW_MATCHES of its
 * matches on one side (languages or feeds, the statistics above), or null when neither side is
 * that small, the word is not counted, or the matches read were not those counted.
 */
export async function fewMatchesPage(
  sql: Sql,
  page: PostPage & { query: SearchQuery; sort: SearchSort },
  plan: Plan,
): Promise<number[] | null> {
  if (page.sort === "relevance" && page.offset >= RANKED_NEWEST) return null;
  const lexeme = plainWord(page.query, plan);
  if (lexeme === null || (plan.scope.languageIds === null && plan.scope.feedIds === null)) return null;
  const [search] = await rows<{ id: number }>(
    sql,
    "SELECT id FROM counted_searches WHERE index_query = $1 AND verify_query IS NULL",
    [lexeme],
  );
  if (!search) return null;
  const side = (await languageSide(sql, search.id, plan, lexeme)) ?? (await feedSide(sql, search.id, plan));
  if (side === null) return null;
  // No match on that side: none in scope, as the counts read in one snapshot say.
  if (side.matches === 0) return [];
  const where = new Where();
  if (page.sort === "relevance") where.next(plan.words); // $1, the words SEARCH_SCORE ranks
  side.add(where);
  const [selected] = where.parts;
  const kept = new Where();
  kept.params.push(...where.params);
  kept.add(plan.filters.sql, ...plan.filters.args);
  kept.add(plan.recheck.sql, ...plan.recheck.args);
  kept.add(plan.verify.sql, ...plan.verify.args);
  const score = page.sort === "relevance" ? SEARCH_SCORE : "0::float8";
  const limit = kept.next(page.limit);
  const offset = kept.next(page.offset);
  // Unnamed, so planned for its own keys each time (a generic plan would not see the tsquery).
  // `OFFSET 0` keeps the GIN lookup a plan of its own.
  const text = `WITH m AS MATERIALIZED (
      SELECT p.id, p.post_date, p.clicks, ${score} AS score, (${kept.parts.join(" AND ")}) IS TRUE AS kept
        FROM posts p WHERE ${selected} OFFSET 0)
    SELECT (SELECT count(*) FROM m)::int AS n,
      ARRAY(SELECT id FROM m WHERE kept ORDER BY ${ORDER[page.sort]} LIMIT ${limit} OFFSET ${offset}) AS ids`;
  let found: { n: number; ids: number[] };
  try {
    found = (await sql.query(text, kept.params)).rows[0] as { n: number; ids: number[] };
  } catch (error) {
    throw translatePostgresError(error);
  }
  return found.n === side.matches ? found.ids.map(Number) : null;
}
