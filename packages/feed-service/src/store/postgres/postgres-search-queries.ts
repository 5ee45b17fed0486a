/**
 * Full-text search on PostgreSQL (operation 1, and the smart categories built on it), with a cost
 * bounded by the page, not by how many posts match (spec §4 Latency):
 *
 * - `date`: a short walk of the date index when the statistics say the page lies in its first
 *   posts; else the query is run on the newest days only (time facets, sized from `post_days` and
 *   the statistics to hold the page's matches), then on 4 times as many posts, ..., then on all.
 *   A tier whose matches fill the page answers exactly: every post outside it is older.
 * - `relevance`: the same tiers find the 10,000 newest matches (all of them when fewer match),
 *   and only those are ranked, as spec §4 allows.
 * - `clicks`: a short walk of the (clicks, id) index, else tiers of click counts from the top (16
 *   or more, 8 or more, ...), then all posts; a tier that fills the page answers exactly: every
 *   post outside it has fewer clicks.
 *
 * Each tier is one GIN lookup of the query ANDed with its facets (see postgres-search-facets.ts),
 * and the page's columns are read for its ids only.
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
import { SEARCH_SCORE, toTsquery } from "./postgres-text-search.js";

/** Relevance ranks at most this many of the newest matches (spec §4). */
export const RANKED_NEWEST = 10_000;
/** A walk of the date or clicks index reads at most this many posts before the tiers take over. */
const WALK_POSTS = 1_000;
/** Tiers are sized for this many times the matches the statistics promise (they can be wrong). */
const TIER_MARGIN = 1.25;
/** A tier holds at least this many posts; each further tier this many times the one before. */
const MIN_TIER_POSTS = 2_000;
const TIER_GROWTH = 4;
/** Tiers reach back at most this many days with posts (past them, every post is searched). */
const MAX_TIER_DAYS = 1_000;
/** Click tiers tried before all posts: 16+ clicks, 8+, 4+, 2+, 1+. */
const CLICK_TIERS = [5, 4, 3, 2, 1];

type Page = PostPage & { query: SearchQuery; sort: SearchSort };

/**
 * What the planner expects of a query, from the search index's statistics: how many posts match,
 * and what share of all posts that is. It sizes the walks and tiers; only a guess (words are not
 * independent), which is why every way it picks is exact and falls back to the next.
 */
