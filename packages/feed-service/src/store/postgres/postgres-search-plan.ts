/**
 * How a PostgreSQL search is narrowed (see postgres-search-queries.ts): what it matches as GIN
 * sees it, what the statistics expect of it, short walks of the date and clicks orders, and the
 * one tier (newest days, or most clicked posts) worth trying before the plain query.
 */
import { rows, type Sql, translatePostgresError } from "./postgres-connection.js";
import { pendingGate } from "./postgres-gin-pending.js";
import { postsInLanguages } from "./postgres-language-totals.js";
import { DAY_MS } from "./postgres-page-seek.js";
import {
  CLICK_TIERS,
  DAY_COUNTS_TTL_MS,
  HEAP_ROW_COST,
  MAX_CUTOFF_SHARE,
  MAX_SAMPLE_POSTS,
  MAX_TIER_DAYS,
  MAX_TIER_SHARE,
  MIN_SAMPLE_MATCHES,
  MIN_TIER_POSTS,
  SAMPLE_POSTS,
  STATISTICS_TTL_MS,
  TIER_MARGIN,
  TIER_POST_COST,
  WALK_POSTS,
} from "./postgres-plan-costs.js";
import { type Reading, reused } from "./postgres-reused-reading.js";
import { SEARCH_EXPRESSION, sinceDayBlocks, sinceDayFacet } from "./postgres-search-facets.js";

/** The order a walk takes (clicks order: postgres-clicked-walk.ts). */
export const DATE_ORDER = "post_date DESC, id DESC";

/**
 * What a search matches: `index`, the query's lexemes and facets, which GIN answers exactly; and
 * when that is only a superset (the query holds a phrase), `verify`, the query itself, checked on
 * `search_vector` for the posts GIN hands over (see toSearchIndexTsquery).
 */
export interface Match {
  index: string;
  verify: string | null;
  /**
   * The search index's query for posts to leave out (those holding an excluded word), found
   * positively and subtracted by id: exact while GIN's pending list moves, where its `!word` is
   * not (postgres-excluded-words.ts).
   */
  subtract?: string | null;
  /**
   * A one-row relation whose `settled` column says whether the search index's pending list was
   * empty once the statement's snapshot was taken (postgres-gin-pending.ts): then
   * GIN's `!word` is exact for every post the statement can see, and `verify` and `subtract`,
   * there for the excluded words alone, are skipped.
   */
  gate?: string | null;
  /** The query without facets: what walks check, and what the score is computed for. */
  words: string;
  /**
   * Whether the statistics' estimate can be trusted: one word, in every language. Several words
   * are far from independent, nor are words and languages (figures in bench/NOTES.md), and the
   * statistics know nothing of phrases (https://www.postgresql.org/docs/current/planner-stats.html),
   * so a tier sized on the estimate would read many times the matches it needs, or fall short.
   */
  estimable: boolean;
  languageIds: readonly number[] | null;
  /**
   * Whether a post whose title and feed name words (`rank_vector`, the weight A and B part of
   * `search_vector`: migration 5) match the query matches it: true when the query excludes
   * nothing, as a query without `!` only asks for lexemes (and their positions) to be present
   * (https://www.postgresql.org/docs/current/textsearch-controls.html). Walks then check the
   * small vector first and read `search_vector` out of TOAST only for the others (vectorCheck).
   */
  titleImplies?: boolean;
  /**
   * The positive clauses of the query, each an OR of terms, each term the words GIN must find
   * together (a phrase's words); null for a term whose lexemes are not known ahead (a prefix).
   * Sizes the posting list GIN skips along (rarestList).
   */
  clauses?: ReadonlyArray<ReadonlyArray<readonly string[] | null>>;
}

/**
 * The check of the query (parameter `$n`) on a post a walk reads anyway: on `rank_vector` first
 * when that settles it (Match.titleImplies), and on `search_vector` only when it does not. OR
 * keeps its order in the plan (the planner orders the ANDed conditions, not an OR's arms), so a
 * post matched by its title never has its vector read out of TOAST (figures in bench/NOTES.md).
 */
export function vectorCheck(match: Match, n: number): string {
  const full = `p.search_vector @@ $${n}::tsquery`;
  return match.titleImplies === true ? `(p.rank_vector @@ $${n}::tsquery OR ${full})` : full;
}

/**
 * The SQL condition for `match` narrowed by `facet` and to posts dated `since` or later, with its
 * parameters from `$first` on: `SELECT ... FROM ${from} WHERE ${sql}`, where `from` gives the
 * posts as `p`.
 */
