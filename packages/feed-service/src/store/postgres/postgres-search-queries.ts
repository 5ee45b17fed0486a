/**
 * Full-text search on PostgreSQL (operation 1, and the smart categories built on it), with a cost
 * bounded by the page, not by how many posts match (spec §4 Latency):
 *
 * - `date`: the query is first run on the newest days only (an OR of day facets, sized from
 *   `post_days` to hold a few times the posts the page needs), then on many more days, then on
 *   all. A tier whose matches fill the page answers exactly: every post outside it is older.
 * - `relevance`: the same tiers find the 10,000 newest matches (all of them when fewer match),
 *   and only those are ranked, as spec §4 allows.
 * - `clicks`: tiers of click counts from the top (16 or more, 8 or more, ...), then all posts;
 *   a tier that fills the page answers exactly: every post outside it has fewer clicks.
 *
 * Each tier is one GIN lookup of the query ANDed with its facets (see postgres-search-facets.ts),
 * and the page's columns are read for its ids only.
 */
import type { SearchQuery } from "../../search/search-query.js";
import type { PostPage, PostRecord, SearchSort } from "../store.js";
import { POST_COLUMNS, POST_JOINS } from "./postgres-columns.js";
import { rows, type Sql, translatePostgresError } from "./postgres-connection.js";
import { clickTiersFacet, daysFacet, languagesFacet, SEARCH_EXPRESSION } from "./postgres-search-facets.js";
import { SEARCH_SCORE, toTsquery } from "./postgres-text-search.js";

/** Relevance ranks at most this many of the newest matches (spec §4). */
export const RANKED_NEWEST = 10_000;
/** A walk of the date or clicks index may read this many posts before the tiers take over. */
const WALK_POSTS = 2_000;
/** Tiers are sized for this many times the matches the statistics promise (they can be wrong). */
const TIER_MARGIN = 1.5;
/** A tier holds at least this many posts; each further tier this many times the one before. */
const MIN_TIER_POSTS = 2_000;
const TIER_GROWTH = 4;
/** Tiers hold at most this many posts (see dayTiers). */
const MAX_TIER_POSTS = 60_000;
/** A tier of more days than this searches every day instead (one facet per day in the query). */
const MAX_TIER_DAYS = 400;
/** Click tiers tried before all posts: 16+ clicks, 8+, 4+, 2+, 1+. */
const CLICK_TIERS = [5, 4, 3, 2, 1];

type Page = PostPage & { query: SearchQuery; sort: SearchSort };

/**
 * The share of posts the planner expects to match, from the search index's statistics: sizes the
 * walks and tiers. Only a guess (words are not independent), which is why every way it picks is
 * exact and falls back to the next.
 */
async function expectedShare(sql: Sql, tsquery: string): Promise<number> {
  try {
    // Unnamed: planned with this very query, and no prepared statement per query text.
    const [plan] = (
      await sql.query(
        `EXPLAIN (FORMAT JSON) SELECT 1 FROM posts p WHERE ${SEARCH_EXPRESSION} @@ $1::tsquery`,
        [tsquery],
      )
    ).rows as Array<{ "QUERY PLAN": Array<{ Plan: { "Plan Rows": number } }> }>;
    return Math.min(1, plan!["QUERY PLAN"][0]!.Plan["Plan Rows"] / (await postCount(sql)));
  } catch (error) {
    throw translatePostgresError(error);
  }
}

/** The planner's count of posts (what its estimates are relative to). */
async function postCount(sql: Sql): Promise<number> {
  const [total] = await rows<{ n: number }>(
    sql,
    "SELECT greatest(reltuples, 1) AS n FROM pg_class WHERE oid = 'posts'::regclass",
  );
  return total!.n;
}

/**
 * The page of matches in `order`, read by walking that order's index over at most `posts` posts;
 * null when fewer matches than the page needs lie among them (the walk proves nothing then).
 */
async function walkPage(
  sql: Sql,
  tsquery: string,
  page: Page,
  order: string,
  posts: number,
): Promise<number[] | null> {
  const found = await rows<{ id: number }>(
    sql,
    `SELECT p.id FROM (SELECT id, post_date, clicks, language_id, search_vector FROM posts
        ORDER BY ${order} LIMIT $4) p
      WHERE ${SEARCH_EXPRESSION} @@ $1::tsquery ORDER BY ${order} LIMIT $2 OFFSET $3`,
    [tsquery, page.limit, page.offset, posts],
  );
  return found.length === page.limit ? found.map((r) => r.id) : null;
}

/**
 * The day facets of each tier, newest first, for `need` matches at `share` of the posts; null
 * stands for every day (always the last tier). GIN reads every post of a tier's days to OR them,
 * so tiers stop at MAX_TIER_POSTS posts (of every language): past that, searching every day costs
 * less (what all the matches cost), and the statistics say when even the first tier would.
 */
async function dayTiers(
  sql: Sql,
  languageIds: readonly number[] | null,
  need: number,
  share: number,
): Promise<Array<number[] | null>> {
  const tiers: Array<number[] | null> = [];
  const expected = share * (await postCount(sql));
  if (expected > need * TIER_MARGIN) {
    let target = Math.max(MIN_TIER_POSTS, (need / Math.max(share, 1e-6)) * TIER_MARGIN);
    const perDay = await rows<{ day: number; scoped: number; all: number }>(
      sql,
      `SELECT day, sum(posts) ${languageIds ? "FILTER (WHERE language_id = ANY($2::int[]))" : ""} AS scoped,
          sum(posts) AS "all"
        FROM post_days WHERE posts > 0 GROUP BY day ORDER BY day DESC LIMIT $1`,
      languageIds ? [MAX_TIER_DAYS + 1, languageIds] : [MAX_TIER_DAYS + 1],
    );
    let scoped = 0;
    let all = 0;
    let days = 0;
    for (;;) {
      while (days < perDay.length && scoped < target) {
        scoped += perDay[days]!.scoped ?? 0;
        all += perDay[days++]!.all;
      }
      if (scoped < target || days >= perDay.length || all > MAX_TIER_POSTS) break;
      tiers.push(perDay.slice(0, days).map((d) => d.day));
      target *= TIER_GROWTH;
    }
  }
  tiers.push(null);
  return tiers;
}

