/**
 * Search with the filters of spec §4 on SQLite (`feed:`, `lang:`, `after:`, `before:`; prefixes
 * and `title:` are FTS5 syntax that the word plans take as is: fts5-term-operators.ts, and a
 * `lang:` clause alone joins the language list: foldLanguageClauses). The words become one FTS5
 * MATCH; the filters become SQL on the post's row (`feed_id`, `language_id`, `post_date`), beside
 * the MATCH. With words, the index answers what it can first: a `feed:` clause narrows the MATCH
 * to posts whose feed_name column holds its words, `-feed:` excludes them, `after:`/`before:` bound
 * the rowid (planOf: `narrowed`, `keys`); relevance then ranks the newest hits of that in one
 * statement (rankedNewest), date order reads them newest first (newestHits), clicks order takes
 * the word plans' clicked walk (mostClickedHits), each checked by the filters and giving way,
 * when they reject hits (relevance: any of a full pool; date and clicks: more than 3 in 4 of the
 * hits read), to the plans below:
 * - few hits (at most FEW_HITS posts hold the words): the hits are read from the index and
 *   filtered, sorted and ranked whole;
 * - many hits (common words), or no words at all: the posts that pass the filters are walked in
 *   the page's order through the table's indexes (see batchSource), in growing batches whose hits
 *   one FTS5 pass over the batch's key range finds (or a seek per key when they are spread thin),
 *   until the page is full. Relevance then ranks the 10,000 newest matches, as spec §4
 *   allows.
 * A term inside an OR with a filter (`rust OR feed:blog`), and an excluded term beside no positive
 * one, are checked post by post (a rowid seek each).
 * The index's rowid is each post's date key (schema 14, sqlite-date-keys.ts), not its id: every
 * read of the index joins posts on `date_key`, ranges of rowids are ranges of keys, and the walks
 * carry each post's key beside its id. With words, a language filter is part of the MATCH
 * (fts5-index-row.ts), as in sqlite-search-queries.ts.
 */
import {
  isFilter,
  type PostFilter,
  type SearchAtom,
  type SearchQuery,
  type SearchTerm,
} from "../../search/search-query.js";
import { termPhrase } from "../../search/term-phrase.js";
import type { PostPage, PostRecord, SearchSort } from "../store.js";
import { clickedFeedPage, feedLists, newestFeedPage, rankedFeedHits } from "./fts5-feed-search.js";
import { findingQuery } from "./fts5-implied-terms.js";
import { languageMatch } from "./fts5-index-row.js";
import { fts5Phrases, toFts5Match } from "./fts5-match.js";
import { clickedIndexed, mostClickedHitPage, sortedByClicks } from "./sqlite-clicked-hits.js";
import { clickedPostCount } from "./sqlite-clicked-index.js";
import { FTS_ROWID } from "./sqlite-columns.js";
import type { StatementCache } from "./sqlite-connection.js";
import { keyAtOrAfter } from "./sqlite-date-keys.js";
import { idsOfKeys, newestHitsInSample } from "./sqlite-newest-hits.js";
import {
  ascendingFirstBelow,
  FTS_GATHER_COST_US,
  FTS_SCORE_COST_US,
  FTS_TEST_COST_US,
  POST_BY_KEY_COST_US,
  SAMPLE_ESTIMATE_MARGIN,
} from "./sqlite-plan-costs.js";
import { postsInOrder } from "./sqlite-post-queries.js";
import { segmentCount } from "./sqlite-search-maintenance.js";
import { newestKeyRange, rankingStats, scoreSql, TERM_SAMPLE_POSTS } from "./sqlite-term-sample.js";

/** Up to this many hits, the hits are read whole; beyond, the filtered posts are walked. */
const FEW_HITS = 2_000;
/**
 * Relevance ranks at most `relevancePool` of the newest matches (spec §4), scored on term counts
 * sampled among the newest `termSamplePosts` posts (sqlite-term-sample.ts). Tests make them small
 * to reach each plan on a small database.
 */
export interface OperatorBounds {
  relevancePool: number;
  termSamplePosts: number;
  /** A statement's cost in the per-feed plan's choice (fts5-feed-search.ts), 0 to take it always. */
  feedStatementUs?: number;
}
const BOUNDS: OperatorBounds = { relevancePool: 10_000, termSamplePosts: TERM_SAMPLE_POSTS };

interface Where {
  sql: string;
  args: unknown[];
}

const seek = (negate: boolean) =>
  `${negate ? "NOT " : ""}EXISTS (SELECT 1 FROM posts_fts WHERE posts_fts MATCH ? AND rowid = p.date_key)`;

function ids(values: readonly number[] | undefined, what: string): string {
  if (values === undefined) throw new Error(`${what} filter reached the store unresolved`);
  return JSON.stringify(values);
}

function filterWhere(filter: PostFilter): Where {
  switch (filter.kind) {
    case "feed":
      return { sql: "p.feed_id IN (SELECT value FROM json_each(?))", args: [ids(filter.feedIds, "feed")] };
    case "lang":
      return {
        sql: "p.language_id IN (SELECT value FROM json_each(?))",
        args: [ids(filter.languageIds, "lang")],
      };
    case "date": {
      const parts: Where[] = [];
      if (filter.from !== null) parts.push({ sql: "p.post_date >= ?", args: [filter.from] });
      if (filter.until !== null) parts.push({ sql: "p.post_date < ?", args: [filter.until] });
      return and(parts);
    }
  }
}

function atomWhere(atom: SearchAtom): Where {
  if (isFilter(atom)) return filterWhere(atom);
  return { sql: seek(false), args: [toFts5Match({ clauses: [[atom]], excluded: [] })] };
}

function and(parts: Where[]): Where {
  if (parts.length === 0) return { sql: "1", args: [] };
  return { sql: parts.map((w) => `(${w.sql})`).join(" AND "), args: parts.flatMap((w) => w.args) };
}

function or(parts: Where[]): Where {
  return { sql: parts.map((w) => `(${w.sql})`).join(" OR "), args: parts.flatMap((w) => w.args) };
}

/** The query split into its words (one MATCH, or null) and the SQL of everything else. */
export interface Plan {
  match: string | null;
  /** The words' query alone, for the term statistics of the score. */
  words: SearchQuery;
  /** How many language phrases follow the words' in `match` (they weigh nothing in the score). */
  languagePhrases: number;
  /** The languages `match` holds its posts to (JSON array of ids), or null for every language. */
  languages: string | null;
  filters: Where;
  /**
   * `filters` with each `after:`/`before:` clause as its range of date keys (the bounds of `keys`
   * are exact: day starts are whole seconds, keyAtOrAfter), so that a walk of an index holding
   * date_key (posts_clicked_by_key, posts_clicked_by_language) checks dates without the post's row.
   */
  keyFilters: Where;
  /** The only feed the posts may come from, when a single `feed:` of one feed says so. */
  oneFeed: number | null;
  /**
   * A language every post that passes is of (a `lang:` of one language, or a search in one), or
   * null: a walk may read that language's posts alone, and the filters still decide.
   */
  oneLanguage: number | null;
  /** The feeds a `feed:` clause of the query limits the posts to (the first such clause), or null. */
  feedIds: readonly number[] | null;
  /** Whether `filters` is that one `feed:` clause alone: they read no column of a post but its feed. */
  feedOnly: boolean;
  /**
   * `match` narrowed by the filters the index can answer (null without words): each `feed:` clause
   * as its words in the feed_name column, which holds every post's feed name as it is now (a feed
   * renamed is re-indexed: sqlite-feed-writer.ts), so a post of a feed whose name holds them
   * matches; `-feed:` as a NOT where that is exact. A superset of the posts that pass: `filters`
   * still decide.
   */
  narrowed: string | null;
  /**
   * `narrowed` with the words' terms that other terms imply left out (fts5-implied-terms.ts): the
   * same posts, fewer posting lists; for finding posts, never for scoring them.
   */
  finding: string | null;
  /**
   * The phrases of `finding` over those of `narrowed` (1 when they are the same query): about the
   * share of a read of `narrowed` that a read of `finding` over the same keys costs, FTS5 reading
   * one posting list per phrase to intersect them (bench/NOTES.md).
   */
  findingShare: number;
  /** How many phrases `narrowed` adds after `match`'s (one per `feed:` folded in). */
  feedPhrases: number;
  /**
   * Without words (`match` null), the `feed:` clauses as a MATCH of the feed_name column, as
   * `narrowed` folds them in beside words (`-feed:` and excluded words as a NOT): a superset of
   * the posts that pass, in the index's rowid order, which is the date order; null with words or
   * with no `feed:` clause.
   */
  feedMatch: string | null;
  /** Whether `feedMatch` holds the search's languages (their tokens ANDed in, as words hold them). */
  feedLanguages: boolean;
  /** With `feedLanguages`, those languages (JSON array of ids); else null. */
  feedLanguageIds: string | null;
  /**
   * With words and languages in the MATCH, the posts the `feed:` clauses and the languages leave,
   * whatever the words: the languages' tokens narrowed as `narrowed` is (feed phrases, `-feed:`
   * NOTs); null otherwise.
   */
  filterSet: string | null;
  /**
   * Whether `narrowed` within `keys` matches exactly the posts that pass (every filter a date
   * range, or a `feed:`/`-feed:` whose phrase is exactly its words: termPhrase drops none), so
   * that no post needs its filters checked.
   */
  indexAnswers: boolean;
  /** The date keys that `after:`/`before:` clauses leave (index rowids), inclusive. */
  keys: { low: number; high: number };
}