export function condition(
  match: Match,
  facet: string | null,
  first: number,
  since: number | null = null,
): { from: string; sql: string; params: Array<string | number> } {
  const index = facet ? `(${match.index}) & ${facet}` : match.index;
  const parts = [`${SEARCH_EXPRESSION} @@ $${first}::tsquery`];
  const params: Array<string | number> = [index];
  // Checks there for the excluded words alone are skipped when the gate says GIN settles them.
  const gated = (check: string) => (match.gate ? `(g.settled OR ${check})` : check);
  if (match.verify !== null) {
    parts.push(gated(`p.search_vector @@ $${first + params.length}::tsquery`));
    params.push(match.verify);
  }
  if (match.subtract) {
    parts.push(
      gated(
        `p.id NOT IN (SELECT p.id FROM posts p WHERE ${SEARCH_EXPRESSION} @@ $${first + params.length}::tsquery)`,
      ),
    );
    params.push(facet ? `(${match.subtract}) & ${facet}` : match.subtract);
  }
  if (since !== null) {
    // `+ 0` keeps the date a filter on the matches GIN hands over: as an index condition, the
    // planner may walk the date index instead and test every post (figures in bench/NOTES.md).
    parts.push(`p.post_date + 0 >= $${first + params.length}`);
    params.push(since);
  }
  if (!match.gate) return { from: "posts p", sql: parts.join(" AND "), params };
  // The gate is read before the index: the posts are a subquery of its row (LATERAL, kept apart
  // by OFFSET 0), which the nested loop runs only once that row is read, after the snapshot.
  return {
    from: `${match.gate} g CROSS JOIN LATERAL (SELECT p.* FROM posts p WHERE ${parts.join(" AND ")} OFFSET 0) p`,
    sql: "true",
    params,
  };
}

/** What the planner expects of a query: how many posts match, and what share of all posts. */
export interface Expected {
  matches: number;
  share: number;
}

/**
 * What the planner expects of the search, from the statistics of `search_vector` and
 * `language_id`. It sizes the walks
 * and tiers; only a guess (words are not independent), which is why every way it picks is exact
 * and falls back to the plain query. Not the search index's statistics: the pairs of neighbouring
 * words there outnumber the words, so a fairly common word can miss its list of most common
 * elements and be taken for a rare one (bench/NOTES.md).
 */
