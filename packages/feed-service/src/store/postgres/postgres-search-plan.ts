/**
 * How a PostgreSQL search is narrowed (see postgres-search-queries.ts): what it matches as GIN
 * sees it, what the statistics expect of it, short walks of the date and clicks indexes, and the
 * one tier (newest days, or most clicked posts) worth trying before the plain query.
 */
import { rows, type Sql, translatePostgresError } from "./postgres-connection.js";
import { DAY_MS } from "./postgres-page-seek.js";
import { clickTiersFacet, SEARCH_EXPRESSION, sinceDayFacet } from "./postgres-search-facets.js";

/** A walk of the date or clicks index reads at most this many posts before the tiers take over. */
export const WALK_POSTS = 1_000;
/** Tiers are sized for this many times the matches the statistics promise (they can be wrong). */
const TIER_MARGIN = 1.25;
/** A tier holds at least this many posts. */
const MIN_TIER_POSTS = 2_000;
/** Tiers reach back at most this many days with posts (past them, every post is searched). */
const MAX_TIER_DAYS = 1_000;
/** A relevance search keeps matches from a day on when that day's newest posts hold at most this share. */
const MAX_CUTOFF_SHARE = 0.75;
/** Click tiers tried before all posts: 16+ clicks, 8+, 4+, 2+, 1+. */
const CLICK_TIERS = [5, 4, 3, 2, 1];

/**
 * What a search matches: `index`, the query's lexemes and facets, which GIN answers exactly; and
 * when that is only a superset (the query holds a phrase), `verify`, the query itself, checked on
 * `search_vector` for the posts GIN hands over (see toSearchIndexTsquery).
 */
export interface Match {
  index: string;
  verify: string | null;
  /** The query without facets: what walks check, and what the score is computed for. */
  words: string;
  /**
   * Whether the statistics' estimate can be trusted: one word, in every language. Several words
   * are far from independent (`the new data` matches 5 times what their shares multiplied
   * promise), nor are words and languages (`the`, in 39% of all posts, is in 75% of those in
   * English or French), and the statistics know nothing of phrases, so a tier sized on the
   * estimate would read many times the matches it needs, or fall short.
   */
  estimable: boolean;
  languageIds: readonly number[] | null;
}

/**
 * The SQL condition for `match` narrowed by `facet` and to posts dated `since` or later, with its
 * parameters from `$first` on.
 */
export function condition(
  match: Match,
  facet: string | null,
  first: number,
  since: number | null = null,
): { sql: string; params: Array<string | number> } {
  const index = facet ? `(${match.index}) & ${facet}` : match.index;
  const parts = [`${SEARCH_EXPRESSION} @@ $${first}::tsquery`];
  const params: Array<string | number> = [index];
  if (match.verify !== null) {
    parts.push(`p.search_vector @@ $${first + params.length}::tsquery`);
    params.push(match.verify);
  }
  if (since !== null) {
    // `+ 0` keeps the date a filter on the matches GIN hands over: as an index condition, the
    // planner may walk the date index instead and test every post (73 against 27 ms on the demo).
    parts.push(`p.post_date + 0 >= $${first + params.length}`);
    params.push(since);
  }
  return { sql: parts.join(" AND "), params };
}

/** What the planner expects of a query: how many posts match, and what share of all posts. */
export interface Expected {
  matches: number;
  share: number;
}

/**
 * What the planner expects of the search, among posts with at least `minClicks` clicks when
 * given, from the statistics of `search_vector`, `language_id` and `clicks`. It sizes the walks
 * and tiers; only a guess (words are not independent), which is why every way it picks is exact
 * and falls back to the plain query. Not the search index's statistics: the pairs of neighbouring
 * words there outnumber the words, so a word in 3% of posts (天気) can miss its list of most common
 * elements and be taken for a rare one (5,004 posts expected, 34,008 found).
 */