/** The FTS5 phrase of a `feed:` filter's words in the feed_name column. */
export function feedNamePhrase(filter: PostFilter & { kind: "feed" }): string {
  const match = toFts5Match({ clauses: [[{ words: filter.words, prefix: filter.prefix }]], excluded: [] });
  return `{feed_name} : ${match}`;
}

/**
 * Whether a `feed:` filter's phrase in the feed_name column holds exactly the posts of its feeds:
 * the phrase is its words (termPhrase drops none), or the resolver found no other feed's name
 * holding the shorter phrase (`phraseExact`).
 */
function phraseIsFeeds(filter: PostFilter & { kind: "feed" }): boolean {
  return termPhrase(filter).length === filter.words.length || filter.phraseExact === true;
}

/** The lowest and highest date keys, beyond any post's (sqlite-date-keys.ts clamps seconds to ±2^36). */
const ALL_KEYS = { low: -(2 ** 53 - 1), high: 2 ** 53 - 1 };

export function planOf(query: SearchQuery, languageIds: readonly number[] | null): Plan {
  const words: SearchQuery = { clauses: query.clauses, excluded: query.excluded };
  const wordsMatch = toFts5Match(words);
  // With words, the language filter joins the MATCH; without, it stays a filter on the rows.
  const inMatch = wordsMatch !== null && languageIds !== null;
  const match = inMatch ? `(${wordsMatch}) AND ${languageMatch(languageIds)}` : wordsMatch;
  const languagePhrases = inMatch ? new Set(languageIds).size : 0;
  const parts: Where[] = [];
  // The same filters, dates as ranges of keys (Plan.keyFilters).
  const keyParts: Where[] = [];
  if (match === null && query.excluded.length > 0) {
    // No positive words: the excluded ones are checked post by post.
    const anyExcluded: SearchQuery = { clauses: [query.excluded as SearchTerm[]], excluded: [] };
    parts.push({ sql: seek(true), args: [toFts5Match(anyExcluded)] });
    keyParts.push(parts.at(-1)!);
  }
  // Every post that passes is of this language (a `lang:` of one, or the search's one language).
  let oneLanguage: number | null =
    languageIds !== null && new Set(languageIds).size === 1 ? languageIds[0]! : null;
  let oneFeed: number | null = null;
  let feedIds: readonly number[] | null = null;
  let narrowed = match;
  // The narrowing of `narrowed`, to apply to the finding query's MATCH too.
  const narrowing: Array<(base: string) => string> = [];
  let feedPhrases = 0;
  let indexAnswers = true;
  let feedMatch: string | null = null;
  const keys = { ...ALL_KEYS };
  for (const clause of query.filterClauses ?? []) {
    parts.push(or(clause.map(atomWhere)));
    const only = clause.length === 1 ? clause[0]! : null;
    if (only !== null && isFilter(only) && only.kind === "date") {
      const low = only.from === null ? ALL_KEYS.low : keyAtOrAfter(only.from);
      const high = only.until === null ? ALL_KEYS.high : keyAtOrAfter(only.until) - 1;
      keyParts.push({ sql: "p.date_key BETWEEN ? AND ?", args: [low, high] });
    } else {
      keyParts.push(parts.at(-1)!);
    }
    if (only !== null && isFilter(only) && only.kind === "lang" && only.languageIds?.length === 1) {
      oneLanguage = only.languageIds[0]!;
    }
    if (only === null || !isFilter(only) || only.kind === "lang") indexAnswers = false;
    if (only === null || !isFilter(only)) continue;
    if (only.kind === "feed" && only.feedIds?.length === 1) oneFeed = only.feedIds[0]!;
    if (only.kind === "feed") feedIds ??= only.feedIds ?? null;
    if (only.kind === "feed" && narrowed !== null) {
      narrowing.push((base) => `(${base}) AND (${feedNamePhrase(only)})`);
      narrowed = narrowing.at(-1)!(narrowed);
      feedPhrases++;
      // The phrase holds exactly the posts of the feeds whose names hold the words (see below).
      if (!phraseIsFeeds(only)) indexAnswers = false;
    }
    if (only.kind === "feed" && match === null) {
      feedMatch = `${feedMatch === null ? "" : `${feedMatch} AND `}(${feedNamePhrase(only)})`;
      if (!phraseIsFeeds(only)) indexAnswers = false;
    }
    // Day starts are whole seconds, so these keys are exact bounds (keyAtOrAfter).
    if (only.kind === "date" && only.from !== null) keys.low = Math.max(keys.low, keyAtOrAfter(only.from));
    if (only.kind === "date" && only.until !== null) {
      keys.high = Math.min(keys.high, keyAtOrAfter(only.until) - 1);
    }
  }
  for (const filter of query.excludedFilters ?? []) {
    const w = filterWhere(filter);
    parts.push({ sql: `NOT (${w.sql})`, args: w.args });
    keyParts.push(parts.at(-1)!);
    // Without a first or last pair dropped (termPhrase), or with no other name holding the shorter
    // phrase (phraseExact), the phrase matches exactly the names that hold the words, so no post
    // that passes is left out by the NOT.
    if (filter.kind === "feed" && narrowed !== null && phraseIsFeeds(filter)) {
      narrowing.push((base) => `(${base}) NOT (${feedNamePhrase(filter)})`);
      narrowed = narrowing.at(-1)!(narrowed);
      feedPhrases++;
    } else if (filter.kind === "feed" && feedMatch !== null && phraseIsFeeds(filter)) {
      feedMatch = `(${feedMatch}) NOT (${feedNamePhrase(filter)})`;
    } else {
      indexAnswers = false;
    }
  }
  if (feedMatch !== null && match === null && query.excluded.length > 0) {
    // The excluded words as a NOT of the feeds' MATCH: the same MATCH the seek above tests per
    // post, so exactly the posts the seek keeps, found by FTS5 merging the two doclists in order.
    const anyExcluded: SearchQuery = { clauses: [query.excluded as SearchTerm[]], excluded: [] };
    feedMatch = `(${feedMatch}) NOT (${toFts5Match(anyExcluded)})`;
  }
  if (languageIds !== null && !inMatch) {
    parts.push({
      sql: "p.language_id IN (SELECT value FROM json_each(?))",
      args: [JSON.stringify(languageIds)],
    });
    keyParts.push(parts.at(-1)!);
    // The feeds' walk without words reads the languages in its MATCH, as words do (above).
    if (feedMatch !== null) feedMatch = `(${feedMatch}) AND ${languageMatch(languageIds)}`;
  }
  const find = findingQuery(words);
  const findWords = find === words ? null : toFts5Match(find);
  const findMatch =
    findWords === null || !inMatch ? findWords : `(${findWords}) AND ${languageMatch(languageIds)}`;
  const finding = findMatch === null ? narrowed : narrowing.reduce((base, narrow) => narrow(base), findMatch);
  const phrases = (q: SearchQuery) => fts5Phrases(q).phrases.length + languagePhrases + feedPhrases;
  return {
    match,
    words,
    finding,
    findingShare: findMatch === null ? 1 : phrases(find) / phrases(words),
    languagePhrases,
    languages: inMatch ? JSON.stringify(languageIds) : null,
    filters: and(parts),
    keyFilters: and(keyParts),
    oneFeed,
    oneLanguage,
    feedIds,
    feedOnly:
      parts.length === 1 &&
      query.filterClauses?.length === 1 &&
      query.filterClauses[0]!.length === 1 &&
      isFilter(query.filterClauses[0]![0]!) &&
      query.filterClauses[0]![0]!.kind === "feed",
    narrowed,
    feedPhrases,
    feedMatch,
    feedLanguages: feedMatch !== null && languageIds !== null && !inMatch,
    feedLanguageIds:
      feedMatch !== null && languageIds !== null && !inMatch ? JSON.stringify(languageIds) : null,
    filterSet:
      inMatch && feedPhrases > 0
        ? narrowing.reduce((base, narrow) => narrow(base), languageMatch(languageIds))
        : null,
    // Without words, excluded ones are a NOT of `feedMatch` (above), or checked on each post.
    indexAnswers: indexAnswers && (match !== null || feedMatch !== null),
    keys,
  };
}