async function expectation(sql: Sql, tsquery: string): Promise<{ matches: number; share: number }> {
  try {
    // Unnamed: planned for this very query, and no prepared statement per query text.
    const [plan] = (
      await sql.query(
        `EXPLAIN (FORMAT JSON) SELECT 1 FROM posts p WHERE ${SEARCH_EXPRESSION} @@ $1::tsquery`,
        [tsquery],
      )
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
 * walk then proves nothing about the page, but says how common the query is).
 */
async function walk(sql: Sql, tsquery: string, need: number, order: string): Promise<number[]> {
  const found = await rows<{ id: number }>(
    sql,
    `SELECT p.id FROM (SELECT id, post_date, clicks, language_id, search_vector FROM posts
        ORDER BY ${order} LIMIT $3) p
      WHERE ${SEARCH_EXPRESSION} @@ $1::tsquery ORDER BY ${order} LIMIT $2`,
    [tsquery, need, WALK_POSTS],
  );
  return found.map((r) => r.id);
}

/**
 * The page from a walk when it found the whole page; otherwise null, with the expectation
 * corrected by what the walk saw (a share measured on the newest posts beats the statistics;
 * nothing found means few matches, best read all at once).
 */
async function walkPage(
  sql: Sql,
  tsquery: string,
  page: Page,
  order: string,
  expected: { matches: number; share: number },
): Promise<number[] | null> {
  const need = page.offset + page.limit;
  const found = await walk(sql, tsquery, need, order);
  if (found.length === need) return found.slice(page.offset);
  const share = found.length / WALK_POSTS;
  expected.matches = expected.share > 0 ? (expected.matches / expected.share) * share : 0;
  expected.share = share;
  return null;
}

/** A tier: every post from day `from` on (`to` is the newest day with posts); null: every post. */
type DayTier = { from: number; to: number } | null;

/**
 * The tiers of newest days for `need` matches: the first holds the posts (of the languages) that
 * should hold them, as the statistics expect; each next one TIER_GROWTH times more; then every
 * post. None when so few matches are expected that reading them all costs less.
 */
async function dayTiers(
  sql: Sql,
  languageIds: readonly number[] | null,
  need: number,
  expected: { matches: number },
): Promise<DayTier[]> {
  const tiers: DayTier[] = [];
  if (expected.matches > need * TIER_MARGIN) {
    const perDay = await rows<{ day: number; n: number; total: number }>(
      sql,
      `SELECT day, sum(posts) AS n, sum(sum(posts)) OVER () AS total FROM post_days
        WHERE posts > 0 ${languageIds ? "AND language_id = ANY($2::int[])" : ""}
        GROUP BY day ORDER BY day DESC LIMIT $1`,
      languageIds ? [MAX_TIER_DAYS + 1, languageIds] : [MAX_TIER_DAYS + 1],
    );
    // The expected share among the posts in scope (the query holds the language facets).
    const share = Math.min(1, expected.matches / Math.max(1, perDay[0]?.total ?? 1));
    let target = Math.max(MIN_TIER_POSTS, (need / share) * TIER_MARGIN);
    let posts = 0;
    let days = 0;
    for (;;) {
      while (days < perDay.length && posts < target) posts += perDay[days++]!.n;
      if (posts < target || days >= perDay.length) break;
      tiers.push({ from: perDay[days - 1]!.day, to: perDay[0]!.day });
      target *= TIER_GROWTH;
    }
  }
  tiers.push(null);
  return tiers;
}

/** The query narrowed to a tier. */
function inTier(tsquery: string, tier: DayTier): string {
  return tier ? `(${tsquery}) & ${sinceDayFacet(tier.from, tier.to)}` : tsquery;
}

/** The ids of one date-ordered page (exact). */
async function newestPage(sql: Sql, tsquery: string, page: Page): Promise<number[]> {
  const need = page.offset + page.limit;
  const expected = await expectation(sql, tsquery);
  if (walkable(need, expected)) {
    const walked = await walkPage(sql, tsquery, page, "post_date DESC, id DESC", expected);
    if (walked) return walked;
  }
  for (const tier of await dayTiers(sql, page.languageIds, need, expected)) {
    const found = await rows<{ id: number }>(
      sql,
      `WITH m AS MATERIALIZED (SELECT p.id, p.post_date FROM posts p WHERE ${SEARCH_EXPRESSION} @@ $1::tsquery)
        SELECT id FROM m ORDER BY post_date DESC, id DESC LIMIT $2 OFFSET $3`,
      [inTier(tsquery, tier), page.limit, page.offset],
    );
    if (found.length === page.limit || tier === null) return found.map((r) => r.id);
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
  const expected = await expectation(sql, tsquery);
  for (const tier of await dayTiers(sql, page.languageIds, RANKED_NEWEST, expected)) {
    const score = SEARCH_SCORE.replaceAll("$1", "$4");
    // A tier (or a rare query) holds few more matches than are ranked: scored as they are found.
    // Every day of a common query holds many more: the newest are picked first and only they are
    // read again to be scored.
    const found = await rows<{ id: number; score: number; ranked: number }>(
      sql,
      tier || expected.matches <= 2 * RANKED_NEWEST
        ? `WITH m AS MATERIALIZED (SELECT p.id, p.post_date, ${score} AS score
              FROM posts p WHERE ${SEARCH_EXPRESSION} @@ $1::tsquery),
            newest AS MATERIALIZED (SELECT id, score FROM m ORDER BY post_date DESC, id DESC LIMIT ${RANKED_NEWEST})
            SELECT id, score, (SELECT count(*) FROM newest) AS ranked FROM newest
            ORDER BY score DESC, id DESC LIMIT $2 OFFSET $3`
        : `WITH m AS MATERIALIZED (SELECT p.id, p.post_date FROM posts p WHERE ${SEARCH_EXPRESSION} @@ $1::tsquery),
            newest AS MATERIALIZED (SELECT id FROM m ORDER BY post_date DESC, id DESC LIMIT ${RANKED_NEWEST})
            SELECT p.id, ${score} AS score, 0 AS ranked FROM newest JOIN posts p ON p.id = newest.id
            ORDER BY score DESC, p.id DESC LIMIT $2 OFFSET $3`,
      [inTier(tsquery, tier), page.limit, page.offset, words],
    );
    // An empty page of a tier says nothing about how many it ranked: only the last tier is sure.
    if (tier === null || (found.length > 0 && found[0]!.ranked >= RANKED_NEWEST)) return found;
  }
  return [];
}

/** The ids of one clicks-ordered page (exact): a walk, then the click tiers from the top. */
async function mostClickedPage(sql: Sql, tsquery: string, page: Page): Promise<number[]> {
  const need = page.offset + page.limit;
  const expected = await expectation(sql, tsquery);
  if (walkable(need, expected)) {
    const walked = await walkPage(sql, tsquery, page, "clicks DESC, id DESC", expected);
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
