/**
 * Full-text search on PostgreSQL (operation 1, and the smart categories built on it), with a cost
 * bounded by the page, not by how many posts match (spec §4 Latency):
 *
 * - `date`: a short walk of the date index when the statistics say the page lies in its first
 *   posts; else the query is run on the newest days only (a tier: time facets, sized from
 *   `post_days` and the statistics to hold the page's matches), then, when that tier falls short,
 *   on all posts. A tier whose matches fill the page answers exactly: every post outside it is older.
 * - `relevance`: for a query in nearly every post, one walk of the date order scores the 10,000
 *   newest matches as it finds them (rankedWalk); else the same tier finds the 10,000 newest
 *   matches (all of them when fewer match),
 *   and only those are ranked, as spec §4 allows. When no tier is worth it but the newest three
 *   quarters of the posts or fewer should hold 10,000 matches, older matches are dropped as they
 *   are read (a date cutoff): fewer to score and sort.
 * - `clicks`: when the posts with 8 or more clicks should hold the page (a common word), their own
 *   words' GIN index (postgres-clicked-words.ts, migration 42), exact when it fills the page; else
 *   a walk of the clicks order (clicked_posts by (clicks, id), then the unclicked posts
 *   by id) testing each post in batches sized from the share of matches seen
 *   (postgres-clicked-walk.ts), while that costs less than reading every match; else the highest
 *   tier of click counts (16 or more, 8 or more, ...) expected to hold the page, read from
 *   clicked_posts and checked, then all matches; a tier that fills the page answers exactly:
 *   every post outside it has fewer clicks.
 *
 * One tier at most, never a widening series: a tier holds under half the posts in scope, so a
 * wrong guess costs at most half again the plain query, and every search answers about as fast as
 * the plain GIN query or faster. Each tier is one GIN lookup of the query's lexemes ANDed with its
 * facets (see postgres-search-facets.ts) and a phrase's pairs of neighbouring words
 * (postgres-phrase-pairs.ts), the phrases those do not settle checked on `search_vector`, and
 * the page's columns are read for its ids only. The walks and the tier sizing are in
 * postgres-search-plan.ts.
 */
import { isFilter, type SearchQuery, usesOperators } from "../../search/search-query.js";
import { termPhrase } from "../../search/term-phrase.js";
import type { PostPage, PostRecord, SearchSort } from "../store.js";
import { walkClicked } from "./postgres-clicked-walk.js";
import { clickedWordsHold, clickedWordsPage } from "./postgres-clicked-words.js";
import { POST_COLUMNS, POST_JOINS } from "./postgres-columns.js";
import { rows, type Sql } from "./postgres-connection.js";
import { countedRangeClicksPage } from "./postgres-counted-click-ranges.js";
import { countedClicksPage } from "./postgres-counted-clicks.js";
import { type CountedRange, countedDays, NO_DAY } from "./postgres-counted-searches.js";
import { settleExclusions } from "./postgres-excluded-words.js";
import { postsInLanguages } from "./postgres-language-totals.js";
import { DAY_MS } from "./postgres-page-seek.js";
import { toSearchIndexTsquery } from "./postgres-phrase-pairs.js";
import {
  COUNTED_BLOCK_IDS,
  SEEK_FROM_OFFSET,
  TIER_MARGIN,
  TIER_POST_COST,
  WALK_POSTS,
} from "./postgres-plan-costs.js";
import { titledNewestPage } from "./postgres-ranked-newest.js";
import {
  type CurrentFeedNames,
  matchesAtMost,
  plainWord,
  singleWord,
  titledPage,
} from "./postgres-ranked-titles.js";
import { dayRangeFacet, languagesFacet } from "./postgres-search-facets.js";
import { type SearchKey, searchKey } from "./postgres-search-key.js";
import {
  clickTier,
  condition,
  DATE_ORDER,
  dayCutoff,
  dayTier,
  type Expected,
  expectation,
  type Match,
  sampleNewest,
  vectorCheck,
  walkable,
  walkPage,
} from "./postgres-search-plan.js";
import { SEARCH_SCORE, toTsquery } from "./postgres-text-search.js";

/** Relevance ranks at most this many of the newest matches (spec §4). */
export const RANKED_NEWEST = 10_000;

type Page = PostPage & { query: SearchQuery; sort: SearchSort };