function hitCount(stmts: StatementCache, match: string, cap: number): number {
  return stmts
    .get("SELECT count(*) FROM (SELECT rowid FROM posts_fts WHERE posts_fts MATCH ? LIMIT ?)")
    .pluck()
    .get(match, cap + 1) as number;
}

const ORDER: Record<"date" | "clicks", string> = {
  date: "p.post_date DESC, p.id DESC",
  clicks: "p.clicks DESC, p.id DESC",
};

/** A post found: its id and its date key (the index's rowid). */
export type Hit = [id: number, key: number];

/** The first batch of filtered posts a walk reads, and the most it reads at once. */
const FIRST_BATCH = 256;
const MAX_BATCH = 16_384;

/**
 * Which of `hits` (a batch of the walk) hold the words, by key: one FTS5 pass over the batch's
 * key range, or a seek per key when the batch is spread thin over it. Keys are not dense (a
 * second has 65,536 slots), so the spread is judged by ids, which count the posts stored between
 * (the posts in the key range, when posts arrive roughly in date order); either way the answer
 * is the same, only its cost differs.
 */
function hitsAmong(stmts: StatementCache, match: string, hits: readonly Hit[]): Set<number> {
  let [low, lowKey] = hits[0]!;
  let [high, highKey] = hits[0]!;
  for (const [id, key] of hits) {
    low = Math.min(low, id);
    high = Math.max(high, id);
    lowKey = Math.min(lowKey, key);
    highKey = Math.max(highKey, key);
  }
  const keys = hits.map(([, key]) => key);
  if (high - low > SPREAD_PER_ID * hits.length) {
    // Posts spread over the index (one feed among many): a seek each reads less than the range.
    const one = stmts.get(`SELECT 1 FROM posts_fts WHERE posts_fts MATCH ? AND rowid = ${FTS_ROWID}`).pluck();
    return new Set(keys.filter((key) => one.get(match, key) !== undefined));
  }
  const found = stmts
    .get(`SELECT rowid FROM posts_fts WHERE posts_fts MATCH ?
      AND rowid BETWEEN ${FTS_ROWID} AND ${FTS_ROWID} AND +rowid IN (SELECT value FROM json_each(?))`)
    .pluck()
    .all(match, lowKey, highKey, JSON.stringify(keys)) as number[];
  return new Set(found);
}

/** A batch whose ids lie further apart than this on average is checked key by key (as sqlite-search-queries.ts scores). */
const SPREAD_PER_ID = 64;

/**
 * The filters of hits found by key read the post's columns from posts_sort_keys (every column a
 * filter names but date_key), a small index mostly in the cache, instead of the table's rows,
 * large with their text (bench/NOTES.md, search operators on the shapes).
 */
const BY_SORT_KEYS = "CROSS JOIN posts p INDEXED BY posts_sort_keys ON p.id = k.id";

/** The newest-hits walk reads at most this many times the hits it needs before giving way. */
const HIT_WALK_FACTOR = 4;

/**
 * Posts `offset` to `offset + limit` (`need` = their end) of those that pass `plan`, newest first,
 * read from the index's own descending rowid walk of `plan.narrowed` within the date keys
 * (sqlite-newest-hits.ts: the rowid is the date key), in growing chunks whose posts the filters then check; or null when HIT_WALK_FACTOR × need
 * hits were read without finding them (filters the index cannot answer, rejecting most hits).
 * The cost is bounded by the hits read, whatever share of the posts the words or filters hold.
 * The walk reads `plan.finding`, and the page's `limit` posts are scored after over their own keys
 * (scoresOf: a read of `plan.narrowed` over that range); when that second read would cover most of
 * the first (a page from the start: `limit` of the `need` posts), reading `plan.narrowed` itself
 * and scoring on the way costs less: one read of every list instead of the finding lists twice.
 * A deep page (`need` far past `limit`) is not scored on the way: every hit before it would be.
 * When the index answers every filter (`plan.indexAnswers`: dates as the key range, languages in
 * the MATCH) every hit read passes, so none is checked, and only the page's own keys are looked
 * up for their post ids; a page past the first is then one skip of the hits before it.
 */
function newestHits(
  stmts: StatementCache,
  plan: Plan,
  offset: number,
  limit: number,
  scores: Scores | null = null,
): Hit[] | null {
  const need = offset + limit;
  if (plan.indexAnswers && offset > 0) {
    // Every hit passes: the hits before the page are skipped in the index's rowids (FTS5 reads
    // no row for them and SQLite computes no column), as the word plans page by date.
    const keys = stmts
      .get(`SELECT rowid FROM posts_fts WHERE posts_fts MATCH ?
        AND rowid BETWEEN ${FTS_ROWID} AND ${FTS_ROWID} ORDER BY rowid DESC LIMIT ? OFFSET ?`)
      .pluck()
      .all(plan.finding, plan.keys.low, plan.keys.high, limit, offset) as number[];
    const ids = idsOfKeys(stmts, keys);
    return keys.map((key) => [ids.get(key)!, key]);
  }
  const onePass = scores !== null && onePassCosts(plan, need, limit);
  const walk = stmts
    .get(`SELECT rowid, ${onePass ? scores.sql : "0"} FROM posts_fts WHERE posts_fts MATCH ?
      AND rowid BETWEEN ${FTS_ROWID} AND ${FTS_ROWID} ORDER BY rowid DESC LIMIT ?`)
    .raw();
  const check = stmts
    .get(`SELECT k.id, k.date_key FROM posts k INDEXED BY posts_by_date_key ${BY_SORT_KEYS}
      WHERE k.date_key IN (SELECT value FROM json_each(?)) AND ${plan.filters.sql}`)
    .raw();
  const found: Hit[] = [];
  let high = plan.keys.high;
  let read = 0;
  // When the index answers every filter each hit read passes, so the page's own `need` is the
  // read; else a quarter more, for the hits the filters reject.
  let chunk = Math.min(MAX_BATCH, plan.indexAnswers ? need : Math.max(FIRST_BATCH, Math.ceil(need * 1.25)));
  while (found.length < need) {
    if (read >= HIT_WALK_FACTOR * need) return null;
    const rows = walk.all(
      ...(onePass ? scores.args : []),
      onePass ? scores.match : plan.finding,
      plan.keys.low,
      high,
      chunk,
    ) as Array<[number, number]>;
    const keys = rows.map(([key]) => key);
    if (onePass) for (const [key, score] of rows) scores.known.set(key, score);
    read += keys.length;
    if (plan.indexAnswers) {
      for (const key of keys) found.push([0, key]);
    } else {
      const passed = check.all(JSON.stringify(keys), ...plan.filters.args) as Hit[];
      passed.sort((a, b) => b[1] - a[1]);
      found.push(...passed);
    }
    if (keys.length < chunk) break;
    high = keys[keys.length - 1]! - 1;
    chunk = Math.min(2 * chunk, MAX_BATCH);
  }
  const page = found.slice(offset, need);
  if (!plan.indexAnswers) return page;
  // Every hit passed unread: the page's post ids by key.
  const ids = idsOfKeys(
    stmts,
    page.map(([, key]) => key),
  );
  for (const hit of page) hit[0] = ids.get(hit[1])!;
  return page;
}