export async function expectation(
  sql: Sql,
  match: Match,
  minClicks: number | null = null,
): Promise<Expected> {
  try {
    const params: unknown[] = [match.words];
    const where = ["p.search_vector @@ $1::tsquery"];
    if (match.languageIds) {
      params.push(match.languageIds);
      where.push(`p.language_id = ANY($${params.length}::int[])`);
    }
    if (minClicks !== null) {
      params.push(minClicks);
      where.push(`p.clicks >= $${params.length}`);
    }
    // Unnamed: planned for this very query, and no prepared statement per query text.
    const [plan] = (
      await sql.query(`EXPLAIN (FORMAT JSON) SELECT 1 FROM posts p WHERE ${where.join(" AND ")}`, params)
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
export function walkable(need: number, expected: { share: number }): boolean {
  return need <= (expected.share * WALK_POSTS) / 2;
}

/**
 * The first `need` matches in `order`, read by walking that order's index over at most
 * WALK_POSTS posts: all of them when that many lie among those posts, else the fewer found (the
 * walk then proves nothing about the page, but says how common the query is). The posts are
 * read anyway, so the query is checked on `search_vector` itself, never on the indexed
 * expression (which would rebuild each post's vector with its facets).
 */
export async function walk(sql: Sql, match: Match, need: number, order: string): Promise<number[]> {
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
export function correct(expected: Expected, found: number): void {
  const share = found / WALK_POSTS;
  expected.matches = expected.share > 0 ? (expected.matches / expected.share) * share : 0;
  expected.share = share;
}

/** Matches a sample must find before its share replaces the statistics' estimate. */
const MIN_SAMPLE_MATCHES = 10;

/**
 * The expectation of a query the statistics cannot estimate (see Match.estimable), corrected by
 * its share among the newest WALK_POSTS posts, where the tiers start. A sample with too few
 * matches to measure a share still says the share is small: at most MIN_SAMPLE_MATCHES in
 * WALK_POSTS (a rare phrase of common words, whose tier would read nearly every candidate twice).
 */
export async function sampleNewest(sql: Sql, match: Match, expected: Expected): Promise<void> {
  if (match.estimable) return;
  const found = await walk(sql, match, WALK_POSTS, "post_date DESC, id DESC");
  if (found.length >= MIN_SAMPLE_MATCHES) correct(expected, found.length);
  else if (expected.share * WALK_POSTS > MIN_SAMPLE_MATCHES) correct(expected, MIN_SAMPLE_MATCHES);
}

/**
 * The page from a walk when it found the whole page; otherwise null, with the expectation
 * corrected by what the walk saw (a share measured on the newest posts beats the statistics;
 * nothing found means few matches, best read all at once).
 */
export async function walkPage(
  sql: Sql,
  match: Match,
  page: { offset: number; limit: number },
  order: string,
  expected: Expected,
): Promise<number[] | null> {
  const need = page.offset + page.limit;
  const found = await walk(sql, match, need, order);
  if (found.length === need) return found.slice(page.offset);
  correct(expected, found.length);
  return null;
}

export interface DayCount {
  day: number;
  n: number;
  total: number;
}

/**
 * How long the posts per day that size the day tiers are reused before they are read again.
 * Adding them up reads every row of post_days (4 ms on the 1M-post demo, more than the rest of a
 * date search, 10 ms on a new connection); they only size a tier, whose facet always reaches the
 * newest day as read at the time, so a stale count can make a tier larger or smaller than it
 * should be, never an answer wrong. So a search past the reuse time is not held up by the reading:
 * it uses the counts it has and reads them again beside it, for the searches that follow; only the
 * first search of a scope waits for them.
 */
export const DAY_COUNTS_TTL_MS = 10_000;
interface DayCountsEntry {
  at: number;
  perDay: DayCount[];
  refreshing?: Promise<void>;
}
const dayCounts = new WeakMap<Sql, Map<string, DayCountsEntry>>();

/**
 * Posts per day in scope, newest first (up to MAX_TIER_DAYS + 1 days), with the total of all days.
 * `now` is the clock of the reuse time (tests move it).
 */
export async function postsPerDay(
  sql: Sql,
  languageIds: readonly number[] | null,
  now: () => number = Date.now,
): Promise<DayCount[]> {
  const cache = dayCounts.get(sql) ?? new Map<string, DayCountsEntry>();
  dayCounts.set(sql, cache);
  const key = languageIds?.join(",") ?? "";
  const read = async (): Promise<DayCountsEntry> => {
    const at = now();
    const perDay = await rows<DayCount>(
      sql,
      `SELECT day, sum(posts) AS n, sum(sum(posts)) OVER () AS total FROM post_days
        WHERE posts > 0 ${languageIds ? "AND language_id = ANY($2::int[])" : ""}
        GROUP BY day ORDER BY day DESC LIMIT $1`,
      languageIds ? [MAX_TIER_DAYS + 1, languageIds] : [MAX_TIER_DAYS + 1],
    );
    if (cache.size > 100) cache.clear();
    const entry = { at, perDay };
    cache.set(key, entry);
    return entry;
  };
  const cached = cache.get(key);
  if (cached === undefined) return (await read()).perDay;
  if (now() - cached.at >= DAY_COUNTS_TTL_MS && cached.refreshing === undefined) {
    // A failed reading leaves the old counts for the next search to try again.
    cached.refreshing = read().then(
      () => undefined,
      () => {
        cached.refreshing = undefined;
      },
    );
  }
  return cached.perDay;
}

/**
 * The first and the newest day with posts of the newest days that should hold `need` matches,
 * when they hold at most `maxShare` of the posts in scope (null when so few matches are expected
 * that reading them all costs less, or when those days hold more).
 */
async function newestDaysHolding(
  sql: Sql,
  languageIds: readonly number[] | null,
  need: number,
  expected: Pick<Expected, "matches">,
  maxShare: number,
): Promise<{ first: number; newest: number } | null> {
  if (expected.matches <= need * TIER_MARGIN) return null;
  const perDay = await postsPerDay(sql, languageIds);
  const total = perDay[0]?.total ?? 0;
  // The expected share among the posts in scope (the query holds the language facets).
  const share = Math.min(1, expected.matches / Math.max(1, total));
  const target = Math.max(MIN_TIER_POSTS, (need / share) * TIER_MARGIN);
  if (target > total * maxShare) return null;
  let posts = 0;
  let days = 0;
  while (days < perDay.length && posts < target) posts += perDay[days++]!.n;
  if (posts < target) return null;
  return { first: perDay[days - 1]!.day, newest: perDay[0]!.day };
}

/**
 * The newest days that should hold `need` matches, as a facet (null when there is none worth
 * trying: so few matches expected that reading them all costs less, or a tier that would hold
 * half the posts in scope or more, where the plain query costs about as much). Only one tier is
 * ever tried: when it falls short, the plain query follows, so that a wrong guess costs at most
 * half again what the plain query costs.
 */
export async function dayTier(
  sql: Sql,
  languageIds: readonly number[] | null,
  need: number,
  expected: Pick<Expected, "matches">,
): Promise<string | null> {
  const days = await newestDaysHolding(sql, languageIds, need, expected, 0.5);
  if (days === null) return null;
  // The tier is every post since its first day: up to the newest day now, not the counts' newest.
  const [newest] = await rows<{ day: number | null }>(sql, "SELECT max(day) AS day FROM post_days");
  return sinceDayFacet(days.first, Math.max(days.newest, newest?.day ?? 0));
}

/**
 * For a relevance search with no tier worth a GIN lookup of its own (the newest days that should
 * hold `need` matches hold half the posts or more, up to MAX_CUTOFF_SHARE): the start (epoch ms)
 * of those days, for the matches to be kept from as they are read. Every match is still read, but
 * only the kept ones are scored and sorted: on the 1M demo, 22,940 matches of '数据 -北京' 33 ms
 * against 27, 24,279 of 데이터 24-29 against 20 (the newest 55% of the posts). Null when none.
 * When those days hold fewer matches than expected, every match is read again: a wrong guess
 * costs up to about 1.8 times the plain query (a tier's, half again), for a word far rarer in the
 * days after the newest 1,000 posts than in those and in the statistics.
 */
export async function dayCutoff(
  sql: Sql,
  languageIds: readonly number[] | null,
  need: number,
  expected: Pick<Expected, "matches">,
): Promise<number | null> {
  const days = await newestDaysHolding(sql, languageIds, need, expected, MAX_CUTOFF_SHARE);
  return days === null ? null : days.first * DAY_MS;
}

/**
 * The click tier worth trying for `need` matches: the highest whose expected matches hold the
 * page, when it holds less than half the matches. Clicked posts lie all over the table, so a tier
 * holding many matches reads nearly as many pages as the plain query: past half, the plain query
 * runs at once (and a page among the posts with no click always comes from it).
 */
export async function clickTier(
  sql: Sql,
  match: Match,
  need: number,
  expected: Expected,
): Promise<string | null> {
  for (const lowest of CLICK_TIERS) {
    // Tier n holds 2^(n-1) clicks or more.
    const inTier = (await expectation(sql, match, 2 ** (lowest - 1))).matches;
    if (inTier * 2 > expected.matches) return null;
    if (inTier >= need * TIER_MARGIN) return clickTiersFacet(lowest);
  }
  return null;
}
