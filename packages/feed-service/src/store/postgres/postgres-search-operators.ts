/**
 * Search with the operators of spec §4 on PostgreSQL (`word*`, `title:`, `feed:`, `lang:`,
 * `after:`, `before:`), with a cost bounded by the page, not by the posts in scope (spec §4
 * Latency). The words become one tsquery (prefixes and the title weight in its syntax:
 * postgres-term-operators.ts), matched through the operators' own GIN index (migration 16, see
 * the index below); the filters narrow the plan through the scope (postgres-operator-scope.ts:
 * languages and days as facets, and counted; feeds as facets or through posts_by_feed) and are
 * checked on the row as well. The plans (postgres-operator-plan.ts reads the query):
 * - relevance and date order with words: the newest matches from a tier of the newest days of the
 *   scope, within its date bounds, through GIN; relevance ranks the 10,000 newest, as spec §4
 *   allows. A tier that falls short sizes the next on the share of matches it measured;
 * - clicks order: tiers of click counts (postgres-operator-clicks.ts);
 * - no words: the scope's posts in date order through its indexes (many feeds: a tier of the
 *   newest days, as above).
 */
import type { SearchQuery } from "../../search/search-query.js";
import type { PostPage, PostRecord, SearchSort } from "../store.js";
import { POST_COLUMNS, POST_JOINS, Where } from "./postgres-columns.js";
import { rows, type Sql } from "./postgres-connection.js";
import { countedFeedClicksPage } from "./postgres-counted-feed-clicks.js";
import { countedFeedsPage } from "./postgres-counted-feeds.js";
import { withFeedTitles } from "./postgres-feed-titles.js";
import { withFeedWords } from "./postgres-feed-words.js";
import { fewMatchesPage } from "./postgres-few-matches.js";
import { mostClickedIds } from "./postgres-operator-clicks.js";
import { addMatching, type Expected, expected, type Plan, planOf } from "./postgres-operator-plan.js";
import { emptyScope, feedsInLanguages, ScopeDays, windowOf } from "./postgres-operator-scope.js";
import {
  MAX_SAMPLE_POSTS,
  MAX_TIER_SHARE,
  MIN_SAMPLE_MATCHES,
  MIN_TIER_POSTS,
  SAMPLE_POSTS,
  TIER_MARGIN,
} from "./postgres-plan-costs.js";
import { countedRangePage } from "./postgres-search-queries.js";
import { SEARCH_SCORE } from "./postgres-text-search.js";

/**
 * The operators' own GIN index (migration 16): each post's words and facets
 * (postgres-search-facets.ts) without the pairs of neighbouring words, plus the first three
 * letters of each word (` pfx pro`), each title word (` ttl the`, weight A in the vector) and the
 * post's feed (` feed 12`): lexemes no search word can equal (they start with a space). A prefix
 * of three letters is then one posting list that GIN intersects with the day facets by skipping,
 * where `'pro':*` collects the lists of every word beginning with it, whole (and in the word
 * plans' index, every pair lexeme too); a `feed:` of a few feeds and a `title:` word narrow inside
 * the index the same way (weights are not in GIN: a weighted query rechecks every post's vector,
 * read out of TOAST). Queries spell it as OPERATOR_EXPRESSION (postgres-operator-plan.ts).
 */
export const operatorIndexSchema = `
CREATE FUNCTION operator_facets(search_vector tsvector, feed_id integer) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN array_to_tsvector(ARRAY(SELECT DISTINCT ' pfx ' || left(w, 3) FROM unnest(tsvector_to_array(search_vector)) w
      WHERE length(w) >= 3)
    || ARRAY(SELECT ' ttl ' || w FROM unnest(tsvector_to_array(ts_filter(search_vector, '{a}'))) w
      WHERE octet_length(w) <= 2040)
    || ARRAY[' feed ' || feed_id]);
SET LOCAL maintenance_work_mem = '256MB';
CREATE INDEX posts_search_operators ON posts
  USING GIN ((search_vector || post_facets(post_date, language_id) || operator_facets(search_vector, feed_id)));
`;

/** Relevance ranks at most this many of the newest matches (spec §4). */
const RANKED_NEWEST = 10_000;