/**
 * Whether a date page's walk scores its hits on the way (sqlite-plan-costs.ts's costs): the
 * `need` hits read with `plan.narrowed`'s lists and each scored, against the finding lists' read
 * and a second read of the page's `limit` hits with every list, scored.
 */
function onePassCosts(plan: Plan, need: number, limit: number): boolean {
  const read = (share: number) => share * FTS_GATHER_COST_US;
  const onePass = need * (read(1) + FTS_SCORE_COST_US);
  const twoPasses = need * read(plan.findingShare) + limit * (read(1) + FTS_SCORE_COST_US);
  return onePass <= twoPasses;
}

/**
 * A page of the hits most clicked first, found as the word plans find them (sqlite-clicked-hits.ts)
 * for `plan.narrowed`, a superset of the posts that pass: its first hits in that order, checked by
 * the filters, keep the order, so the page is exact once the filters pass its end or the hits run
 * out. The window of hits read doubles until then, up to HIT_WALK_FACTOR × the page's end; null
 * when the filters reject more than that leaves (dates the index cannot answer here, a filter
 * inside an OR), and the walk then decides. Where the index answers every filter, no window: the
 * page is the index's own page at `offset`.
 */
function mostClickedHits(
  stmts: StatementCache,
  plan: Plan & { narrowed: string },
  offset: number,
  limit: number,
  scores: Scores,
): Hit[] | null {
  const need = offset + limit;
  const check = stmts
    .get(`SELECT k.date_key, k.id FROM posts k INDEXED BY posts_by_date_key ${BY_SORT_KEYS}
      WHERE k.date_key IN (SELECT value FROM json_each(?)) AND ${plan.filters.sql}`)
    .raw();
  // The date range and the languages bound the walk itself (sqlite-clicked-hits.ts): the filters
  // then reject only what the index cannot answer (a feed phrase's extra posts, an OR). Reads of
  // every hit take the finding query.
  const filter = {
    match: plan.narrowed,
    find: plan.finding ?? plan.narrowed,
    languages: plan.languages,
    keys: plan.keys,
  };
  if (plan.indexAnswers) {
    // Every hit passes, so the page is the index's own page at `offset`: a deep one skips the
    // hits before it in the clicked posts' index's rowids (sqlite-clicked-hits.ts) instead of
    // reading each of them and its post.
    const sink = { sql: scores.sql, args: scores.args, scores: scores.known };
    const { keys, hits, ids } = mostClickedHitPage(stmts, filter, offset, limit, sink);
    scores.spread = hits;
    const byKey = idsOfKeys(stmts, keys, ids);
    return keys.map((key) => [byKey.get(key)!, key]);
  }
  for (let window = need; ; window = Math.min(2 * window, HIT_WALK_FACTOR * need)) {
    const sink = { sql: scores.sql, args: scores.args, scores: scores.known };
    const { keys, hits } = mostClickedHitPage(stmts, filter, 0, window, sink);
    scores.spread = hits;
    // The filters check every hit, reading its id with it.
    const passed = new Map(
      check.all(JSON.stringify(keys), ...plan.filters.args) as Array<[key: number, id: number]>,
    );
    const kept = keys.filter((key) => passed.has(key));
    if (kept.length >= need || keys.length < window) {
      return kept.slice(offset, need).map((key) => [passed.get(key)!, key]);
    }
    if (window >= HIT_WALK_FACTOR * need) return null;
  }
}

/**
 * One page by mostClickedHits, or null when that plan cannot answer it (no words, filters
 * rejecting most hits): exported for the tests that reach each plan.
 */
export function mostClickedHitsPage(
  stmts: StatementCache,
  plan: Plan,
  offset: number,
  limit: number,
  scores: Scores | null = scoring(stmts, plan, BOUNDS),
): Hit[] | null {
  const { narrowed } = plan;
  if (narrowed === null || scores === null) return null;
  return mostClickedHits(stmts, { ...plan, narrowed }, offset, limit, scores);
}

/**
 * The posts that pass `plan`, in `order`, from `offset`, at most `limit`: in date order with
 * words, the newest hits (newestHits) when the filters pass enough of them; else the hits
 * filtered when they are few; else the filtered posts walked in order, in growing batches, each
 * batch's hits found together (hitsAmong).
 */
function orderedHits(
  stmts: StatementCache,
  plan: Plan,
  order: "date" | "clicks",
  offset: number,
  limit: number,
  scores: Scores | null = null,
): Hit[] {
  const { match, filters } = plan;
  if (order === "date" && plan.narrowed !== null) {
    const newest = newestHits(stmts, plan, offset, limit, scores);
    if (newest !== null) return newest;
  }
  if (order === "date" && plan.feedMatch !== null && wordlessFeedWalk(stmts, plan, offset + limit)) {
    const feeds = { ...plan, narrowed: plan.feedMatch, finding: plan.feedMatch };
    const newest = newestHits(stmts, feeds, offset, limit);
    if (newest !== null) return newest;
  }
  if (order === "clicks" && scores !== null) {
    const clicked = mostClickedHitsPage(stmts, plan, offset, limit, scores);
    if (clicked !== null) return clicked;
  }
  if (order === "clicks" && scores === null) {
    const few = fewFeedHits(stmts, plan, offset, limit) ?? excludedFeedHits(stmts, plan, offset, limit);
    if (few !== null) return few;
  }
  if (match !== null && hitCount(stmts, match, FEW_HITS) <= FEW_HITS) {
    return stmts
      .get(`SELECT p.id, p.date_key FROM posts_fts t CROSS JOIN posts p INDEXED BY posts_by_date_key
        ON p.date_key = t.rowid
        WHERE posts_fts MATCH ? AND ${filters.sql} ORDER BY ${ORDER[order]} LIMIT ? OFFSET ?`)
      .raw()
      .all(match, ...filters.args, limit, offset) as Hit[];
  }
  const next = batchSource(stmts, plan, order);
  if (match === null) return next(offset + limit).slice(offset);
  const need = offset + limit;
  const found: Hit[] = [];
  let batch = Math.max(FIRST_BATCH, 2 * need);
  for (;;) {
    const walked = next(batch);
    if (walked.length === 0) break;
    const hits = hitsAmong(stmts, match, walked);
    for (const hit of walked) if (hits.has(hit[1])) found.push(hit);
    if (found.length >= need || walked.length < batch) break;
    batch = Math.min(2 * batch, MAX_BATCH);
  }
  return found.slice(offset, need);
}

/**
 * The keys of a MATCH within the date keys when at most FEW_HITS posts hold it, else null: the
 * read stops one past FEW_HITS, so it costs the posting lists up to there at most.
 */
function fewKeys(stmts: StatementCache, match: string, keys: { low: number; high: number }): number[] | null {
  const found = stmts
    .get(`SELECT rowid FROM posts_fts WHERE posts_fts MATCH ?
      AND rowid BETWEEN ${FTS_ROWID} AND ${FTS_ROWID} LIMIT ?`)
    .pluck()
    .all(match, keys.low, keys.high, FEW_HITS + 1) as number[];
  return found.length > FEW_HITS ? null : found;
}

/**
 * A page by clicks without words of a list of feeds with a language, when the feed_name column's
 * phrase and the language's token (`plan.feedMatch`) hold at most FEW_HITS posts: read from the
 * index whole and sorted, a seek pair per post; else null (the walk). The walk reads the feeds'
 * or the language's clicked posts and then every unclicked post of the language, each row for its
 * feed, until the page is full: all of them when the feeds write little of the language. The
 * capped read costs the two posting lists at most (FTS5 stops at its LIMIT), and it is exact when
 * the index answers the filters (`indexAnswers`: the phrase is the feeds' words, the language in
 * the MATCH), as the date order's newest hits of the same MATCH are (orderedHits).
 */
function fewFeedHits(stmts: StatementCache, plan: Plan, offset: number, limit: number): Hit[] | null {
  const { feedMatch } = plan;
  if (feedMatch === null || !plan.feedLanguages || !plan.indexAnswers) return null;
  const keys = fewKeys(stmts, feedMatch, plan.keys);
  if (keys === null) return null;
  const page = sortedByClicks(stmts, keys, offset, limit);
  const ids = idsOfKeys(stmts, page);
  return page.map((key) => [ids.get(key)!, key]);
}

