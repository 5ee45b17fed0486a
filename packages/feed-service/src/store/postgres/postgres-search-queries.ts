/**
 * Full-text search on PostgreSQL (operation 1, and the smart categories built on it), with a cost
 * bounded by the page, not by how many posts match (spec §4 Latency):
 *
 * - `date`: a short walk of the date index when the statistics say the page lies in its first
 *   posts; else the query is run on the newest days only (a tier: time facets, sized from
 *   `post_days` and the statistics to hold the page's matches), then, when that tier falls short,
 *   on all posts. A tier whose matches fill the page answers exactly: every post outside it is older.
 * - `relevance`: the same tier finds the 10,000 newest matches (all of them when fewer match),
 *   and only those are ranked, as spec §4 allows.
 * - `clicks`: a short walk of the (clicks, id) index, else the highest tier of click counts (16
 *   or more, 8 or more, ...) expected to hold the page, then all posts; a tier that fills the page
 *   answers exactly: every post outside it has fewer clicks.
 *
 * One tier at most, never a widening series: a tier holds under half the posts in scope, so a
 * wrong guess costs at most half again the plain query, and every search answers about as fast as
 * the plain GIN query or faster. Each tier is one GIN lookup of the query's lexemes ANDed with its
 * facets (see postgres-search-facets.ts), phrases checked on `search_vector` (toIndexTsquery), and
 * the page's columns are read for its ids only.
 */
import type { SearchQuery } from "../../search/search-query.js";
import type { PostPage, PostRecord, SearchSort } from "../store.js";
import { POST_COLUMNS, POST_JOINS } from "./postgres-columns.js";
import { rows, type Sql, translatePostgresError } from "./postgres-connection.js";
import {
  clickTiersFacet,
  languagesFacet,
  SEARCH_EXPRESSION,
  sinceDayFacet,
} from "./postgres-search-facets.js";
import { SEARCH_SCORE, toIndexTsquery, toTsquery } from "./postgres-text-search.js";

/** Relevance ranks at most this many of the newest matches (spec §4). */
export const RANKED_NEWEST = 10_000;
/** A walk of the date or clicks index reads at most this many posts before the tiers take over. */
const WALK_POSTS = 1_000;
/** Tiers are sized for this many times the matches the statistics promise (they can be wrong). */
const TIER_MARGIN = 1.25;
/** A tier holds at least this many posts. */
const MIN_TIER_POSTS = 2_000;
/** Tiers reach back at most this many days with posts (past them, every post is searched). */
const MAX_TIER_DAYS = 1_000;
/** Click tiers tried before all posts: 16+ clicks, 8+, 4+, 2+, 1+. */
const CLICK_TIERS = [5, 4, 3, 2, 1];

type Page = PostPage & { query: SearchQuery; sort: SearchSort };

/**
 * What a search matches: `index`, the query's lexemes and facets, which GIN answers exactly; and
 * when that is only a superset (the query holds a phrase), `verify`, the query itself, checked on
 * `search_vector` for the posts GIN hands over (see toIndexTsquery).
 */
interface Match {
  index: string;
  verify: string | null;
  /** The query without facets: what walks check, and what the score is computed for. */
  words: string;
  languageIds: readonly number[] | null;
}

/** The SQL condition for `match` narrowed by `facet`, with its parameters from `$first` on. */
function condition(match: Match, facet: string | null, first: number): { sql: string; params: string[] } {
  const index = facet ? `(${match.index}) & ${facet}` : match.index;
  if (match.verify === null) return { sql: `${SEARCH_EXPRESSION} @@ $${first}::tsquery`, params: [index] };
  return {
    sql: `${SEARCH_EXPRESSION} @@ $${first}::tsquery AND p.search_vector @@ $${first + 1}::tsquery`,
    params: [index, match.verify],
  };
}

/** What the planner expects of a query: how many posts match, and what share of all posts. */
interface Expected {
  matches: number;
  share: number;
}