/**
 * The newest and oldest days with posts, whether the scope's own days narrow GIN (see
 * scopeFacet), and the scope's posts per day as one search has read them.
 */
type DayBounds = { newest: number; oldest: number; narrow: boolean; counted: ScopeDays };

/**
 * The newest days of the scope that hold `posts` posts (with a margin: estimates are rough), or
 * null when the whole scope is worth reading at once: those days would hold half its posts or
 * more (the statistics' count of them), where a tier that fell short would cost half again what
 * the whole does, as the word plans' tiers (postgres-search-plan.ts).
 */
async function tierHolding(
  guess: Expected,
  posts: number,
  days: DayBounds,
): Promise<{ first: number; posts: number } | null> {
  const target = Math.max(MIN_TIER_POSTS, posts * TIER_MARGIN);
  if (target > guess.base * guess.posts * MAX_TIER_SHARE) return null;
  return days.counted.holding(target);
}

/**
 * The share of matches among the newest posts of the scope (the days holding SAMPLE_POSTS of
 * them), counted through GIN as a tier reads them, in place of the statistics' guess for a query
 * they cannot estimate (Plan.estimable), as the word plans sample (postgres-search-plan.ts): a
 * tier sized on the guess alone fell short of `feed:日 the`'s matches and was read twice
 * (bench/NOTES.md). A sample with too few matches to measure a share still says the share is
 * small: at most MIN_SAMPLE_MATCHES in the sample. The guess when the newest days are too
 * crowded to count.
 */
async function sampleNewest(sql: Sql, plan: Plan, guess: Expected, days: DayBounds): Promise<number> {
  const sample = await days.counted.holding(SAMPLE_POSTS);
  if (sample === null || sample.posts > MAX_SAMPLE_POSTS) return guess.inBase;
  const where = addMatching(new Where(), plan, windowOf(plan.scope, sample.first), { ...days, narrow: true });
  const [row] = await rows<{ n: number }>(
    sql,
    `SELECT count(*)::int AS n FROM posts p ${where.sql}`,
    where.params,
  );
  const found = row!.n;
  if (found >= MIN_SAMPLE_MATCHES) return found / sample.posts;
  return Math.min(guess.inBase, MIN_SAMPLE_MATCHES / sample.posts);
}

/**
 * The `pool` newest matches of the words in scope, and of them the page in `order`: by score, or
 * by date (the date order's page is then the pool's end). They are read through GIN from a tier
 * of the newest days of the scope (its languages' days within its date bounds, `scope_days`), the
 * fewest that should hold `pool` matches (the day facets let GIN skip every older post), and
 * scored as they are read (`rank_vector`, a few bytes a post). A tier that falls short sizes the
 * next on the share of matches it found; the last is the whole scope. Exact: a tier is every
 * post of the scope since its first day, so the newest matches of a tier that holds `pool` are
 * the newest of all. Walking the posts in date order instead would read each one's vector out
 * of TOAST (bench/NOTES.md).
 */