/**
 * A page by clicks without words of `feed:` with excluded words, when the index answers every
 * filter (the words a NOT of `plan.feedMatch`): found as the word plans find a MATCH's hits most
 * clicked first (mostClickedHitPage over `feedMatch`: the clicked posts' index, then the
 * unclicked hits by id), where the walk below tests the words with an FTS5 seek per post of the
 * feeds it reads. Every hit passes, so only the page's keys are read for their ids. Else null.
 */
function excludedFeedHits(stmts: StatementCache, plan: Plan, offset: number, limit: number): Hit[] | null {
  const { feedMatch } = plan;
  if (feedMatch === null || !plan.indexAnswers || plan.words.excluded.length === 0) return null;
  const filter = { match: feedMatch, languages: plan.feedLanguageIds, keys: plan.keys };
  const { keys, ids } = mostClickedHitPage(stmts, filter, offset, limit);
  const byKey = idsOfKeys(stmts, keys, ids);
  return keys.map((key) => [byKey.get(key)!, key]);
}

/**
 * Whether a date page without words reads the feeds' posts from the feed_name column of posts_fts
 * (newestHits over `plan.feedMatch`) rather than from batchSource's walk of the date index. Where
 * that walk is the date index read newest first (more than one feed, and byDateIndex prefers it),
 * the index's rowid walk covers the same newest keys and stops at the same post, and it decodes
 * an entry per phrase for each post there that holds the phrase (the feed's words in any column;
 * a language's token), where the date walk reads every post's row for its feed: an entry of a
 * doclist read in order (FTS_GATHER_COST_US) against a row found by id (POST_BY_KEY_COST_US).
 * One feed's posts come from posts_by_feed in order, and a small share of the posts sorted whole,
 * unless a language filters them (the walk would read every post of the feed for its language);
 * with a language, several feeds' sort too gives way when it costs more (languageListCosts).
 * Excluded words without positive ones, folded into `feedMatch` as a NOT, always take the walk:
 * the other plans test them with an FTS5 seek per post read (every post of the feeds, for the
 * sort), where FTS5's NOT moves the excluded list to each of the feeds' keys in order, an entry
 * or a doclist-index skip each, so the walk never reads more than the feeds' posts up to the page.
 */
function wordlessFeedWalk(stmts: StatementCache, plan: Plan, need: number): boolean {
  if (plan.indexAnswers && plan.words.excluded.length > 0) return true;
  if (plan.oneFeed !== null) return plan.feedLanguages && plan.indexAnswers;
  if (plan.feedIds === null) return false;
  if (byDateIndex(stmts, plan.feedIds, need)) return true;
  return (
    plan.feedLanguageIds !== null &&
    plan.indexAnswers &&
    languageListCosts(stmts, plan.feedIds, plan.feedLanguageIds)
  );
}

/**
 * Whether several feeds' date page with the search's languages in `plan.feedMatch` reads the
 * index's walk of it rather than the feeds' posts sorted whole, where the date index is not the
 * walk (byDateIndex). The sort reads every post of the feeds, found by id in posts_sort_keys for its
 * language, whatever share of them the language holds: a post found by key each
 * (POST_BY_KEY_COST_US). The walk stops at the page's end or where the lists end; FTS5's AND moves
 * each list to the other's next key (a doclist's index skips the pages between), so it reads about
 * the shorter list's entries, and the languages' tokens, in their own column only, hold exactly
 * their posts (languages.post_count): at most a doclist entry each (FTS_GATHER_COST_US), however
 * few of them the feeds wrote.
 */
function languageListCosts(stmts: StatementCache, feedIds: readonly number[], languageIds: string): boolean {
  const { theirs, language } = stmts
    .get(`SELECT (SELECT coalesce(sum(post_count), 0) FROM feeds WHERE id IN (SELECT value FROM json_each(?))) AS theirs,
      (SELECT coalesce(sum(post_count), 0) FROM languages WHERE id IN (SELECT value FROM json_each(?))) AS language`)
    .get(JSON.stringify(feedIds), languageIds) as { theirs: number; language: number };
  return language * FTS_GATHER_COST_US <= theirs * POST_BY_KEY_COST_US;
}

/**
 * The posts that pass the plan's filters in `order`, a batch at a time (`next(size)` gives the
 * next ones, fewer at the end), each batch resuming after the last (keyset paging):
 * - date: through posts_by_date, or posts_by_feed for one feed;
 * - clicks: the clicked posts through posts_clicked_by_key (schema 14), or one language's through
 *   posts_clicked_by_language (schema 19), dates checked on their date_key; then the others newest
 *   id first (the order's ties); one feed's through posts_by_feed_clicks (schema 17), and a list of
 *   feeds' clicked posts too when that reads less (byFeedClicks), their date keys read after.
 */
function batchSource(stmts: StatementCache, plan: Plan, order: "date" | "clicks"): (size: number) => Hit[] {
  const { filters } = plan;
  const feed =
    plan.oneFeed === null ? { where: "", args: [] } : { where: "p.feed_id = ? AND ", args: [plan.oneFeed] };
  // `cells` are the id, the key and the order's value; `resume` compares (value, id) to the last.
  type Phase = {
    from: string;
    where: string;
    resume: string;
    by: string;
    cells: string;
    keysAfter?: boolean;
    /** Whether the dates are checked as keys (keyFilters): the index holds date_key. */
    byKeys?: boolean;
    /** The arguments of `where`'s own parameters. */
    args?: unknown[];
  };
  const phases: Phase[] =
    order === "date"
      ? [
          {
            from: plan.oneFeed === null ? "posts p" : "posts p INDEXED BY posts_by_feed",
            where: "1",
            resume: "(p.post_date, p.id) < (?, ?)",
            by: "p.post_date DESC, p.id DESC",
            cells: "p.id, p.date_key, p.post_date",
          },
        ]
      : plan.oneFeed !== null
        ? [
            {
              from: "posts p INDEXED BY posts_by_feed_clicks",
              where: "1",
              resume: "(p.clicks, p.id) < (?, ?)",
              by: "p.clicks DESC, p.id DESC",
              cells: "p.id, p.date_key, p.clicks",
            },
          ]
        : [
            // One language's clicked posts from its own range of posts_clicked_by_language; dates
            // checked on the index's date_key (keyFilters): either index answers the walk's
            // language, date and order without reading a post's row.
            {
              from:
                plan.oneLanguage === null
                  ? "posts p INDEXED BY posts_clicked_by_key"
                  : "posts p INDEXED BY posts_clicked_by_language",
              where: `${plan.oneLanguage === null ? "" : `p.language_id = ${plan.oneLanguage} AND `}p.clicks > 0`,
              resume: "(p.clicks, p.id) < (?, ?)",
              by: "p.clicks DESC, p.id DESC",
              cells: "p.id, p.date_key, p.clicks",
              byKeys: true,
            },
            {
              from: "posts p",
              where: "p.clicks = 0",
              resume: "(0, p.id) < (?, ?)",
              by: "p.id DESC",
              cells: "p.id, p.date_key, 0",
            },
          ];
  let phase = 0;
  let last: [number, number, number] | null = null;
  // Whether posts_sort_keys holds every column the filters read: all but the date key, which a
  // word's seek reads (an excluded word without positive ones, a word inside an OR).
  const sortKeysHold = !filters.sql.includes("p.date_key");
  return (size) => {
    if (order === "date" && last === null && plan.oneFeed === null && plan.feedIds !== null) {
      // Else the feeds' posts sorted whole; without words (no date key to read), from
      // posts_by_feed with their filters checked on posts_sort_keys where it holds them, not on
      // every post's row.
      const rows = { where: "1", args: [], cells: "p.id, p.date_key, p.post_date", keysAfter: false };
      Object.assign(
        phases[0]!,
        byDateIndex(stmts, plan.feedIds, size)
          ? { ...rows, from: "posts p INDEXED BY posts_by_date" }
          : !sortKeysHold || plan.match !== null
            ? { ...rows, from: "posts p" }
            : {
                from: "posts f INDEXED BY posts_by_feed CROSS JOIN posts p INDEXED BY posts_sort_keys ON p.id = f.id",
                where: "f.feed_id IN (SELECT value FROM json_each(?))",
                args: [JSON.stringify(plan.feedIds)],
                cells: "p.id, 0, p.post_date",
                keysAfter: true,
              },
      );
    }
    if (
      order === "clicks" &&
      phase === 0 &&
      last === null &&
      plan.oneFeed === null &&
      plan.feedIds !== null
    ) {
      // The feeds' clicked posts in (feed, clicks, id) order, sorted: their date keys, not in that
      // index, are read after for the page's posts only. Other filters (a language, dates) are
      // checked on posts_sort_keys, which holds their columns, instead of each post's row: the
      // sort reads every clicked post of the feeds, however few of them pass. Filters that read
      // the date key (sortKeysHold) keep the rows.
      const byFeed = byFeedClicks(stmts, plan.feedIds, plan.feedOnly, size);
      if (byFeed && (plan.feedOnly || !sortKeysHold)) {
        Object.assign(phases[0]!, {
          from: "posts p INDEXED BY posts_by_feed_clicks",
          where: "p.clicks > 0",
          cells: "p.id, 0, p.clicks",
          keysAfter: true,
          byKeys: false,
        });
      } else if (byFeed) {
        Object.assign(phases[0]!, {
          from: `posts f INDEXED BY posts_by_feed_clicks CROSS JOIN posts p INDEXED BY posts_sort_keys ON p.id = f.id`,
          where: "f.feed_id IN (SELECT value FROM json_each(?)) AND f.clicks > 0",
          args: [JSON.stringify(plan.feedIds)],
          cells: "p.id, 0, p.clicks",
          keysAfter: true,
          byKeys: false,
        });
      }
    }
    const hits: Hit[] = [];
    while (hits.length < size && phase < phases.length) {
      const ph = phases[phase]!;
      const where = ph.byKeys === true ? plan.keyFilters : filters;
      const rows = stmts
        .get(`SELECT ${ph.cells} FROM ${ph.from} WHERE ${feed.where}${ph.where} AND ${where.sql}
          ${last === null ? "" : `AND ${ph.resume}`} ORDER BY ${ph.by} LIMIT ?`)
        .raw()
        .all(
          ...feed.args,
          ...(ph.args ?? []),
          ...where.args,
          ...(last === null ? [] : [last[2], last[0]]),
          size - hits.length,
        ) as Array<[number, number, number]>;
      // Without words the keys find and score nothing (every post scores 1): not read.
      const keyOf = ph.keysAfter === true && plan.match !== null ? dateKeys(stmts, rows) : null;
      for (const [id, key] of rows) hits.push([id, keyOf === null ? key : keyOf.get(id)!]);
      if (rows.length > 0) last = rows[rows.length - 1]!;
      if (hits.length < size) {
        phase++;
        last = null;
      }
    }
    return hits;
  };
}