/**
 * What the planner expects of the search narrowed by `facet`, from the search index's
 * statistics. It sizes the walks and tiers; only a guess (words are not independent), which is
 * why every way it picks is exact and falls back to the plain query.
 */
async function expectation(sql: Sql, match: Match, facet: string | null = null): Promise<Expected> {
  try {
    const where = condition(match, facet, 1);
    // Unnamed: planned for this very query, and no prepared statement per query text.
    const [plan] = (
      await sql.query(`EXPLAIN (FORMAT JSON) SELECT 1 FROM posts p WHERE ${where.sql}`, where.params)
    ).rows as Array<{ "QUERY PLAN": Array<{ Plan: { "Plan Rows": number } }> }>;
    const [total] = await rows<{ n: number }>(
      sql,
      "SELECT greatest(reltuples, 1) AS n FROM pg_class WHERE oid = 'posts'::regclass",
    );
    const matches = plan!["QUERY PLAN"][0]!.Plan["Plan Rows"];
    return { matches, share: Math.min(1, matches / total!.n) };
  } catch (error) {
    throw translatePostgresError(error);
  }
}

/** Whether the page lies within the first WALK_POSTS / 2 posts of an index, as expected. */
function walkable(need: number, expected: { share: number }): boolean {
  return need <= (expected.share * WALK_POSTS) / 2;
}

/**
 * The first `need` matches in `order`, read by walking that order's index over at most
 * WALK_POSTS posts: all of them when that many lie among those posts, else the fewer found (the
 * walk then proves nothing about the page, but says how common the query is). The posts are
 * read anyway, so the query is checked on `search_vector` itself, never on the indexed
 * expression (which would rebuild each post's vector with its facets).
 */
async function walk(sql: Sql, match: Match, need: number, order: string): Promise<number[]> {
  const language = match.languageIds ? "AND p.language_id = ANY($4::int[])" : "";
  const found = await rows<{ id: number }>(
    sql,
    `SELECT p.id FROM (SELECT id, post_date, clicks, language_id, search_vector FROM posts
        ORDER BY ${order} LIMIT $3) p
      WHERE p.search_vector @@ $1::tsquery ${language} ORDER BY ${order} LIMIT $2`,
    [match.words, need, WALK_POSTS, ...(match.languageIds ? [match.languageIds] : [])],
  );
  return found.map((r) => r.id);
}

/** The expectation corrected by a walk that found `found` matches among WALK_POSTS posts. */
function correct(expected: Expected, found: number): void {
  const share = found / WALK_POSTS;
  expected.matches = expected.share > 0 ? (expected.matches / expected.share) * share : 0;
  expected.share = share;
}

/**
 * The page from a walk when it found the whole page; otherwise null, with the expectation
 * corrected by what the walk saw (a share measured on the newest posts beats the statistics;
 * nothing found means few matches, best read all at once).
 */
async function walkPage(
  sql: Sql,
  match: Match,
  page: Page,
  order: string,
  expected: Expected,
): Promise<number[] | null> {
  const need = page.offset + page.limit;
  const found = await walk(sql, match, need, order);
  if (found.length === need) return found.slice(page.offset);
  correct(expected, found.length);
  return null;
}

/**
 * The newest days that should hold `need` matches, as a facet (null when there is none worth
 * trying: so few matches expected that reading them all costs less, or a tier that would hold
 * half the posts in scope or more, where the plain query costs about as much). Only one tier is
 * ever tried: when it falls short, the plain query follows, so that a wrong guess costs at most
 * half again what the plain query costs.
 */