async function newestTier(
  sql: Sql,
  plan: Plan & { words: string; index: string },
  guess: Expected,
  days: DayBounds,
  page: { pool: number; order: "score" | "date"; offset: number; limit: number },
): Promise<number[]> {
  let share = guess.inBase;
  // A guess that picks a tier is checked on the newest posts first (a guess that picks the whole
  // scope reads every match once whatever the share).
  if (!plan.estimable && (await tierHolding(guess, page.pool / Math.max(share, 1e-9), days)) !== null) {
    share = await sampleNewest(sql, plan, guess, days);
  }
  // The feeds' words drive when their matches are fewer than the word's candidates in the tier.
  const tierPosts = (page.pool * TIER_MARGIN) / Math.max(share, 1e-9);
  const read = withFeedTitles(withFeedWords(plan, guess, share, tierPosts), guess, share, tierPosts);
  // Through the feeds' words every tier reads the feeds' matches of all days again: a tier that
  // falls short is followed by the whole scope. Through every day of the title lists, no tier.
  let whole = read.feedTitles?.allDays === true;
  for (;;) {
    const tier = whole ? null : await tierHolding(guess, page.pool / Math.max(share, 1e-9), days);
    const where = new Where();
    if (page.order === "score") where.next(read.words); // $1, the words SEARCH_SCORE ranks
    addMatching(where, read, windowOf(plan.scope, tier?.first ?? null), {
      ...days,
      narrow: days.narrow || tier !== null,
    });
    // OFFSET 0 keeps the GIN lookup a plan of its own: told of the LIMIT, the planner could walk
    // the date index instead and test every post.
    const [found] = await rows<{ n: number; ids: number[] | null }>(
      sql,
      `WITH newest AS MATERIALIZED (
          SELECT id, post_date, score FROM (
            SELECT p.id, p.post_date, ${page.order === "score" ? SEARCH_SCORE : "0"} AS score FROM posts p ${where.sql} OFFSET 0) m
          ORDER BY post_date DESC, id DESC LIMIT ${where.next(page.pool)})
        SELECT (SELECT count(*) FROM newest)::int AS n, (SELECT array_agg(id) FROM (
          SELECT id FROM newest ORDER BY ${page.order === "score" ? "score DESC, id DESC" : "post_date DESC, id DESC"}
          LIMIT ${where.next(page.limit)} OFFSET ${where.next(page.offset)}) page) AS ids`,
      where.params,
    );
    if (tier === null || found!.n === page.pool) return (found!.ids ?? []).map(Number);
    // Fewer matches than the estimate said: the tier measured their share.
    share = Math.min(share / 2, found!.n / tier.posts);
    whole = read.feedWords !== null;
  }
}

/**
 * The scope's posts (no words), newest first. One feed, or none, in order from the scope's index
 * (posts_by_feed, posts_by_language, posts_by_date: the planner picks). Several feeds come from a
 * tier of the newest days, as newestTier's (their posts per day are not counted: the tier is
 * sized on the scope's days and the feeds' share of the posts, and measures that share when it
 * falls short), each feed's range of posts_by_feed read and sorted.
 */
async function newestListed(
  sql: Sql,
  plan: Plan,
  guess: Expected,
  days: DayBounds,
  page: { offset: number; limit: number },
): Promise<number[]> {
  const need = page.offset + page.limit;
  const several = (plan.scope.feedIds?.length ?? 0) > 1;
  let share = guess.inBase;
  for (;;) {
    const tier = several ? await tierHolding(guess, need / Math.max(share, 1e-9), days) : null;
    const where = addMatching(new Where(), plan, windowOf(plan.scope, tier?.first ?? null), days);
    const [found] = await rows<{ n: number; ids: number[] | null }>(
      sql,
      `WITH newest AS MATERIALIZED (
          SELECT p.id, p.post_date FROM posts p ${where.sql} ORDER BY p.post_date DESC, p.id DESC LIMIT ${where.next(need)})
        SELECT (SELECT count(*) FROM newest)::int AS n, (SELECT array_agg(id) FROM (
          SELECT id FROM newest ORDER BY post_date DESC, id DESC OFFSET ${where.next(page.offset)}) page) AS ids`,
      where.params,
    );
    if (tier === null || found!.n === need) return (found!.ids ?? []).map(Number);
    share = Math.min(share / 2, found!.n / tier.posts);
  }
}