/**
 * Whether `size` posts of these feeds come cheaper from the date index (walked until they are
 * found: about size / their share of the posts) than from the feeds' own index, every one of
 * their posts read and sorted (what SQLite's planner does for a list of feeds). The shares are
 * the feeds' post counts.
 */
function byDateIndex(stmts: StatementCache, feedIds: readonly number[], size: number): boolean {
  const { theirs, all } = stmts
    .get(`SELECT (SELECT coalesce(sum(post_count), 0) FROM feeds WHERE id IN (SELECT value FROM json_each(?))) AS theirs,
      (SELECT coalesce(sum(post_count), 0) FROM feeds) AS "all"`)
    .get(JSON.stringify(feedIds)) as { theirs: number; all: number };
  return theirs > 0 && (size * all) / theirs < theirs;
}

/** The date keys of some posts, by id. */
function dateKeys(
  stmts: StatementCache,
  rows: ReadonlyArray<readonly [number, ...unknown[]]>,
): Map<number, number> {
  return new Map(
    stmts
      .get("SELECT id, date_key FROM posts WHERE id IN (SELECT value FROM json_each(?))")
      .raw()
      .all(JSON.stringify(rows.map(([id]) => id))) as Array<[number, number]>,
  );
}

/**
 * Whether `size` clicked posts of these feeds, most clicked first, come cheaper from the feeds'
 * own index (posts_by_feed_clicks: each feed's clicked posts read in order, all of them sorted)
 * than from the walk of every clicked post (posts_clicked_by_key, about size / their share of
 * the posts read until enough are theirs), as byDateIndex weighs the date order. The shares are
 * the feeds' post counts, their clicked posts their share of all clicked posts (clickedPostCount:
 * sqlite-clicked-index.ts). The walk reads each post's row for its feed;
 * the feeds' index holds the feed, so with no other filter (`feedOnly`) its entries are read in
 * order, an index entry each, against a post found by key for each post walked
 * (sqlite-plan-costs.ts); with one, each entry's post is found by id in posts_sort_keys, which
 * holds the filters' columns (a seek, as the walk's post found by key costs).
 */
function byFeedClicks(
  stmts: StatementCache,
  feedIds: readonly number[],
  feedOnly: boolean,
  size: number,
): boolean {
  if (!clickedIndexed(stmts)) return false;
  const { theirs, all } = stmts
    .get(`SELECT (SELECT coalesce(sum(post_count), 0) FROM feeds WHERE id IN (SELECT value FROM json_each(?))) AS theirs,
      (SELECT coalesce(sum(post_count), 0) FROM feeds) AS "all"`)
    .get(JSON.stringify(feedIds)) as { theirs: number; all: number };
  if (theirs === 0 || all === 0) return false;
  const clicked = clickedPostCount(stmts);
  const walked = (size * all) / theirs;
  const theirClicked = (theirs * clicked) / all;
  const entryCost = feedOnly ? FTS_GATHER_COST_US : POST_BY_KEY_COST_US;
  return theirClicked * entryCost < walked * POST_BY_KEY_COST_US;
}

/**
 * How the hits of a plan with words are scored: the score's SQL over `match` (`plan.narrowed`,
 * whose `feed:` phrases get a negative count and so weigh nothing in sampled_bm25: the scores are
 * the words' own, as over `plan.match`, and every post that passes the filters is a hit of it),
 * the scores some step already computed (`known`, by date key), and how many hits lie among the
 * keys to score when they are spread over the index (`spread`, an estimate; null for keys next
 * to each other). Null without words: every post then scores 1.
 */
export interface Scores {
  sql: string;
  args: Array<number | null>;
  match: string;
  known: Map<number, number>;
  spread: number | null;
}

function scoring(stmts: StatementCache, plan: Plan, bounds: OperatorBounds): Scores | null {
  const match = plan.narrowed ?? plan.match;
  if (match === null) return null;
  const sample = rankingStats(stmts, plan.words, bounds.termSamplePosts, plan.languagePhrases);
  const args = [...sample.args, ...Array.from({ length: plan.feedPhrases }, () => -1)];
  return { sql: scoreSql(args.length - 1), args, match, known: new Map(), spread: null };
}

/**
 * The scores of some hits (positive, higher better), by date key: those a step computed, the
 * others read from the index. Keys next to each other are scored in one pass over their range;
 * keys spread over the index (clicks order) one seek each when that costs less than reading the
 * hits between them (sqlite-search-queries.ts weighs the same choice for the word plans).
 */
function scoresOf(stmts: StatementCache, scores: Scores | null, hits: readonly Hit[]): Map<number, number> {
  if (scores === null) return new Map(hits.map(([, key]) => [key, 1]));
  const keys = hits.map(([, key]) => key).filter((key) => !scores.known.has(key));
  if (keys.length === 0) return scores.known;
  let low = keys[0]!;
  let high = keys[0]!;
  for (const key of keys) {
    low = Math.min(low, key);
    high = Math.max(high, key);
  }
  const seeksCost = keys.length * FTS_TEST_COST_US * Math.max(1, segmentCount(stmts));
  const rows =
    scores.spread !== null && seeksCost < scores.spread * FTS_GATHER_COST_US
      ? stmts
          .get(`SELECT rowid, ${scores.sql} FROM posts_fts
            WHERE posts_fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))`)
          .raw()
          .all(...scores.args, scores.match, JSON.stringify(keys))
      : stmts
          .get(`SELECT rowid, ${scores.sql} FROM posts_fts WHERE posts_fts MATCH ?
            AND rowid BETWEEN ${FTS_ROWID} AND ${FTS_ROWID} AND +rowid IN (SELECT value FROM json_each(?))`)
          .raw()
          .all(...scores.args, scores.match, low, high, JSON.stringify(keys));
  for (const [key, value] of rows as Array<[number, number]>) scores.known.set(key, value);
  return scores.known;
}