/** A date range of the posts (spec §4 `after:`, `before:`): epoch ms, `from` inclusive, `until` exclusive. */
export interface DateRange {
  from: number | null;
  until: number | null;
}

/**
 * The days of `range` as a counted search's days are kept (postgres-counted-searches.ts): its
 * whole days, and the matches of a day it starts or ends within counted exactly (one day's
 * matches each, through the day's facet); null when the range holds no day.
 */
async function rangeDays(sql: Sql, match: Match, range: DateRange): Promise<CountedRange | null> {
  const first = range.from === null ? null : Math.floor(range.from / DAY_MS);
  const last = range.until === null ? null : Math.floor((range.until - 1) / DAY_MS);
  if (first !== null && last !== null && first > last) return null;
  const cut = new Set<number>();
  if (first !== null && range.from! > first * DAY_MS) cut.add(first);
  if (last !== null && range.until! < (last + 1) * DAY_MS) cut.add(last);
  const counts =
    cut.size === 0
      ? []
      : await (async () => {
          const facet = `(${[...cut].map((d) => dayRangeFacet(d, d)).join(" | ")})`;
          const where = rangeCondition(match, facet, range);
          return rows<{ day: number; n: number }>(
            sql,
            `SELECT post_day(p.post_date) AS day, count(*)::int AS n FROM ${where.from} WHERE ${where.sql} GROUP BY 1`,
            where.params,
          );
        })();
  // The whole days between (none when one day is cut at both ends).
  return {
    first: first === null ? NO_DAY.first : cut.has(first) ? first + 1 : first,
    last: last === null ? NO_DAY.last : cut.has(last) ? last - 1 : last,
    cut: [...cut].map((day) => ({ day, n: counts.find((c) => c.day === day)?.n ?? 0 })),
  };
}

/** `condition` (its parameters from $1) with the range's bounds checked on each match. */
function rangeCondition(match: Match, facet: string, range: DateRange, first = 1) {
  const where = condition(match, facet, first);
  const bounds: string[] = [];
  // `+ 0`: checks on the matches GIN hands over, never a walk of the date index (see condition).
  for (const [bound, op] of [
    [range.from, ">="],
    [range.until, "<"],
  ] as const) {
    if (bound === null) continue;
    where.params.push(bound);
    bounds.push(`p.post_date + 0 ${op} $${first + where.params.length - 1}::bigint`);
  }
  return { ...where, sql: [where.sql, ...bounds].join(" AND ") };
}

/**
 * The ids of one date-ordered page of a counted search (a smart category's query or a common
 * word: see postgres-counted-searches.ts), within `range` when given: the matches of the days the
 * page spans, as their counts say, skipping the newer ones of its first day. Null when the search
 * is not counted, or when the days held other than the counts said (a write between the two
 * reads): the page is then found as any search's is.
 */
async function countedPage(
  sql: Sql,
  match: Match,
  key: SearchKey,
  page: Page,
  range: DateRange = { from: null, until: null },
): Promise<number[] | null> {
  const ranged = range.from !== null || range.until !== null;
  const counted = await countedDays(
    sql,
    key,
    match.languageIds,
    page,
    ranged ? () => rangeDays(sql, match, range) : undefined,
  );
  if (counted === null) return null;
  const { days: spanned, total } = counted;
  const expected = Math.max(0, Math.min(page.limit, total - page.offset));
  if (spanned.length === 0) return expected === 0 ? [] : null;
  const newest = spanned[0]!;
  const skip = page.offset - (newest.running - newest.n);
  const facet = dayRangeFacet(spanned[spanned.length - 1]!.day, newest.day);
  const where = ranged ? rangeCondition(match, facet, range, 3) : condition(match, facet, 3);
  const found = await rows<{ id: number }>(
    sql,
    `WITH m AS MATERIALIZED (SELECT p.id, p.post_date FROM ${where.from} WHERE ${where.sql})
      SELECT id FROM m ORDER BY post_date DESC, id DESC LIMIT $1 OFFSET $2`,
    [page.limit, skip, ...where.params],
  );
  return found.length === expected ? found.map((r) => r.id) : null;
}

/**
 * The ids of one date-ordered page (exact): a walk, the days of a counted search, one tier of
 * the newest days, all matches. The walk goes first: a page among the newest posts costs it a few
 * hundred posts, where the counts' days of a common word are a window over all its days.
 */