/** The page's posts in order, each with its score (1 when the query has no words). */
async function postsOf(
  sql: Sql,
  plan: Plan,
  ids: readonly number[],
): Promise<Array<PostRecord & { score: number }>> {
  if (ids.length === 0) return [];
  const found =
    plan.words === null
      ? await rows<PostRecord & { score: number }>(
          sql,
          `SELECT ${POST_COLUMNS}, 1::float8 AS "score" FROM posts p ${POST_JOINS} WHERE p.id = ANY($1::int[])`,
          [ids],
        )
      : await rows<PostRecord & { score: number }>(
          sql,
          `SELECT ${POST_COLUMNS}, ${SEARCH_SCORE} AS "score" FROM posts p ${POST_JOINS} WHERE p.id = ANY($2::int[])`,
          [plan.words, ids],
        );
  const byId = new Map(found.map((r) => [r.postId, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** The ids of one page of `plan` in `sort` order. */
async function pageIds(
  sql: Sql,
  plan: Plan,
  sort: SearchSort,
  page: { offset: number; limit: number },
): Promise<number[]> {
  const guess = await expected(sql, plan);
  const days = {
    ...guess.bounds,
    // The scope's days narrow GIN when they leave out most posts (a tier's always do).
    narrow: guess.days <= MAX_TIER_SHARE,
    counted: new ScopeDays(sql, plan.scope, guess.bounds),
  };
  if (sort === "clicks") {
    // Whether to walk the clicked posts or read every match turns on the share: the rarest
    // clause's, far too high for words that seldom meet (`title:新 la`), is checked first.
    if (!plan.estimable && plan.index !== null) guess.inBase = await sampleNewest(sql, plan, guess, days);
    // Every match, when the walk does not pay: through the feeds' words when they drive.
    const scopePosts = guess.base * guess.posts;
    const all = withFeedTitles(
      withFeedWords(plan, guess, guess.inBase, scopePosts),
      guess,
      guess.inBase,
      scopePosts,
    );
    return mostClickedIds(sql, all, guess, days, page);
  }
  if (plan.words === null || plan.index === null) return newestListed(sql, plan, guess, days, page);
  const words = { ...plan, words: plan.words, index: plan.index };
  if (sort === "date") {
    return newestTier(sql, words, guess, days, { pool: page.offset + page.limit, order: "date", ...page });
  }
  if (page.offset >= RANKED_NEWEST) return [];
  const limit = Math.min(page.limit, RANKED_NEWEST - page.offset);
  return newestTier(sql, words, guess, days, {
    pool: RANKED_NEWEST,
    order: "score",
    offset: page.offset,
    limit,
  });
}

/**
 * `plan` with an empty scope when none of its feeds writes in its languages (feedsInLanguages):
 * answered without a read of their posts.
 */
export async function withWritingFeeds(sql: Sql, plan: Plan): Promise<Plan> {
  const scope = await feedsInLanguages(sql, plan.scope);
  return scope === plan.scope ? plan : { ...plan, scope };
}

/**
 * One page of a search that uses operators (`usesOperators(query)`), as `searchPosts` answers.
 * Relevance without words (`feed:name after:2026-01-01`) lists the posts newest first, each
 * scored 1.
 */
export async function searchWithOperators(
  sql: Sql,
  page: PostPage & { query: SearchQuery; sort: SearchSort },
): Promise<Array<PostRecord & { score: number }>> {
  if (page.limit === 0) return [];
  // Counted words within a date range, by date: from their counted days (postgres-search-queries.ts).
  const ranged = await countedRangePage(sql, page);
  if (ranged !== null) return ranged;
  const plan = await withWritingFeeds(sql, planOf(page.query, page.languageIds));
  if (emptyScope(plan.scope)) return [];
  const sort = plan.words === null && page.sort === "relevance" ? "date" : page.sort;
  // A counted word that a language or feeds leave few matches of: all of them read at once
  // (postgres-few-matches.ts).
  const few = await fewMatchesPage(sql, { ...page, sort }, plan);
  if (few !== null) return postsOf(sql, plan, few);
  // A counted word within feeds, by date: from the feeds' counted months (postgres-counted-feeds.ts).
  const counted = await countedFeedsPage(sql, { ...page, sort }, plan);
  if (counted !== null) return postsOf(sql, plan, counted);
  // And by clicks: from the feeds' clicked matches and counted blocks (postgres-counted-feed-clicks.ts).
  const clicked = await countedFeedClicksPage(sql, { ...page, sort }, plan);
  if (clicked !== null) return postsOf(sql, plan, clicked);
  return postsOf(sql, plan, await pageIds(sql, plan, sort, page));
}

/** How many posts a search with operators matches, up to `cap + 1` (see postgres-search-count.ts). */
export async function countWithOperators(
  sql: Sql,
  args: { query: SearchQuery; languageIds: readonly number[] | null; cap: number },
): Promise<number> {
  const plan = await withWritingFeeds(sql, planOf(args.query, args.languageIds));
  if (emptyScope(plan.scope)) return 0;
  // The matches, newest first, up to cap + 1: a tier of the newest days as the date order reads them.
  return (await pageIds(sql, plan, "date", { offset: 0, limit: args.cap + 1 })).length;
}