/** `[id, score]` of some hits, their scores read by key. */
function scored(stmts: StatementCache, scores: Scores | null, hits: readonly Hit[]): Array<[number, number]> {
  const byKey = scoresOf(stmts, scores, hits);
  return hits.map(([id, key]) => [id, byKey.get(key) ?? 1]);
}

/**
 * One page of the `relevancePool` newest matches ranked ([id, score], best first, ties by id
 * descending), in one statement as sqlite-search-queries.ts ranks words alone: the pool is the
 * `relevancePool` newest hits of `plan.narrowed` (FTS5's descending rowid walk, stopped by its
 * LIMIT), scored as they are read, their posts checked by the filters and ranked by SQLite.
 * The filters pass every one of them when the index answered them all (`feed:`, `-feed:`, dates,
 * languages); when they reject some of a full pool, it is short of the newest matches and null
 * says so (the walk then finds them).
 */
function rankedNewest(
  stmts: StatementCache,
  plan: Plan & { narrowed: string },
  offset: number,
  limit: number,
  bounds: OperatorBounds,
  walk?: Walk,
  scores: Scores | null = null,
): Array<[number, number]> | null {
  // A negative count: the `feed:` phrases weigh nothing (native/sampled_bm25.c), so the scores
  // are the words' own, as the walk scores them.
  const { args } = scores ?? scoring(stmts, plan, bounds)!;
  if (plan.indexAnswers) return rankedByIndex(stmts, plan, offset, limit, bounds, args, walk);
  // The pool is the first `relevancePool` hits of FTS5's descending rowid walk, scored as they
  // are read: one walk of the index, the LIMIT stopping it at the pool's end.
  const rows = stmts
    .get(`WITH h AS MATERIALIZED (SELECT t.rowid AS key, ${scoreSql(args.length - 1)} AS score FROM posts_fts t
        WHERE posts_fts MATCH ? AND t.rowid BETWEEN ${FTS_ROWID} AND ${FTS_ROWID} ORDER BY t.rowid DESC LIMIT ?),
      pool AS MATERIALIZED (SELECT k.id, h.score FROM h CROSS JOIN posts k INDEXED BY posts_by_date_key
        ON k.date_key = h.key ${BY_SORT_KEYS} WHERE ${plan.filters.sql})
      SELECT c.hits, c.passed, r.id, r.score
      FROM (SELECT (SELECT count(*) FROM h) AS hits, (SELECT count(*) FROM pool) AS passed) c
      LEFT JOIN (SELECT id, score FROM pool ORDER BY score DESC, id DESC LIMIT ? OFFSET ?) r ON 1
      ORDER BY r.score DESC, r.id DESC`)
    .raw()
    .all(
      ...args,
      plan.narrowed,
      plan.keys.low,
      plan.keys.high,
      bounds.relevancePool,
      ...plan.filters.args,
      limit,
      offset,
    ) as Array<[number, number, number | null, number | null]>;
  // A pool short of full holds every hit, so the filters' pick is exact whatever they reject.
  const [hits, passed] = rows[0]!;
  if (hits >= bounds.relevancePool && hits !== passed) return null;
  return rows.flatMap(([, , id, score]) => (id === null ? [] : [[id, score!] as [number, number]]));
}

/** Which walk ranks the pool, for the tests that reach each (else the hits' estimate chooses). */
export type Walk = "ascending first" | "descending";

/**
 * rankedNewest when the index answers every filter (`plan.indexAnswers`): the pool is exactly the
 * newest matches, so no post's filters are read, and only the posts down to the page's lowest
 * score (with its ties, which the post id orders: spec §4) are joined to their ids. When the
 * term sample bounds the matches below the pool (within the estimate's margin: an AND of clauses
 * matches no more of the newest posts than its rarest clause), they are read in FTS5's own
 * ascending order, cheaper than descending on long posting lists, up to one past the pool: all of
 * them are the pool, and one past says the estimate was wrong (the descending walk then ranks).
 * When that bound says more, the query's own hits among the newest posts decide, against the
 * lower estimate at which reading oldest first pays on average (ascendingFirstBelow): the
 * descending walk's first hits, so that reading them costs a part of the walk that would follow,
 * reading on to the first match below the newest posts (bench/NOTES.md).
 */
function rankedByIndex(
  stmts: StatementCache,
  plan: Plan & { narrowed: string },
  offset: number,
  limit: number,
  bounds: OperatorBounds,
  args: Array<number | null>,
  walk?: Walk,
): Array<[number, number]> {
  const pool = bounds.relevancePool;
  const { low, high } = plan.keys;
  const sample = newestKeyRange(stmts, bounds.termSamplePosts);
  let few = walk === undefined ? sample === null : walk === "ascending first";
  if (walk === undefined && sample !== null && low <= sample.from && high >= sample.to) {
    // args: the sample's size, then each phrase's posts among it, clause by clause (rankingStats).
    let at = 1;
    let inSample = Number.POSITIVE_INFINITY;
    for (const clause of plan.words.clauses) {
      inSample = Math.min(
        inSample,
        clause.reduce((sum) => sum + ((args[at++] as number | null) ?? Number.POSITIVE_INFINITY), 0),
      );
    }
    const posts = (stmts.get("SELECT max(id) FROM posts").pluck().get() as number | null) ?? 0;
    few = ((inSample * posts) / bounds.termSamplePosts) * SAMPLE_ESTIMATE_MARGIN <= pool;
    const oneList =
      plan.words.clauses.length === 1 &&
      plan.words.clauses[0]!.length === 1 &&
      plan.words.excluded.length === 0 &&
      plan.feedPhrases + plan.languagePhrases === 0;
    if (!few && !oneList) {
      // The rarest clause bounds the query's hits from above only: the other clauses, the `feed:`
      // and language phrases and the exclusions may leave far fewer (words a feed's language does
      // not use). The query's own hits among the newest keys are the descending walk's first,
      // read until past the sample or enough to say many; none at all says the page is empty.
      const cap = Math.floor((ascendingFirstBelow(pool) * bounds.termSamplePosts) / Math.max(1, posts)) + 1;
      const newest = newestHitsInSample(stmts, plan.narrowed, sample.from, cap);
      if (newest === null) return [];
      few = newest < cap;
    }
  }
  const hits = (
    order: string,
  ) => `h AS MATERIALIZED (SELECT t.rowid AS key, ${scoreSql(args.length - 1)} AS score
      FROM posts_fts t WHERE posts_fts MATCH ? AND t.rowid BETWEEN ${FTS_ROWID} AND ${FTS_ROWID} ${order} LIMIT ?)`;
  const want = offset + limit;
  // A page this deep sorts the whole pool anyway (as rankNewest's deep page, sqlite-search-queries.ts):
  // one window over the scores gives each hit how many score above its tie group and how many at
  // least as high, so only the groups that meet the page get their ids, not every hit above it.
  const deep = 2 * want + 1 >= pool;
  const rank = (order: string, cap: number): Array<[number, number, number]> => {
    if (!deep)
      return stmts
        .get(`WITH ${hits(order)},
          edge AS MATERIALIZED (SELECT score FROM h ORDER BY score DESC LIMIT 1 OFFSET ?)
          SELECT (SELECT count(*) FROM h), k.id, h.score FROM h
          CROSS JOIN posts k INDEXED BY posts_by_date_key ON k.date_key = h.key
          WHERE NOT EXISTS (SELECT 1 FROM edge) OR h.score >= (SELECT score FROM edge)
          ORDER BY h.score DESC, k.id DESC LIMIT ? OFFSET ?`)
        .raw()
        .all(...args, plan.narrowed, low, high, cap, want - 1, limit, offset) as Array<
        [number, number, number]
      >;
    const groups = stmts
      .get(`WITH ${hits(order)},
        g AS MATERIALIZED (SELECT key, score, rank() OVER s - 1 AS above, count(*) OVER s AS through
          FROM h WINDOW s AS (ORDER BY score DESC))
        SELECT (SELECT count(*) FROM h), k.id, g.score, g.above FROM g
        CROSS JOIN posts k INDEXED BY posts_by_date_key ON k.date_key = g.key
        WHERE g.above < ? AND g.through > ?
        ORDER BY g.score DESC, k.id DESC`)
      .raw()
      .all(...args, plan.narrowed, low, high, cap, want, offset) as Array<[number, number, number, number]>;
    // Groups are whole: the first one's hits above it are all before the page.
    const before = groups.reduce((least, [, , , above]) => Math.min(least, above), Number.POSITIVE_INFINITY);
    return groups.slice(offset - before, want - before).map(([count, id, score]) => [count, id, score]);
  };
  const ascending = few ? rank("", pool + 1) : null;
  const rows =
    ascending !== null && (ascending[0]?.[0] ?? 0) <= pool ? ascending : rank("ORDER BY t.rowid DESC", pool);
  return rows.map(([, id, score]) => [id, score]);
}