async function newestPage(sql: Sql, match: Match, page: Page): Promise<number[]> {
  const need = page.offset + page.limit;
  const expected = await expectation(sql, match);
  const walk = walkable(need, expected);
  if (walk) {
    const walked = await walkPage(sql, match, page, DATE_ORDER, expected);
    if (walked) return walked;
  }
  const key = searchKey(page.query);
  const counted = key === null ? null : await countedPage(sql, match, key, page);
  if (counted !== null) return counted;
  if (!walk) await sampleNewest(sql, match, expected);
  const tier = await dayTier(sql, match, need, expected);
  for (const facet of tier ? [tier, null] : [null]) {
    const where = condition(match, facet, 3);
    const found = await rows<{ id: number }>(
      sql,
      `WITH m AS MATERIALIZED (SELECT p.id, p.post_date FROM ${where.from} WHERE ${where.sql})
        SELECT id FROM m ORDER BY post_date DESC, id DESC LIMIT $1 OFFSET $2`,
      [page.limit, page.offset, ...where.params],
    );
    // A tier whose matches fill the page answers exactly: every post outside it is older.
    if (found.length === page.limit || facet === null) return found.map((r) => r.id);
  }
  return [];
}

/**
 * The ids and scores of one relevance page, from one walk of the date order that tests each post
 * and scores each match until the 10,000 newest are found; null when the walk would read more
 * posts than a tier's matches (it reads about 10,000 / share posts, a tier 10,000 x TIER_MARGIN
 * matches: so only for a query in nearly every post), or when it found fewer within the posts the
 * share foretold (then the tiers answer). The walk reads posts in the order ranking keeps them,
 * so no sort by date and no GIN lookup of a word nearly every post holds.
 */
async function rankedWalk(
  sql: Sql,
  match: Match,
  page: Page,
  expected: Expected,
): Promise<Array<{ id: number; score: number }> | null> {
  // One language or all: posts_by_language or posts_by_date gives the order (for a list of
  // languages the planner reads them all and sorts them instead).
  const languageId = match.languageIds?.length === 1 ? match.languageIds[0]! : null;
  if (match.languageIds && languageId === null) return null;
  // The share among the posts walked: of the language's posts when the query has one.
  const share =
    languageId === null
      ? expected.share
      : Math.min(1, expected.matches / Math.max(1, await postsInLanguages(sql, [languageId])));
  if (RANKED_NEWEST / Math.max(share, 1e-9) > RANKED_NEWEST * TIER_MARGIN) return null;
  const posts = Math.ceil((RANKED_NEWEST / share) * TIER_MARGIN);
  const language = languageId === null ? "" : "WHERE p.language_id = $5::int";
  const found = await rows<{ id: number; score: number; ranked: number }>(
    sql,
    `SELECT id, score, count(*) OVER () AS ranked FROM (
        SELECT p.id, ${SEARCH_SCORE} AS score FROM (
          SELECT p.id, p.post_date, p.search_vector, p.rank_vector, p.body_length FROM posts p ${language}
          ORDER BY p.post_date DESC, p.id DESC LIMIT $4
        ) p WHERE ${vectorCheck(match, 1)} ORDER BY p.post_date DESC, p.id DESC LIMIT ${RANKED_NEWEST}
      ) newest ORDER BY score DESC, id DESC LIMIT $2 OFFSET $3`,
    [match.words, page.limit, page.offset, posts, ...(languageId === null ? [] : [languageId])],
  );
  // Exact once it ranked 10,000: every match it did not reach is older. An empty page says
  // nothing of how many it ranked.
  return found.length > 0 && found[0]!.ranked >= RANKED_NEWEST ? found : null;
}

/**
 * The ids and scores of one relevance page among the 10,000 newest matches: a walk of the date
 * order for a query in nearly every post, else one tier of the newest days, else all matches. A
 * phrase's share is measured on the newest posts first (the statistics know words, not how often
 * they follow each other).
 */