/** The ids of one date-ordered page (exact). */
async function newestPage(sql: Sql, tsquery: string, page: Page): Promise<number[]> {
  const need = page.offset + page.limit;
  const share = await expectedShare(sql, tsquery);
  if (need / Math.max(share, 1e-6) <= WALK_POSTS / 2) {
    const walked = await walkPage(sql, tsquery, page, "post_date DESC, id DESC", WALK_POSTS);
    if (walked) return walked;
  }
  for (const days of await dayTiers(sql, page.languageIds, need, share)) {
    const found = await rows<{ id: number }>(
      sql,
      `WITH m AS MATERIALIZED (SELECT p.id, p.post_date FROM posts p WHERE ${SEARCH_EXPRESSION} @@ $1::tsquery)
        SELECT id FROM m ORDER BY post_date DESC, id DESC LIMIT $2 OFFSET $3`,
      [days ? `(${tsquery}) & ${daysFacet(days)}` : tsquery, page.limit, page.offset],
    );
    if (found.length === page.limit || days === null) return found.map((r) => r.id);
  }
  return [];
}

/**
 * The ids and scores of one relevance page among the 10,000 newest matches; `words` is the query
 * without facets, which the score is computed for (as it always was).
 */
async function rankedPage(
  sql: Sql,
  tsquery: string,
  words: string,
  page: Page,
): Promise<Array<{ id: number; score: number }>> {
  if (page.offset >= RANKED_NEWEST) return [];
  const share = await expectedShare(sql, tsquery);
  for (const days of await dayTiers(sql, page.languageIds, RANKED_NEWEST, share)) {
    const score = SEARCH_SCORE.replaceAll("$1", "$4");
    // A tier holds a few more matches than it ranks: scored as they are found. Every day may
    // hold many more: the newest are picked first and only they are read again to be scored.
    const found = await rows<{ id: number; score: number; ranked: number }>(
      sql,
      days
        ? `WITH m AS MATERIALIZED (SELECT p.id, p.post_date, ${score} AS score
              FROM posts p WHERE ${SEARCH_EXPRESSION} @@ $1::tsquery),
            newest AS MATERIALIZED (SELECT id, score FROM m ORDER BY post_date DESC, id DESC LIMIT ${RANKED_NEWEST})
            SELECT id, score, (SELECT count(*) FROM newest) AS ranked FROM newest
            ORDER BY score DESC, id DESC LIMIT $2 OFFSET $3`
        : `WITH m AS MATERIALIZED (SELECT p.id, p.post_date FROM posts p WHERE ${SEARCH_EXPRESSION} @@ $1::tsquery),
            newest AS MATERIALIZED (SELECT id FROM m ORDER BY post_date DESC, id DESC LIMIT ${RANKED_NEWEST})
            SELECT p.id, ${score} AS score, 0 AS ranked FROM newest JOIN posts p ON p.id = newest.id
            ORDER BY score DESC, p.id DESC LIMIT $2 OFFSET $3`,
      [days ? `(${tsquery}) & ${daysFacet(days)}` : tsquery, page.limit, page.offset, words],
    );
    // An empty page of a tier says nothing about how many it ranked: only the last tier is sure.
    if (days === null || (found.length > 0 && found[0]!.ranked >= RANKED_NEWEST)) return found;
  }
  return [];
}

/** The ids of one clicks-ordered page (exact): a walk, then the click tiers from the top. */
async function mostClickedPage(sql: Sql, tsquery: string, page: Page): Promise<number[]> {
  const need = page.offset + page.limit;
  const share = await expectedShare(sql, tsquery);
  if (need / Math.max(share, 1e-6) <= WALK_POSTS / 2) {
    const walked = await walkPage(sql, tsquery, page, "clicks DESC, id DESC", WALK_POSTS);
    if (walked) return walked;
  }
  for (const lowest of [...CLICK_TIERS, null]) {
    const found = await rows<{ id: number }>(
      sql,
      `WITH m AS MATERIALIZED (SELECT p.id, p.clicks FROM posts p WHERE ${SEARCH_EXPRESSION} @@ $1::tsquery)
        SELECT id FROM m ORDER BY clicks DESC, id DESC LIMIT $2 OFFSET $3`,
      [lowest === null ? tsquery : `(${tsquery}) & ${clickTiersFacet(lowest)}`, page.limit, page.offset],
    );
    if (found.length === page.limit || lowest === null) return found.map((r) => r.id);
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
  if (words === null || page.limit === 0 || page.languageIds?.length === 0) return [];
  // The language filter is a facet too: GIN never hands over posts of other languages.
  const tsquery = page.languageIds ? `(${words}) & ${languagesFacet(page.languageIds)}` : words;
  if (page.sort === "relevance") return postsOf(sql, words, await rankedPage(sql, tsquery, words, page));
  const ids =
    page.sort === "date" ? await newestPage(sql, tsquery, page) : await mostClickedPage(sql, tsquery, page);
  return postsOf(
    sql,
    words,
    ids.map((id) => ({ id })),
  );
}