/**
 * One page ranked by rankedNewest, or null when that plan cannot answer it (no words, filters the
 * index cannot answer that reject hits): exported for the tests that
 * reach each plan.
 */
export function rankedNewestPage(
  stmts: StatementCache,
  plan: Plan,
  offset: number,
  limit: number,
  bounds: OperatorBounds = BOUNDS,
  walk?: Walk,
  scores: Scores | null = null,
): Array<[number, number]> | null {
  const { narrowed } = plan;
  if (narrowed === null) return null;
  return rankedNewest(stmts, { ...plan, narrowed }, offset, limit, bounds, walk, scores);
}

/**
 * A page of a search with words, a list of feeds and a language, when the feeds' posts of that
 * language (`plan.filterSet` within the date keys) are at most FEW_HITS: those keys read from
 * posts_fts whole (the read stops past FEW_HITS), the words' hits among them scored by key as
 * every plan here scores them (Scores), and ordered whole: by score then id, by date key, or by
 * clicks (sortedByClicks). The per-feed plan and the walks read the words' posting lists of every
 * feed or of the whole index, whatever the feeds write of the language. Null when the set is
 * larger, or the index does not answer the filters (`indexAnswers`), or (relevance) more hits
 * than the pool, which ranks the newest only.
 */
function fewSetPage(
  stmts: StatementCache,
  plan: Plan,
  scores: Scores | null,
  page: PostPage & { sort: SearchSort },
  bounds: OperatorBounds,
): Array<[number, number]> | null {
  if (scores === null || plan.filterSet === null || !plan.indexAnswers) return null;
  const keys = fewKeys(stmts, plan.filterSet, plan.keys);
  if (keys === null) return null;
  const hits = stmts
    .get(`SELECT rowid, ${scores.sql} FROM posts_fts
      WHERE posts_fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))`)
    .raw()
    .all(...scores.args, scores.match, JSON.stringify(keys)) as Array<[number, number]>;
  if (page.sort === "relevance" && hits.length > bounds.relevancePool) return null;
  const scoreOf = new Map(hits);
  const end = page.offset + page.limit;
  const hitKeys = hits.map(([key]) => key);
  const ids = idsOfKeys(stmts, hitKeys);
  let onPage: number[];
  if (page.sort === "clicks") {
    onPage = sortedByClicks(stmts, hitKeys, page.offset, page.limit);
  } else if (page.sort === "date") {
    onPage = hitKeys.sort((a, b) => b - a).slice(page.offset, end);
  } else {
    onPage = [...hits]
      .sort((a, b) => b[1] - a[1] || ids.get(b[0])! - ids.get(a[0])!)
      .slice(page.offset, end)
      .map(([key]) => key);
  }
  return onPage.map((key) => [ids.get(key)!, scoreOf.get(key)!]);
}

/**
 * One page of a search that uses operators (`usesOperators(query)`), as `searchPosts` answers.
 * Relevance without words (`feed:name after:2026-01-01`) lists the posts newest first, each
 * scored 1.
 */
export function searchWithOperators(
  stmts: StatementCache,
  page: PostPage & { query: SearchQuery; sort: SearchSort },
  bounds: OperatorBounds = BOUNDS,
): Array<PostRecord & { score: number }> {
  if (page.limit === 0 || page.languageIds?.length === 0) return [];
  const plan = planOf(page.query, page.languageIds);
  const scores = scoring(stmts, plan, bounds);
  // A feed: with words reads the feeds' own lists when it applies (fts5-feed-search.ts).
  // The newest hits the page reads: the relevance pool, the page's end by date, the clicks cap.
  const need =
    page.sort === "relevance"
      ? bounds.relevancePool
      : page.sort === "clicks"
        ? Math.max(FEW_HITS, HIT_WALK_FACTOR * (page.offset + page.limit))
        : page.offset + page.limit;
  const inSet = fewSetPage(stmts, plan, scores, page, bounds);
  const lists =
    inSet === null ? feedLists(stmts, page.query, plan, scores, bounds.feedStatementUs, need) : null;
  const byClickedIndex = page.sort === "clicks" && plan.indexAnswers && clickedIndexed(stmts);
  let ranked: Array<[number, number]>;
  if (inSet !== null) {
    ranked = inSet;
  } else if (page.sort !== "relevance" || plan.match === null) {
    const byFeed =
      lists === null || scores === null
        ? null
        : page.sort === "clicks"
          ? // One feed's posts come most clicked first from the plans over posts_fts (the clicked
            // posts' index, the feed's own posts_by_feed_clicks); a list of feeds has no such
            // index, and reads its hits here: every one, sorted. Where the clicked posts' index
            // answers every filter, its page past the first is a skip there, and the first a
            // stream, so the sort serves only a first page of few hits.
            plan.oneFeed !== null || (byClickedIndex && page.offset > 0)
            ? null
            : clickedFeedPage(
                stmts,
                lists,
                plan,
                scores,
                page.offset,
                page.limit,
                byClickedIndex ? FEW_HITS : Math.max(FEW_HITS, HIT_WALK_FACTOR * (page.offset + page.limit)),
              )
          : // Past the first page, the merge of several statements reads every hit before the
            // page; where the index answers every filter, posts_fts skips them (newestHits).
            lists.streams.length > 1 && plan.indexAnswers && page.offset > 0
            ? null
            : newestFeedPage(stmts, lists, plan, scores, page.offset, page.limit);
    const found =
      byFeed ??
      orderedHits(stmts, plan, page.sort === "clicks" ? "clicks" : "date", page.offset, page.limit, scores);
    ranked = scored(stmts, scores, found);
  } else {
    const pool = bounds.relevancePool;
    if (page.offset >= pool) return [];
    const limit = Math.min(page.limit, pool - page.offset);
    ranked =
      (lists === null ? null : rankedFeedHits(stmts, lists, plan, pool, page.offset, limit)) ??
      rankedNewestPage(stmts, plan, page.offset, limit, bounds, undefined, scores) ??
      scored(stmts, scores, orderedHits(stmts, plan, "date", 0, pool, scores))
        .sort((a, b) => b[1] - a[1] || b[0] - a[0])
        .slice(page.offset, page.offset + limit);
  }
  const scoreOf = new Map(ranked);
  return postsInOrder(
    stmts,
    ranked.map(([id]) => id),
  ).map((row) => ({ ...row, score: scoreOf.get(row.postId)! }));
}

/** How many posts a search with operators matches, up to `cap + 1` (see sqlite-search-count.ts). */
export function countWithOperators(
  stmts: StatementCache,
  args: { query: SearchQuery; languageIds: readonly number[] | null; cap: number },
): number {
  if (args.languageIds?.length === 0) return 0;
  const plan = planOf(args.query, args.languageIds);
  const { match, filters } = plan;
  // Common words: count by the walk (the filtered posts, batch by batch), not by every hit.
  if (match !== null && hitCount(stmts, match, FEW_HITS) > FEW_HITS) {
    return orderedHits(stmts, plan, "date", 0, args.cap + 1).length;
  }
  if (match !== null) {
    return stmts
      .get(`SELECT count(*) FROM (SELECT p.id FROM posts_fts t CROSS JOIN posts p INDEXED BY posts_by_date_key
        ON p.date_key = t.rowid WHERE posts_fts MATCH ? AND ${filters.sql} LIMIT ?)`)
      .pluck()
      .get(match, ...filters.args, args.cap + 1) as number;
  }
  return stmts
    .get(`SELECT count(*) FROM (SELECT p.id FROM posts p WHERE ${filters.sql} LIMIT ?)`)
    .pluck()
    .get(...filters.args, args.cap + 1) as number;
}