async function rankedPage(
  sql: Sql,
  match: Match,
  page: Page,
  feedNames?: (sql: Sql) => Promise<CurrentFeedNames>,
): Promise<Array<{ id: number; score: number }>> {
  if (page.offset >= RANKED_NEWEST) return [];
  // One counted word with more matches than are ranked: its titled matches among the ranked ones,
  // when they fill the page (postgres-ranked-newest.ts).
  const plain = feedNames && page.offset + page.limit <= RANKED_NEWEST ? plainWord(match) : null;
  const key = plain === null ? null : searchKey(page.query);
  if (plain !== null && key !== null && feedNames) {
    const titled = await titledNewestPage(sql, match, plain, key, page, feedNames, RANKED_NEWEST);
    if (titled) return titled;
  }
  const expected = await expectation(sql, match);
  await sampleNewest(sql, match, expected);
  // One word with every match ranked: the posts whose title or feed name holds it rank above the
  // rest, and when they fill the page only they are read (postgres-ranked-titles.ts). The bound
  // is counted only when the estimate allows it (the count passes over every match's entry); when
  // they fall short, what they cost is a share of the matches read next (bench/NOTES.md).
  const word = feedNames ? singleWord(match) : null;
  if (word !== null && feedNames && expected.matches <= RANKED_NEWEST * TIER_MARGIN) {
    const atMost = await matchesAtMost(sql, match);
    if (atMost !== null && atMost <= RANKED_NEWEST && atMost >= page.offset + page.limit) {
      const titled = await titledPage(sql, match, word, page, await feedNames(sql));
      if (titled) return titled;
    }
  }
  const walked = await rankedWalk(sql, match, page, expected);
  if (walked !== null) return walked;
  const tier = await dayTier(sql, match, RANKED_NEWEST, expected);
  // Without a tier, the newest days that should hold the ranked matches may still be few enough
  // for the older matches to be dropped as they are read (see dayCutoff).
  const cutoff = tier ? null : await dayCutoff(sql, page.languageIds, RANKED_NEWEST, expected);
  const narrowed = tier !== null || cutoff !== null;
  for (const narrow of narrowed ? [true, false] : [false]) {
    const where = condition(match, narrow ? tier : null, 4, narrow ? cutoff : null);
    // A tier (or a query of up to 4 times as many matches as are ranked) is scored as its matches
    // are found: ranking them all costs less than reading the newest again by id (bench/NOTES.md).
    // Every day of a common query holds many more: the newest are picked first and only they are
    // read again to be scored. In the first form `OFFSET 0` keeps the matching a plan of its own (a
    // bitmap scan of the search index; told of the ORDER BY ... LIMIT above, the planner may walk
    // the date index and test every post instead), and the newest are picked in one sort, with no
    // stored copy of the matches, cheaper than two materialised CTEs (bench/NOTES.md).
    const found = await rows<{ id: number; score: number; ranked: number }>(
      sql,
      narrow || expected.matches <= 4 * RANKED_NEWEST
        ? `SELECT id, score, ${narrow ? "count(*) OVER ()" : "0"} AS ranked FROM (
              SELECT id, score FROM (
                SELECT p.id, p.post_date, ${SEARCH_SCORE} AS score FROM ${where.from} WHERE ${where.sql} OFFSET 0
              ) m ORDER BY post_date DESC, id DESC LIMIT ${RANKED_NEWEST}
            ) newest ORDER BY score DESC, id DESC LIMIT $2 OFFSET $3`
        : `WITH m AS MATERIALIZED (SELECT p.id, p.post_date FROM ${where.from} WHERE ${where.sql}),
            newest AS MATERIALIZED (SELECT id FROM m ORDER BY post_date DESC, id DESC LIMIT ${RANKED_NEWEST})
            SELECT p.id, ${SEARCH_SCORE} AS score, 0 AS ranked FROM newest JOIN posts p ON p.id = newest.id
            ORDER BY score DESC, p.id DESC LIMIT $2 OFFSET $3`,
      [match.words, page.limit, page.offset, ...where.params],
    );
    // A narrowed search that ranked 10,000 ranked the newest 10,000 of all: every match it left
    // out is older. An empty page of one says nothing about how many it ranked: only the plain
    // query is sure. (The plain query's count is never read, so it is not counted.)
    if (!narrow || (found.length > 0 && found[0]!.ranked >= RANKED_NEWEST)) return found;
  }
  return [];
}