export async function expectation(sql: Sql, match: Match): Promise<Expected> {
  try {
    const params: unknown[] = [match.words];
    const where = ["p.search_vector @@ $1::tsquery"];
    if (match.languageIds) {
      params.push(match.languageIds);
      where.push(`p.language_id = ANY($${params.length}::int[])`);
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
 * read anyway, so the query is checked on their vectors (vectorCheck), never on the indexed
 * expression (which would rebuild each post's vector with its facets).
 */
export async function walk(sql: Sql, match: Match, need: number, order: string): Promise<number[]> {
  const language = match.languageIds ? "AND p.language_id = ANY($4::int[])" : "";
  const source =
    "SELECT p.id, p.post_date, p.clicks, p.language_id, p.search_vector, p.rank_vector FROM posts p";
  const found = await rows<{ id: number }>(
    sql,
    `SELECT p.id FROM (SELECT * FROM (${source}) p ORDER BY ${order} LIMIT $3) p
      WHERE ${vectorCheck(match, 1)} ${language} ORDER BY ${order} LIMIT $2`,
    [match.words, need, WALK_POSTS, ...(match.languageIds ? [match.languageIds] : [])],
  );
  return found.map((r) => r.id);
}

/** The expectation corrected by a walk or sample that found `found` matches among `posts` posts. */
export function correct(expected: Expected, found: number, posts = WALK_POSTS): void {
  const share = found / posts;
  expected.matches = expected.share > 0 ? (expected.matches / expected.share) * share : 0;
  expected.share = share;
}

/**
 * The statistics' list of the most common words of `search_vector` with their shares of the
 * posts, and the share of the least common of them (null when they list none). The planner knows
 * nothing of a word missing from that list but that it is rarer: it expects it in min(0.5%, half
 * that share) of the posts, whatever its real share below it (PostgreSQL's
 * src/backend/tsearch/ts_selfuncs.c; a demo case in bench/NOTES.md).
 */
interface WordShares {
  shares: ReadonlyMap<string, number>;
  least: number | null;
}

async function wordShares(sql: Sql): Promise<WordShares> {
  return reused(statistics, sql, "", STATISTICS_TTL_MS, Date.now, async () => {
    const [row] = await rows<{ words: string[] | null; freqs: number[] | null }>(
      sql,
      `SELECT s.most_common_elems::text::text[] AS words, s.most_common_elem_freqs::float8[] AS freqs
        FROM pg_stats s
        WHERE s.schemaname = current_schema() AND s.tablename = 'posts' AND s.attname = 'search_vector'`,
    );
    const words = row?.words ?? [];
    const freqs = row?.freqs ?? [];
    // The frequencies are followed by the least, the greatest and the null share of the words.
    return {
      shares: new Map(words.map((w, i) => [w, freqs[i]!])),
      least: words.length > 0 ? (freqs[words.length] ?? null) : null,
    };
  });
}
const statistics = new WeakMap<Sql, Map<string, Reading<WordShares>>>();

/** The share of posts holding the least common of the words the statistics list (see wordShares). */
async function leastCommonShare(sql: Sql): Promise<number | null> {
  return (await wordShares(sql)).least;
}

/**
 * The posts of the shortest posting list GIN can skip along for `match` (the positive clause, or
 * the languages' facet, with the fewest posts), as the statistics of the words and the posts per
 * language count them: at least the matches expected. GIN's fast scan walks the least frequent
 * entries a match cannot do without and only skips through the others (PostgreSQL's
 * src/backend/access/gin/ginget.c, startScanKey), so this is what the plain query passes over.
 * A word the statistics do not list counts as the planner counts it (see wordShares); a prefix
 * counts as every post (its lexemes are not known ahead).
 */
async function rarestList(sql: Sql, match: Match, expected: Expected): Promise<number> {
  const total = expected.share > 0 ? expected.matches / expected.share : 0;
  let rarest = total;
  if (match.clauses !== undefined) {
    const { shares, least } = await wordShares(sql);
    const unlisted = Math.min(0.005, (least ?? 0.01) / 2);
    for (const clause of match.clauses) {
      let share = 0;
      for (const words of clause) {
        share += words === null ? 1 : Math.min(1, ...words.map((w) => shares.get(w) ?? unlisted));
      }
      rarest = Math.min(rarest, Math.min(1, share) * total);
    }
  }
  if (match.languageIds) rarest = Math.min(rarest, await postsInLanguages(sql, match.languageIds));
  return Math.max(rarest, expected.matches);
}

/**
 * Reads what sizes searches on `sql` ahead of the first one (the posts per day of all languages,
 * the statistics' least common word share, the pending list's gate), which it would otherwise wait for.
 */
export async function readSearchPlanning(sql: Sql): Promise<void> {
  await Promise.all([postsPerDay(sql, null), wordShares(sql), pendingGate(sql)]);
}

/** How many of the newest days (`perDay`, newest first) it takes to hold `target` posts, and their posts. */
function newestDaysReaching(perDay: readonly DayCount[], target: number): { days: number; posts: number } {
  let posts = 0;
  let days = 0;
  while (days < perDay.length && posts < target) posts += perDay[days++]!.n;
  return { days, posts };
}

/**
 * Matches among the posts of the newest days holding SAMPLE_POSTS (all languages; the query
 * holds its language facets), counted through GIN, which reads no post's vector, unlike a walk of
 * the newest posts (figures in bench/NOTES.md). A day
 * crowded past MAX_SAMPLE_POSTS would make the count read too many matches: the walk then.
 */
async function newestSample(sql: Sql, match: Match): Promise<{ found: number; posts: number }> {
  const perDay = await postsPerDay(sql, null);
  const { days, posts } = newestDaysReaching(perDay, SAMPLE_POSTS);
  if (posts > 0 && posts <= MAX_SAMPLE_POSTS) {
    const where = condition(match, sinceDayFacet(perDay[days - 1]!.day, perDay[0]!.day), 1);
    const [row] = await rows<{ n: number }>(
      sql,
      `SELECT count(*)::int AS n FROM ${where.from} WHERE ${where.sql}`,
      where.params,
    );
    return { found: row!.n, posts };
  }
  const found = await walk(sql, match, WALK_POSTS, DATE_ORDER);
  return { found: found.length, posts: WALK_POSTS };
}

/**
 * The expectation of a query the statistics cannot estimate (see Match.estimable, and a word
 * missing from their list of most common ones: see leastCommonShare), corrected by its share
 * among the newest posts, where the tiers start. A sample with too few matches to measure a share
 * still says the share is small: at most MIN_SAMPLE_MATCHES in the sample (a rare phrase of
 * common words, whose tier would read nearly every candidate twice).
 */
export async function sampleNewest(sql: Sql, match: Match, expected: Expected): Promise<void> {
  if (match.estimable) {
    const least = await leastCommonShare(sql);
    if (least !== null && expected.share >= least) return;
  }
  const { found, posts } = await newestSample(sql, match);
  if (found >= MIN_SAMPLE_MATCHES) correct(expected, found, posts);
  else if (expected.share * posts > MIN_SAMPLE_MATCHES) correct(expected, MIN_SAMPLE_MATCHES, posts);
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
 * The posts per day that size the day tiers, reused for DAY_COUNTS_TTL_MS before they are read again. Adding
 * them up reads rows of scope_days in scope (bench/NOTES.md); they only size a tier, whose facet always
 * reaches the newest day as read at the time, so a stale count can make a tier larger or smaller
 * than it should be, never an answer wrong. So a search past the reuse time is not held up by the
 * reading: it uses the counts it has and reads them again beside it, for the searches that follow;
 * only the first search of a scope waits for them.
 */
const dayCounts = new WeakMap<Sql, Map<string, Reading<DayCount[]>>>();

/**
 * Posts per day in scope, newest first (up to MAX_TIER_DAYS + 1 days), with the total of all days.
 * `now` is the clock of the reuse time (tests move it).
 */
export async function postsPerDay(
  sql: Sql,
  languageIds: readonly number[] | null,
  now: () => number = Date.now,
): Promise<DayCount[]> {
  return reused(dayCounts, sql, languageIds?.join(",") ?? "", DAY_COUNTS_TTL_MS, now, () => {
    if (languageIds !== null && languageIds.length > 1) {
      // Several languages: their rows of every day, read together (no index gives their days in order).
      return rows<DayCount>(
        sql,
        `SELECT day, sum(posts) AS n, sum(sum(posts)) OVER () AS total FROM scope_days
          WHERE posts > 0 AND language_id = ANY($2::int[]) GROUP BY day ORDER BY day DESC LIMIT $1`,
        [MAX_TIER_DAYS + 1, languageIds],
      );
    }
    // All languages (scope_days_by_day) or one (scope_days_by_language), newest day first, stopped
    // at the days a tier may reach; the total from language_totals, kept from scope_days by its
    // triggers (the same posts), instead of adding up every day of history (bench/NOTES.md).
    const language = languageIds === null ? "true" : "language_id = $2::int";
    return rows<DayCount>(
      sql,
      `SELECT d.day, d.n, t.total FROM (
          SELECT day, sum(posts) AS n FROM scope_days WHERE posts > 0 AND ${language}
          GROUP BY day ORDER BY day DESC LIMIT $1
        ) d, (SELECT coalesce(sum(posts), 0) AS total FROM language_totals WHERE ${language}) t
        ORDER BY d.day DESC`,
      languageIds === null ? [MAX_TIER_DAYS + 1] : [MAX_TIER_DAYS + 1, languageIds[0]],
    );
  });
}

/**
 * The first and the newest day with posts of the newest days that should hold `need` matches,
 * when they hold at most `maxShare` of the posts in scope (null when so few matches are expected
 * that reading them all costs less, or when those days hold more), with the posts per day in
 * scope they were found in.
 */
async function newestDaysHolding(
  sql: Sql,
  languageIds: readonly number[] | null,
  need: number,
  expected: Pick<Expected, "matches">,
  maxShare: number,
): Promise<{ first: number; newest: number; perDay: DayCount[] } | null> {
  if (expected.matches <= need * TIER_MARGIN) return null;
  const perDay = await postsPerDay(sql, languageIds);
  const total = perDay[0]?.total ?? 0;
  // The expected share among the posts in scope (the query holds the language facets).
  const share = Math.min(1, expected.matches / Math.max(1, total));
  const target = Math.max(MIN_TIER_POSTS, (need / share) * TIER_MARGIN);
  if (target > total * maxShare) return null;
  const { days, posts } = newestDaysReaching(perDay, target);
  if (posts < target) return null;
  return { first: perDay[days - 1]!.day, newest: perDay[0]!.day, perDay };
}

/**
 * The cost, in items GIN passes over, of a query whose rarest posting list holds `word` posts
 * (see rarestList; `share` of the posts match) in the tier of every post from day `first` to
 * `newest`: GIN walks every item of the tier's blocks that hold fewer posts than that list (then
 * the list itself, when a larger block is left, which it only skips through), and every match in
 * the tier is read.
 */
export function tierCost(
  first: number,
  newest: number,
  postsOn: Map<number, number>,
  word: number,
  share: number,
): number {
  let walked = 0;
  let skipped = false;
  let posts = 0;
  for (const block of sinceDayBlocks(first, newest)) {
    let n = 0;
    for (let day = block.first; day < block.first + block.days; day++) n += postsOn.get(day) ?? 0;
    posts += n;
    if (n < word) walked += n;
    else skipped = true;
  }
  return walked + (skipped ? word : 0) + HEAP_ROW_COST * share * posts;
}

/**
 * Whether a tier that costs GIN `tier` items (tierCost) is worth a try before the plain query,
 * which passes over the rarest list (rarestList) and reads every match: not when its blocks
 * that GIN walks whole cost more than that (a word that seldom meets a language, whose estimate
 * the statistics take from each alone: bench/NOTES.md).
 */
export function tierWorthTrying(tier: number, rarest: number, expected: Pick<Expected, "matches">): boolean {
  return tier < rarest + HEAP_ROW_COST * expected.matches;
}

/**
 * The newest days that should hold `need` matches, as a facet (null when there is none worth
 * trying: so few matches expected that reading them all costs less, or a tier that would hold
 * half the posts in scope or more, where the plain query costs about as much). Only one tier is
 * ever tried: when it falls short, the plain query follows, so that a wrong guess costs at most
 * half again what the plain query costs.
 *
 * A one-word tier may start at its first day's week instead, when that costs less (tierCost): the
 * days before a week's start are small blocks that GIN walks whole, while for a word in 1-8% of
 * the posts their week holds more posts than the word and is only skipped through (bench/NOTES.md).
 * No tier either when it costs GIN more than the plain query (tierCost against rarestList).
 */
export async function dayTier(
  sql: Sql,
  match: Match,
  need: number,
  expected: Expected,
): Promise<string | null> {
  const days = await newestDaysHolding(sql, match.languageIds, need, expected, MAX_TIER_SHARE);
  if (days === null) return null;
  // The tier is every post since its first day: up to the newest day now, not the counts' newest.
  const [newest] = await rows<{ day: number | null }>(
    sql,
    "SELECT max(day) AS day FROM scope_days WHERE posts > 0",
  );
  const last = Math.max(days.newest, newest?.day ?? 0);
  let first = days.first;
  // GIN's time blocks hold every language: a tier's cost counts all posts per day.
  const perDay = match.languageIds ? await postsPerDay(sql, null) : days.perDay;
  const postsOn = new Map(perDay.map((d) => [d.day, d.n]));
  const rarest = await rarestList(sql, match, expected);
  const cost = (from: number) => tierCost(from, last, postsOn, rarest, expected.share);
  const weekStart = first - (((first % 7) + 7) % 7);
  if (match.estimable && weekStart !== first && cost(weekStart) < cost(first)) first = weekStart;
  return tierWorthTrying(cost(first), rarest, expected) ? sinceDayFacet(first, last) : null;
}

/**
 * For a relevance search with no tier worth a GIN lookup of its own (the newest days that should
 * hold `need` matches hold half the posts or more, up to MAX_CUTOFF_SHARE): the start (epoch ms)
 * of those days, for the matches to be kept from as they are read. Every match is still read, but
 * only the kept ones are scored and sorted (figures in bench/NOTES.md). Null when none.
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
 * The least click count worth a tier for `need` matches: the highest of CLICK_TIERS whose posts
 * (counted in clicked_posts, up to what the plain query costs) should hold the page, when reading
 * them costs less than the plain query (null otherwise). The tier reads each of those posts and
 * checks the query on `search_vector`: its cost grows with the posts in it, the plain query's with
 * the matches (TIER_POST_COST relates the two). A tier that fills the page answers exactly: every
 * post outside it has fewer clicks.
 */
export async function clickTier(sql: Sql, need: number, expected: Expected): Promise<number | null> {
  const budget = Math.floor(expected.matches / TIER_POST_COST);
  for (const least of CLICK_TIERS) {
    const [row] = await rows<{ n: number }>(
      sql,
      "SELECT count(*)::int AS n FROM (SELECT 1 FROM clicked_posts WHERE clicks >= $1 LIMIT $2) k",
      [least, budget + 1],
    );
    if (row!.n > budget) return null;
    if (row!.n * expected.share >= need * TIER_MARGIN) return least;
  }
  return null;
}