async function dayTier(
  sql: Sql,
  languageIds: readonly number[] | null,
  need: number,
  expected: Pick<Expected, "matches">,
): Promise<string | null> {
  if (expected.matches <= need * TIER_MARGIN) return null;
  const perDay = await rows<{ day: number; n: number; total: number }>(
    sql,
    `SELECT day, sum(posts) AS n, sum(sum(posts)) OVER () AS total FROM post_days
      WHERE posts > 0 ${languageIds ? "AND language_id = ANY($2::int[])" : ""}
      GROUP BY day ORDER BY day DESC LIMIT $1`,
    languageIds ? [MAX_TIER_DAYS + 1, languageIds] : [MAX_TIER_DAYS + 1],
  );
  const total = perDay[0]?.total ?? 0;
  // The expected share among the posts in scope (the query holds the language facets).
  const share = Math.min(1, expected.matches / Math.max(1, total));
  const target = Math.max(MIN_TIER_POSTS, (need / share) * TIER_MARGIN);
  if (target * 2 > total) return null;
  let posts = 0;
  let days = 0;
  while (days < perDay.length && posts < target) posts += perDay[days++]!.n;
  if (posts < target) return null;
  return sinceDayFacet(perDay[days - 1]!.day, perDay[0]!.day);
}

/** The ids of one date-ordered page (exact): a walk, one tier of the newest days, all matches. */
async function newestPage(sql: Sql, match: Match, page: Page): Promise<number[]> {
  const need = page.offset + page.limit;
  const expected = await expectation(sql, match);
  if (walkable(need, expected)) {
    const walked = await walkPage(sql, match, page, "post_date DESC, id DESC", expected);
    if (walked) return walked;
  }
  const tier = await dayTier(sql, page.languageIds, need, expected);
  for (const facet of tier ? [tier, null] : [null]) {
    const where = condition(match, facet, 3);
    const found = await rows<{ id: number }>(
      sql,
      `WITH m AS MATERIALIZED (SELECT p.id, p.post_date FROM posts p WHERE ${where.sql})
        SELECT id FROM m ORDER BY post_date DESC, id DESC LIMIT $1 OFFSET $2`,
      [page.limit, page.offset, ...where.params],
    );
    // A tier whose matches fill the page answers exactly: every post outside it is older.
    if (found.length === page.limit || facet === null) return found.map((r) => r.id);
  }
  return [];
}

/**
 * The ids and scores of one relevance page among the 10,000 newest matches: one tier of the
 * newest days, else all matches. A phrase's share is measured on the newest posts first (the
 * statistics know words, not how often they follow each other).
 */
async function rankedPage(sql: Sql, match: Match, page: Page): Promise<Array<{ id: number; score: number }>> {
  if (page.offset >= RANKED_NEWEST) return [];
  const expected = await expectation(sql, match);
  if (match.verify !== null)
    correct(expected, (await walk(sql, match, WALK_POSTS, "post_date DESC, id DESC")).length);
  const tier = await dayTier(sql, page.languageIds, RANKED_NEWEST, expected);
  for (const facet of tier ? [tier, null] : [null]) {
    const where = condition(match, facet, 4);
    // A tier (or a rare query) holds few more matches than are ranked: scored as they are found.
    // Every day of a common query holds many more: the newest are picked first and only they are
    // read again to be scored.
    const found = await rows<{ id: number; score: number; ranked: number }>(
      sql,
      facet || expected.matches <= 2 * RANKED_NEWEST
        ? `WITH m AS MATERIALIZED (SELECT p.id, p.post_date, ${SEARCH_SCORE} AS score FROM posts p WHERE ${where.sql}),
            newest AS MATERIALIZED (SELECT id, score FROM m ORDER BY post_date DESC, id DESC LIMIT ${RANKED_NEWEST})
            SELECT id, score, (SELECT count(*) FROM newest) AS ranked FROM newest
            ORDER BY score DESC, id DESC LIMIT $2 OFFSET $3`
        : `WITH m AS MATERIALIZED (SELECT p.id, p.post_date FROM posts p WHERE ${where.sql}),
            newest AS MATERIALIZED (SELECT id FROM m ORDER BY post_date DESC, id DESC LIMIT ${RANKED_NEWEST})
            SELECT p.id, ${SEARCH_SCORE} AS score, 0 AS ranked FROM newest JOIN posts p ON p.id = newest.id
            ORDER BY score DESC, p.id DESC LIMIT $2 OFFSET $3`,
      [match.words, page.limit, page.offset, ...where.params],
    );
    // An empty page of a tier says nothing about how many it ranked: only the plain query is sure.
    if (facet === null || (found.length > 0 && found[0]!.ranked >= RANKED_NEWEST)) return found;
  }
  return [];
}