/** The ids of one clicks-ordered page (exact): a walk, one tier of click counts, all matches. */
async function mostClickedPage(sql: Sql, match: Match, page: Page): Promise<number[]> {
  const need = page.offset + page.limit;
  // A page of a counted word that needs SEEK_FROM_OFFSET matches or more (deep, or of 1,000 rows):
  // its block past the clicked matches, or the clicked matches from their nearer end
  // (postgres-counted-clicks.ts). A walk for it would test need / share posts (within a language,
  // of that language's clicked posts), reading all matches when that costs less: every match of a
  // word in a language for a page of 1,000. A page needing fewer is read from the start as below.
  const key = need >= SEEK_FROM_OFFSET ? searchKey(page.query) : null;
  if (key !== null) {
    const counted = await countedClicksPage(sql, key, match.languageIds, page);
    if (counted !== null) return counted;
  }
  const expected = await expectation(sql, match);
  // The most clicked posts' own words (migration 42) first when they should hold the page (a
  // common word): reading it there costs its matches in the set, not a probe of posts per post
  // walked. The share among them is taken as among all posts.
  if (await clickedWordsHold(sql, (need * TIER_MARGIN) / expected.share)) {
    const fromSet = await clickedWordsPage(sql, match, need);
    if (fromSet) return fromSet.slice(page.offset);
  }
  // A walk of the clicks order testing each post costs about need / share posts; reading every
  // match costs what TIER_POST_COST weighs against those (the walk gives up past that).
  const budget = Math.max(WALK_POSTS, expected.matches / TIER_POST_COST);
  if (walkable(need, expected) || need / Math.max(expected.share, 1e-9) <= budget) {
    const walked = await walkClicked(sql, match, need, budget);
    if (walked) return walked.slice(page.offset);
  }
  const least = await clickTier(sql, need, expected);
  if (least !== null) {
    const language = match.languageIds ? "AND p.language_id = ANY($5::int[])" : "";
    const found = await rows<{ id: number }>(
      sql,
      `WITH m AS MATERIALIZED (SELECT p.id, p.clicks FROM clicked_posts k JOIN posts p ON p.id = k.id
          WHERE k.clicks >= $3 AND p.search_vector @@ $4::tsquery ${language})
        SELECT id FROM m ORDER BY clicks DESC, id DESC LIMIT $1 OFFSET $2`,
      [page.limit, page.offset, least, match.words, ...(match.languageIds ? [match.languageIds] : [])],
    );
    // A tier that fills the page answers exactly: every post outside it has fewer clicks.
    if (found.length === page.limit) return found.map((r) => r.id);
  }
  const where = condition(match, null, 3);
  const found = await rows<{ id: number }>(
    sql,
    `WITH m AS MATERIALIZED (SELECT p.id, p.clicks FROM ${where.from} WHERE ${where.sql})
      SELECT id FROM m ORDER BY clicks DESC, id DESC LIMIT $1 OFFSET $2`,
    [page.limit, page.offset, ...where.params],
  );
  return found.map((r) => r.id);
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

/** What a query in some languages matches, or null when it matches nothing. */
export function searchMatch(query: SearchQuery, languageIds: readonly number[] | null): Match | null {
  const words = toTsquery(query);
  // Words, and the pairs and triples of neighbouring words that the index holds too: GIN hands
  // over only posts holding a phrase's pairs, and a two-word phrase needs no check at all.
  const indexed = toSearchIndexTsquery(query);
  if (words === null || indexed === null || languageIds?.length === 0) return null;
  // The language filter is a facet too: GIN never hands over posts of other languages.
  return {
    index: languageIds ? `(${indexed.tsquery}) & ${languagesFacet(languageIds)}` : indexed.tsquery,
    // GIN settles a query that excludes a word only while its index is settled: a post moving from
    // the pending list into the entry tree (VACUUM, gin_clean_pending_list) has its lexemes added
    // one key at a time, so a scan meanwhile can find its `k3` and not yet its `the` and hand it
    // over for `k3 & !the`, unchecked (https://www.postgresql.org/docs/current/gin.html#GIN-FAST-UPDATE;
    // bench/NOTES.md, pgflake34). So the exclusion is checked on `search_vector` too, unless
    // searchPosts subtracts the excluded words' posts instead (postgres-excluded-words.ts).
    verify: indexed.exact && query.excluded.length === 0 ? null : words,
    titleImplies: query.excluded.length === 0,
    clauses: query.clauses.map((clause) => clause.map((term) => (term.prefix ? null : termPhrase(term)))),
    estimable:
      languageIds === null &&
      query.excluded.length === 0 &&
      query.clauses.length === 1 &&
      query.clauses[0]!.length === 1 &&
      termPhrase(query.clauses[0]![0]!).length === 1,
    words,
    languageIds,
  };
}

/**
 * `feedNames`, the feeds' names with their count of changes (FeedNames.current), lets a relevance
 * search of one word read only its titled matches (postgres-ranked-titles.ts).
 */
export async function searchPosts(
  sql: Sql,
  page: Page,
  feedNames?: (sql: Sql) => Promise<CurrentFeedNames>,
): Promise<Array<PostRecord & { score: number }>> {
  const found = page.limit === 0 ? null : searchMatch(page.query, page.languageIds);
  if (found === null) return [];
  // Excluded words: their posts subtracted, or each candidate checked (postgres-excluded-words.ts).
  const match = await settleExclusions(sql, found, page.query, page.languageIds);
  const words = match.words;
  if (page.sort === "relevance") return postsOf(sql, words, await rankedPage(sql, match, page, feedNames));
  const ids =
    page.sort === "date" ? await newestPage(sql, match, page) : await mostClickedPage(sql, match, page);
  return postsOf(
    sql,
    words,
    ids.map((id) => ({ id })),
  );
}

/**
 * The date range of a query whose filters are `after:` and `before:` alone (each its own clause),
 * or null for any other query.
 */
function dateRangeOf(query: SearchQuery): DateRange | null {
  const clauses = query.filterClauses ?? [];
  if (clauses.length === 0 || (query.excludedFilters?.length ?? 0) > 0) return null;
  const range: DateRange = { from: null, until: null };
  for (const clause of clauses) {
    const only = clause.length === 1 ? clause[0]! : null;
    if (only === null || !isFilter(only) || only.kind !== "date") return null;
    if (only.from !== null) range.from = Math.max(range.from ?? only.from, only.from);
    if (only.until !== null) range.until = Math.min(range.until ?? only.until, only.until);
  }
  return range;
}

/**
 * The ids of one clicks-ordered page of a counted word within `range`: the range's matches from
 * the counted days (those of the days it cuts counted here), its unclicked ones per block from the counted periods and the posts of the
 * periods it cuts (postgres-counted-click-ranges.ts). Null when those do not answer.
 */
function countedRangeClicks(sql: Sql, match: Match, key: SearchKey, page: Page, range: DateRange) {
  return countedRangeClicksPage(sql, key, match.languageIds, range, page, {
    days: () => rangeDays(sql, match, range),
    unclickedPerBlock: (from, until) => {
      const facet = dayRangeFacet(Math.floor(from / DAY_MS), Math.floor((until - 1) / DAY_MS));
      const where = rangeCondition(match, facet, { from, until });
      return rows<{ block: number; n: number }>(
        sql,
        `SELECT p.id / ${COUNTED_BLOCK_IDS} AS block, count(*)::float8 AS n FROM ${where.from}
          WHERE ${where.sql} AND NOT p.clicks > 0 GROUP BY 1`,
        where.params,
      );
    },
  });
}

/**
 * A date-ordered page of words within `after:`/`before:` (and languages) when their search is
 * counted (a common word, a smart category's query): the counted days restricted to the range's,
 * so a deep page starts at its day as the unranged one does (countedPage); a deep page by clicks
 * of a counted word, from its counted periods (countedRangeClicks). Null for any other query, or
 * when the counts do not answer: the operators' plans then do (postgres-search-operators.ts).
 * By clicks from offset `clicksFrom` (a page near the start is read from the clicks order's start).
 */
export async function countedRangePage(
  sql: Sql,
  page: Page,
  clicksFrom = SEEK_FROM_OFFSET,
): Promise<Array<PostRecord & { score: number }> | null> {
  const counted =
    page.limit > 0 && (page.sort === "date" || (page.sort === "clicks" && page.offset >= clicksFrom));
  const range = counted ? dateRangeOf(page.query) : null;
  // An empty range: the operators' plans answer it without a read.
  if (range === null || (range.from !== null && range.until !== null && range.from >= range.until))
    return null;
  const words: SearchQuery = { clauses: page.query.clauses, excluded: page.query.excluded };
  const key = usesOperators(words) ? null : searchKey(words);
  const found = key === null ? null : searchMatch(words, page.languageIds);
  if (key === null || found === null) return null;
  const match = await settleExclusions(sql, found, words, page.languageIds);
  const ids =
    page.sort === "date"
      ? await countedPage(sql, match, key, { ...page, query: words }, range)
      : await countedRangeClicks(sql, match, key, { ...page, query: words }, range);
  return ids === null
    ? null
    : postsOf(
        sql,
        match.words,
        ids.map((id) => ({ id })),
      );
}