/**
 * The click tier worth trying for `need` matches: the highest whose expected matches hold the
 * page, when it holds less than half the matches. Clicked posts lie all over the table, so a tier
 * holding many matches reads nearly as many pages as the plain query: past half, the plain query
 * runs at once (and a page among the posts with no click always comes from it).
 */
async function clickTier(sql: Sql, match: Match, need: number, expected: Expected): Promise<string | null> {
  for (const lowest of CLICK_TIERS) {
    const facet = clickTiersFacet(lowest);
    const inTier = (await expectation(sql, match, facet)).matches;
    if (inTier * 2 > expected.matches) return null;
    if (inTier >= need * TIER_MARGIN) return facet;
  }
  return null;
}

/** The ids of one clicks-ordered page (exact): a walk, one tier of click counts, all matches. */
async function mostClickedPage(sql: Sql, match: Match, page: Page): Promise<number[]> {
  const need = page.offset + page.limit;
  const expected = await expectation(sql, match);
  // The tiers' estimates come from the statistics too: compared with the statistics' total.
  const planned = { ...expected };
  if (walkable(need, expected)) {
    const walked = await walkPage(sql, match, page, "clicks DESC, id DESC", expected);
    if (walked) return walked;
  }
  const tier = await clickTier(sql, match, need, planned);
  for (const facet of tier ? [tier, null] : [null]) {
    const where = condition(match, facet, 3);
    const found = await rows<{ id: number }>(
      sql,
      `WITH m AS MATERIALIZED (SELECT p.id, p.clicks FROM posts p WHERE ${where.sql})
        SELECT id FROM m ORDER BY clicks DESC, id DESC LIMIT $1 OFFSET $2`,
      [page.limit, page.offset, ...where.params],
    );
    // A tier that fills the page answers exactly: every post outside it has fewer clicks.
    if (found.length === page.limit || facet === null) return found.map((r) => r.id);
  }
  return [];
}

/** The columns of the page's posts, in the page's order, with their scores. */
async function postsOf(
  sql: Sql,
  tsquery: string,
  page: ReadonlyArray<{ id: number; score?: number }>,
): Promise<Array<PostRecord & { score: number }>> {
  if (page.length === 0) return [];
  const found = await rows<PostRecord & { score: number }>(
    sql,
    `SELECT ${POST_COLUMNS}, ${SEARCH_SCORE} AS "score" FROM posts p ${POST_JOINS} WHERE p.id = ANY($2::int[])`,
    [tsquery, page.map((r) => r.id)],
  );
  const byId = new Map(found.map((r) => [r.postId, r]));
  return page.flatMap((r) => {
    const post = byId.get(r.id);
    return post ? [r.score === undefined ? post : { ...post, score: r.score }] : [];
  });
}

export async function searchPosts(sql: Sql, page: Page): Promise<Array<PostRecord & { score: number }>> {
  const words = toTsquery(page.query);
  const lexemes = toIndexTsquery(page.query);
  if (words === null || lexemes === null || page.limit === 0 || page.languageIds?.length === 0) return [];
  // The language filter is a facet too: GIN never hands over posts of other languages.
  const match: Match = {
    index: page.languageIds ? `(${lexemes.tsquery}) & ${languagesFacet(page.languageIds)}` : lexemes.tsquery,
    verify: lexemes.exact ? null : words,
    words,
    languageIds: page.languageIds,
  };
  if (page.sort === "relevance") return postsOf(sql, words, await rankedPage(sql, match, page));
  const ids =
    page.sort === "date" ? await newestPage(sql, match, page) : await mostClickedPage(sql, match, page);
  return postsOf(
    sql,
    words,
    ids.map((id) => ({ id })),
  );
}
