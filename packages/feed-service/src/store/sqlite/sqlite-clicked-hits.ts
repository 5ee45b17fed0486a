/**
 * Full-text hits most clicked first (ties by id descending), exactly. Since schema 23 the posts
 * have a second full-text index whose rowid order is this order (sqlite-clicked-index.ts; every
 * post since schema 31, the unclicked ones after the clicked by id): its hits are read in page
 * order (streamClicked), those before the page skipped in its rowids alone, each post's date key
 * found by its key in posts_clicked_by_key (a clicked post) or by id (an unclicked one). Since
 * schema 32 a range of date keys bounded on day starts (every `after:`/`before:`) is part of the
 * MATCH there, as its posts' period tokens (sqlite-clicked-periods.ts), so a page within it is a
 * skip as without one. Otherwise a range of date keys is checked on those posts, so with one the
 * stream gives way, once most of the hits it read fell outside, to the cheaper of the older ways in:
 * - from the clicked posts: walk them in (clicks desc, id desc) order through `posts_clicked_by_key`
 *   (`posts_clicked_by_language` for one language) and ask FTS5 which of each batch match (`rowid IN`
 *   their date keys). For a common word most of the most clicked posts match, so a page needs a few
 *   hundred tests whatever the hit count.
 * - from the hits: let SQLite gather every hit's id into a temporary index and walk the clicked
 *   posts against it: cheap a hit, so the way in for a word in few posts.
 * The hit count is estimated first (counted exactly when small, else from the hits among the
 * newest posts); the clicked walk gives up for the hit side once it has spent twice its estimate.
 * Posts with no click follow, highest id first (spec §4 ties). Every list here is of date keys,
 * the index's rowids (sqlite-date-keys.ts). The walk's test of a post is the seek that scoring it
 * needs too, so when given the score it keeps each match's score: a page found that way needs no
 * second seek per post (sqlite-search-queries.ts). A range of date keys (`filter.keys`, from
 * `after:`/`before:`) bounds every read: the clicked posts' indexes hold each one's key, and the
 * index's rowid is the key, so the range is part of each step and no hit outside it is read.
 */
import { CLICKED_FTS, ID_BITS, searchIndexTotals } from "./sqlite-clicked-index.js";
import { periodNarrowing } from "./sqlite-clicked-periods.js";
import { FTS_ROWID } from "./sqlite-columns.js";
import type { StatementCache } from "./sqlite-connection.js";
import { SLOTS } from "./sqlite-date-keys.js";
import type { HitFilter } from "./sqlite-newest-hits.js";
import {
  CLICKED_RANGE_FACTOR,
  FTS_GATHER_COST_US as GATHER_COST_US,
  POST_BY_KEY_COST_US,
  SAMPLE_ESTIMATE_MARGIN,
  HIT_SAMPLE_POSTS as SAMPLE_POSTS,
  FTS_SCORE_COST_US as SCORE_COST_US,
  EXACT_HITS_BELOW as SMALL_HITS,
  FTS_TEST_COST_US as TEST_COST_US,
} from "./sqlite-plan-costs.js";
import { segmentCount } from "./sqlite-search-maintenance.js";
import { type KeyRange, newestKeyRange, scoreSql, WEIGHTS } from "./sqlite-term-sample.js";

/**
 * How to read the clicked posts of a search's languages in (clicks desc, id desc) order: for one
 * language, its own range of `posts_clicked_by_language` (schema 19), so that a small language's
 * clicked posts are read without the others'; else the clicked posts of every language, filtered.
 */
function clickedAccess(filter: HitFilter, alias: string): { from: string; where: string; params: unknown[] } {
  const languages = filter.languages === null ? null : (JSON.parse(filter.languages) as number[]);
  if (languages?.length === 1) {
    return {
      from: `posts ${alias} INDEXED BY posts_clicked_by_language`,
      where: `${alias}.language_id = ?`,
      params: languages,
    };
  }
  return {
    from: `posts ${alias} INDEXED BY posts_clicked_by_key`,
    where: languages === null ? "1" : `${alias}.language_id IN (SELECT value FROM json_each(?))`,
    params: languages === null ? [] : [filter.languages],
  };
}

/** The lowest and highest date keys, beyond any post's (sqlite-date-keys.ts clamps seconds to ±2^36). */
const EVERY_KEY = { low: -(2 ** 53 - 1), high: 2 ** 53 - 1 };

/**
 * The keys of the newest `size` posts within `keys` (the index's newest posts when the range
 * reaches them: kept per connection), or null when the range holds fewer posts.
 */
export function sampleIn(
  stmts: StatementCache,
  keys: { low: number; high: number },
  size = SAMPLE_POSTS,
): KeyRange | null {
  const newest = newestKeyRange(stmts, size);
  if (newest === null) return null;
  if (keys.high >= newest.to) return keys.low <= newest.from ? newest : null;
  const from = stmts
    .get(`SELECT date_key FROM posts INDEXED BY posts_by_date_key WHERE date_key <= ${FTS_ROWID}
      ORDER BY date_key DESC LIMIT 1 OFFSET ?`)
    .pluck()
    .get(keys.high, size - 1) as number | undefined;
  return from !== undefined && from >= keys.low ? { from, to: keys.high } : null;
}

/**
 * An estimate of how many posts match (`posts`: how many there are, about). The hits among the
 * newest posts give it; when they do not show far more than SMALL_HITS (up to the estimate's
 * margin), the hits are counted exactly up to that many, and below it every hit's key comes back
 * too (the walk that counted them is the one a gather would repeat), with its score when scoring
 * every hit on that walk costs less than seeking each post of a page of `want` after (`scored`:
 * the read then takes the whole MATCH, whose scores these are, rather than `find`). The exact
 * read is skipped when the sample's estimate, within its margin either way, already says that the
 * keys would serve nothing (`keysServe`: no sort of them would be cheaper than gathering from the
 * index, which reads every hit itself). With a range of keys, the sample is its newest posts
 * (sampleIn), and the estimate counts all posts as the range's, an upper bound.
 */
function estimateHits(
  stmts: StatementCache,
  filter: HitFilter,
  want: number,
  posts: number,
  samplePosts: number,
  keysServe: (hits: number) => boolean,
  scored?: ScoreSink,
): { hits: number; keys: number[] | null; scores: Map<number, number> | null } {
  const keys = filter.keys ?? EVERY_KEY;
  const find = filter.find ?? filter.match;
  const range = sampleIn(stmts, keys, samplePosts);
  let sampled: number | null = null;
  if (range !== null) {
    const inSample = countHits(stmts, "posts_fts", find, { low: range.from, high: range.to });
    sampled = (inSample / samplePosts) * posts;
    if (sampled > SAMPLE_ESTIMATE_MARGIN * SMALL_HITS) return { hits: sampled, keys: null, scores: null };
  }
  const cap = sampled === null ? SMALL_HITS : SAMPLE_ESTIMATE_MARGIN * SMALL_HITS;
  const withScores = scored !== undefined && want * TEST_COST_US > (sampled ?? cap) * SCORE_COST_US;
  if (sampled !== null && !withScores && !keysServe(sampled)) {
    return { hits: sampled, keys: null, scores: null };
  }
  const rows = stmts
    .get(`SELECT rowid, ${withScores ? scored.sql : "0"} FROM posts_fts WHERE posts_fts MATCH ?
      AND rowid BETWEEN ${FTS_ROWID} AND ${FTS_ROWID} LIMIT ?`)
    .raw()
    .all(
      ...(withScores ? scored.args : []),
      withScores ? filter.match : find,
      keys.low,
      keys.high,
      cap,
    ) as Array<[number, number]>;
  if (rows.length < cap) {
    return {
      hits: rows.length,
      keys: rows.map(([key]) => key),
      scores: withScores ? new Map(rows) : null,
    };
  }
  return { hits: Math.max(cap, sampled ?? 0), keys: null, scores: null };
}

/** A score's SQL over `posts_fts` and its parameters, and where the scores of the hits go. */
export interface ScoreSink {
  sql: string;
  args: ReadonlyArray<number | null>;
  scores: Map<number, number>;
}

/**
 * The keys of the first `want` clicked hits by walking the clicked posts, or null when over
 * budget; each match's score goes to `scored` when given (computed only for the matches).
 */
export function walkClicked(
  stmts: StatementCache,
  filter: HitFilter,
  want: number,
  budgetTests: number,
  scored?: ScoreSink,
  ids?: Map<number, number>,
): number[] | null {
  const access = clickedAccess(filter, "p");
  const keys = filter.keys ?? EVERY_KEY;
  // The key range is checked on the index's own entries: posts outside it are never tested.
  const next = stmts
    .get(`SELECT p.clicks, p.id, p.date_key FROM ${access.from}
      WHERE p.clicks > 0 AND (p.clicks, p.id) < (?, ?) AND ${access.where}
      AND p.date_key BETWEEN ${FTS_ROWID} AND ${FTS_ROWID}
      ORDER BY p.clicks DESC, p.id DESC LIMIT ?`)
    .raw();
  const test = stmts
    .get(`SELECT rowid, ${scored?.sql ?? "0"} FROM posts_fts
      WHERE posts_fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))`)
    .raw();
  const args = scored?.args ?? [];
  const found: number[] = [];
  let after: readonly number[] = [Number.MAX_SAFE_INTEGER, 0];
  let batch = 128;
  let tested = 0;
  while (found.length < want) {
    if (tested >= budgetTests) return null;
    const rows = next.all(after[0], after[1], ...access.params, keys.low, keys.high, batch) as Array<
      [number, number, number]
    >;
    if (rows.length === 0) break;
    const matching = new Map(
      test.all(...args, filter.match, JSON.stringify(rows.map((r) => r[2]))) as Array<[number, number]>,
    );
    for (const [, id, key] of rows) {
      if (!matching.has(key) || found.length >= want) continue;
      found.push(key);
      ids?.set(key, id);
      scored?.scores.set(key, matching.get(key)!);
    }
    tested += rows.length;
    after = rows[rows.length - 1]!;
    // The next batch is what the share of matches so far says the rest of the page needs (a
    // tenth more), so that the last batch does not test up to twice what the page needs.
    const share = Math.max(found.length, 1) / tested;
    batch = Math.max(64, Math.min(batch * 2, 2048, Math.ceil(((want - found.length) / share) * 1.1)));
  }
  return found;
}

/** The highest rowid SQLite can hold, above every key of the clicked posts' index. */
const TOP_CLICKED_KEY = 2n ** 63n - 1n;

/** Whether the database has the clicked posts' index (schema 23), per connection. */
const hasClickedIndex = new WeakMap<StatementCache, boolean>();

export function clickedIndexed(stmts: StatementCache): boolean {
  let known = hasClickedIndex.get(stmts);
  if (known === undefined) {
    known =
      stmts.get("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(CLICKED_FTS) !==
      undefined;
    hasClickedIndex.set(stmts, known);
  }
  return known;
}

/** The lowest and highest date keys of the posts, or null without posts. */
function postKeys(stmts: StatementCache): { low: number; high: number } | null {
  const [low, high] = stmts
    .get("SELECT (SELECT min(date_key) FROM posts), (SELECT max(date_key) FROM posts)")
    .raw()
    .get() as [number | null, number | null];
  return low === null || high === null ? null : { low, high };
}

/** A range of date keys when it leaves out some post's key; else undefined (every key). */
function narrowing(
  stmts: StatementCache,
  keys: HitFilter["keys"],
): { low: number; high: number } | undefined {
  if (keys === undefined) return undefined;
  const posts = postKeys(stmts);
  return posts === null || (keys.low <= posts.low && keys.high >= posts.high) ? undefined : keys;
}

/** Whether the clicked posts' index holds the posts' period tokens (schema 32), per connection. */
const hasPeriods = new WeakMap<StatementCache, boolean>();

function periodsIndexed(stmts: StatementCache): boolean {
  let known = hasPeriods.get(stmts);
  if (known === undefined) {
    known =
      stmts.get("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get() !==
        undefined &&
      stmts.get("SELECT 1 FROM schema_migrations WHERE version = ?").get(PERIODS_SCHEMA) !== undefined;
    hasPeriods.set(stmts, known);
  }
  return known;
}

/** The schema version whose clicked posts' index holds period tokens. */
const PERIODS_SCHEMA = 32;

/** Posts read, evenly spaced by id, to tell about what share of them a date range holds. */
const SHARE_SAMPLE = 64;

/**
 * About the share of the posts whose date keys are within `keys`: of posts at evenly spaced ids,
 * their dates read from posts_sort_keys (a narrow index; a day-bounded range of keys is a range
 * of dates): a plan's choice between two exact MATCHes, not a result.
 */
function insideShare(stmts: StatementCache, keys: { low: number; high: number }): number {
  const top = (stmts.get("SELECT max(id) FROM posts").pluck().get() as number | null) ?? 0;
  const ids = Array.from({ length: SHARE_SAMPLE }, (_, i) => Math.ceil(((i + 1) * top) / SHARE_SAMPLE));
  const [seen, inside] = stmts
    .get(`SELECT count(*), total(p.post_date >= ? AND p.post_date < ?) FROM posts p INDEXED BY posts_sort_keys
      WHERE p.id IN (SELECT value FROM json_each(?))`)
    .raw()
    .get((keys.low / SLOTS) * 1000, ((keys.high + 1) / SLOTS) * 1000, JSON.stringify(ids)) as [
    number,
    number,
  ];
  return seen === 0 ? 0 : inside / seen;
}

/**
 * The filter and score of a page by clicks within the date keys `keys` as a MATCH of the clicked
 * posts' index alone: the words narrowed by its period tokens (sqlite-clicked-periods.ts), so
 * that its hits are exactly those within the range and any page is a skip as without one; the
 * period phrases, numbered after the query's, weigh nothing in the score (a negative count). Null
 * when the index holds no period tokens or a bound is not a day start.
 */
function periodFilter(
  stmts: StatementCache,
  filter: HitFilter,
  keys: { low: number; high: number },
  scored: ScoreSink | undefined,
): { filter: HitFilter; scored: ScoreSink | undefined } | null {
  const posts = postKeys(stmts);
  if (posts === null || !periodsIndexed(stmts)) return null;
  const periods = periodNarrowing(keys, posts, insideShare(stmts, keys));
  if (periods === null) return null;
  // The same filter less its keys, which the MATCH now answers.
  const narrowed: HitFilter = {
    languages: filter.languages,
    match: periods.narrow(filter.match),
    ...(filter.find === undefined ? {} : { find: periods.narrow(filter.find) }),
  };
  if (scored === undefined) return { filter: narrowed, scored };
  const phrases = scored.args.length - 1;
  return {
    filter: narrowed,
    scored: {
      sql: scored.sql === scoreSql(phrases) ? scoreSql(phrases + periods.phrases) : scored.sql,
      args: [...scored.args, ...new Array<number>(periods.phrases).fill(-1)],
      scores: scored.scores,
    },
  };
}

/**
 * The score of `scored` read from the clicked posts' index, or null when it cannot be: the same
 * bm25 over the same row (its tokens and length are posts_fts's), with posts_fts's totals for the
 * mean length, so the same double (native/sampled_bm25.c, `sampled_bm25_over`); only for a sample's
 * statistics (counting a phrase's posts would count this index's).
 */
function clickedScore(
  stmts: StatementCache,
  scored: ScoreSink | undefined,
): { sql: string; args: unknown[] } | null {
  if (scored === undefined || scored.args[0] === null) return null;
  const phrases = scored.args.length - 1;
  if (scored.sql !== scoreSql(phrases)) return null;
  const totals = searchIndexTotals(stmts);
  return {
    sql: `sampled_bm25_over(${CLICKED_FTS}, ?, ?, '${CLICKED_FTS}_docsize', ${WEIGHTS}, ?${", ?".repeat(phrases)})`,
    args: [totals.rows, totals.tokens, ...scored.args],
  };
}

/**
 * The keys of the first `want` clicked hits within the filter's date keys, read from the clicked
 * posts' index in its rowid order, which is the order wanted (sqlite-clicked-index.ts); fewer
 * when fewer clicked posts match; null when `budget` hits were read without filling the page
 * (the date range holding few of them). Without a date range every hit read is on the page.
 * With `scored`, each hit's score goes there when this index can give it (clickedScore): the
 * whole MATCH is read then, else the finding one.
 */
export function streamClicked(
  stmts: StatementCache,
  filter: HitFilter,
  want: number,
  budget = Number.POSITIVE_INFINITY,
  scored?: ScoreSink,
  ids?: Map<number, number>,
  from: bigint = TOP_CLICKED_KEY,
): number[] | null {
  const keys = narrowing(stmts, filter.keys);
  const score = clickedScore(stmts, scored);
  // A clicked post's date key from posts_clicked_by_key, which holds it; an unclicked one's (its
  // key is its id) from its row. CASE evaluates only the branch taken.
  const read = stmts
    .get(`SELECT c.rowid, CASE WHEN c.rowid > ${2 ** ID_BITS - 1}
        THEN (SELECT p.date_key FROM posts p INDEXED BY posts_clicked_by_key
          WHERE p.clicks = c.rowid >> ${ID_BITS} AND p.id = c.rowid & ${2 ** ID_BITS - 1} AND p.clicks > 0)
        ELSE (SELECT u.date_key FROM posts u WHERE u.id = c.rowid AND u.clicks = 0) END,
        ${score?.sql ?? "0"}, c.rowid & ${2 ** ID_BITS - 1} FROM ${CLICKED_FTS} c
      WHERE ${CLICKED_FTS} MATCH ? AND c.rowid <= ? ORDER BY c.rowid DESC LIMIT ?`)
    .raw()
    .safeIntegers(true);
  const found: number[] = [];
  let atMost = from;
  let done = 0;
  while (found.length < want) {
    if (done >= budget) return null;
    // Every hit passes without a range; with one, the share passing so far sizes the next read.
    const share = keys === undefined || done === 0 ? 1 : Math.max(found.length, 1) / done;
    const size = Math.min(
      Math.max(64, Math.ceil((want - found.length) / share)),
      Math.max(64, budget - done),
    );
    const rows = read.all(
      ...(score?.args ?? []),
      score === null ? (filter.find ?? filter.match) : filter.match,
      atMost,
      size,
    ) as Array<[bigint, bigint | null, number, bigint]>;
    for (const [, key, value, id] of rows) {
      if (found.length >= want) break;
      // A row whose post is gone or moved (never, the writers keeping both in one transaction).
      if (key === null) continue;
      const k = Number(key);
      if (keys !== undefined && (k < keys.low || k > keys.high)) continue;
      found.push(k);
      ids?.set(k, Number(id));
      if (score !== null) scored!.scores.set(k, value);
    }
    done += rows.length;
    if (rows.length < size) break;
    atMost = rows[rows.length - 1]![0] - 1n;
  }
  return found.slice(0, want);
}

/**
 * The keys of the first `want` clicked hits by gathering every hit (from the index, or `hitKeys`
 * when every hit's key is known already).
 */
export function gatherClicked(
  stmts: StatementCache,
  filter: HitFilter,
  want: number,
  hitKeys: readonly number[] | null = null,
): number[] {
  const keys = filter.keys ?? EVERY_KEY;
  const hits =
    hitKeys === null
      ? `SELECT rowid FROM posts_fts WHERE posts_fts MATCH ? AND rowid BETWEEN ${FTS_ROWID} AND ${FTS_ROWID}`
      : "SELECT value FROM json_each(?)";
  const hitArgs = hitKeys === null ? [filter.match, keys.low, keys.high] : [JSON.stringify(hitKeys)];
  const access = clickedAccess(filter, "p");
  return stmts
    .get(`SELECT p.date_key FROM ${access.from}
      WHERE p.clicks > 0 AND p.date_key IN (${hits}) AND ${access.where}
      ORDER BY p.clicks DESC, p.id DESC LIMIT ?`)
    .pluck()
    .all(...hitArgs, ...access.params, want) as number[];
}

/**
 * Hits `offset` to `offset + limit` of some hits (their keys), most clicked first and then the
 * unclicked newest id first: each post found by its key, its clicks read from posts_sort_keys.
 */
export function sortedByClicks(
  stmts: StatementCache,
  keys: readonly number[],
  offset: number,
  limit: number,
): number[] {
  return stmts
    .get(`SELECT k.date_key FROM json_each(?) j
      CROSS JOIN posts k INDEXED BY posts_by_date_key ON k.date_key = j.value
      CROSS JOIN posts p INDEXED BY posts_sort_keys ON p.id = k.id
      ORDER BY p.clicks DESC, p.id DESC LIMIT ? OFFSET ?`)
    .pluck()
    .all(JSON.stringify(keys), limit, offset) as number[];
}

/**
 * A page of hits most clicked first: their keys, how many hits there are (an estimate), and the
 * post ids of those keys that the walk read with them (`ids`, by key: the clicked posts' index
 * keys each row by clicks and post id, posts_clicked_by_key holds the id), so that the page's
 * posts need no second seek from key to id; keys missing there (the unclicked tail, a gather)
 * are read by key as before.
 */
export interface ClickedHitPage {
  keys: number[];
  hits: number;
  ids: Map<number, number>;
}

/**
 * The keys of hits `offset` to `offset + limit` most clicked first; the scores of those that the
 * walk of the clicked posts found go to `scored` when given. `samplePosts`: how many of the newest
 * posts estimate the hits (tests make it small to reach each way in on a small database).
 *
 * @example
 * mostClickedHitPage(stmts, { match: '"rust"', languages: null }, 0, 20).keys;
 */
export function mostClickedHitPage(
  stmts: StatementCache,
  filter: HitFilter,
  offset: number,
  limit: number,
  scored?: ScoreSink,
  samplePosts: number = SAMPLE_POSTS,
): ClickedHitPage {
  const want = offset + limit;
  const indexed = clickedIndexed(stmts);
  const range = indexed ? narrowing(stmts, filter.keys) : undefined;
  const ids = new Map<number, number>();
  if (range !== undefined) {
    // The range as period tokens in the same MATCH: then a page as without a range (below).
    const periods = periodFilter(stmts, filter, range, scored);
    if (periods !== null && offset > 0) {
      return skippedClickedPage(stmts, periods.filter, offset, limit, periods.scored, ids);
    }
    if (periods !== null) {
      const keys = streamClicked(stmts, periods.filter, want, Number.POSITIVE_INFINITY, periods.scored, ids);
      return { keys: keys ?? [], hits: keys?.length ?? 0, ids };
    }
  }
  const ranged = range !== undefined;
  let streamed: number[] | null = null;
  if (indexed) {
    // Without a date range every hit of the clicked posts' index is on the page, in order; with
    // one, those outside it are read and passed over, up to CLICKED_RANGE_FACTOR × `want` hits
    // before giving way to the plans below. The index holds every post, so a stream that did not
    // give way gave the page: full (its hit count then only known to be `want` or more), or short
    // with every hit read. Keys it could not score are scored after (the caller's seeks).
    if (!ranged && offset > 0) return skippedClickedPage(stmts, filter, offset, limit, scored, ids);
    const budget = ranged ? CLICKED_RANGE_FACTOR * want : Number.POSITIVE_INFINITY;
    streamed = streamClicked(stmts, filter, want, budget, scored, ids);
    if (streamed !== null) return { keys: streamed.slice(offset), hits: streamed.length, ids };
    // The stream gave way: the plans below find the page anew.
    ids.clear();
  }
  // Reads of every hit take the finding MATCH (the whole one when they score on the way); the
  // walk tests the whole MATCH, so that it keeps each match's score.
  const reads = filter.find === undefined ? filter : { ...filter, match: filter.find };
  const posts = (stmts.get("SELECT max(id) FROM posts").pluck().get() as number | null) ?? 0;
  // The walk tests posts of the search's languages only: a share `hits / inScope` of them match.
  const inScope =
    filter.languages === null
      ? posts
      : ((stmts
          .get("SELECT sum(post_count) FROM languages WHERE id IN (SELECT value FROM json_each(?))")
          .pluck()
          .get(filter.languages) as number | null) ?? 0);
  // A test seeks in every segment of the index; gathering reads each hit once whatever the segments.
  const testCost = TEST_COST_US * Math.max(1, segmentCount(stmts));
  const testsFor = (hits: number) => (want * Math.max(inScope, hits, 1)) / Math.max(hits, 1);
  // A page gathered or sorted from the hits is scored after, a seek per post, unless the read of
  // every hit scored them; the walk's tests score the matches they find on the way.
  const gatherCostFor = (hits: number, scoresRead: boolean) =>
    hits * GATHER_COST_US + (scored === undefined || scoresRead ? 0 : want * testCost);
  const walks = (hits: number, scoresRead: boolean) =>
    testsFor(hits) * testCost < gatherCostFor(hits, scoresRead);
  // The gather reads every hit and the clicked posts of the search's languages in order until
  // `want` of them are hits (about testsFor(hits) of them); sorting known keys' posts by clicks
  // instead costs a seek pair per key.
  const gatherReadFor = (hits: number) =>
    (hits + Math.min(testsFor(hits), Math.max(inScope, hits))) * GATHER_COST_US;
  const sorts = (hits: number) => hits * POST_BY_KEY_COST_US < gatherReadFor(hits);
  // Whether an estimate of `hits` (within its margin either way) could make those keys worth reading.
  const keysServe = (hits: number) =>
    [hits / SAMPLE_ESTIMATE_MARGIN, hits * SAMPLE_ESTIMATE_MARGIN].some((h) => !walks(h, false) && sorts(h));
  const { hits, keys, scores } = estimateHits(stmts, filter, want, posts, samplePosts, keysServe, scored);
  const page = (found: number[]): ClickedHitPage => {
    if (scores !== null && scored !== undefined) {
      for (const key of found) scored.scores.set(key, scores.get(key)!);
    }
    return { keys: found, hits, ids };
  };
  const gatherCost = gatherCostFor(hits, scores !== null);
  let clicked: number[] | null = streamed;
  if (clicked === null && walks(hits, scores !== null)) {
    clicked = walkClicked(stmts, filter, want, Math.ceil((2 * gatherCost) / testCost), scored, ids);
  }
  // Every hit's key known: its posts sorted, when that costs less than the gather.
  if (clicked === null && keys !== null && sorts(keys.length)) {
    return page(sortedByClicks(stmts, keys, offset, limit));
  }
  clicked ??= gatherClicked(stmts, reads, want, keys);
  if (clicked.length >= want) return page(clicked.slice(offset));
  const rest = unclickedAfter(stmts, reads, clicked, keys, offset, limit, scores, scored);
  return { keys: rest.keys, hits, ids };
}

/**
 * The page once every clicked hit is known (`clicked`, in order): they, then the unclicked hits,
 * highest id first (spec §4 ties), from the hits' keys when a read gave them all (`keys`),
 * rather than the index again; the scores of `scores`, when a read took them, go to `scored`.
 * The unclicked hits are the hits less `clicked`: every read of the clicked hits (the clicked
 * posts' index, whose rows a click rewrites in its own transaction; the walk and the gather over
 * the posts' clicks) gives all of them when it gives fewer than the page, so no hit's clicks are
 * read again, only its id, which the date-key index holds.
 */
function unclickedAfter(
  stmts: StatementCache,
  filter: HitFilter,
  clicked: readonly number[],
  keys: readonly number[] | null,
  offset: number,
  limit: number,
  scores: Map<number, number> | null,
  scored?: ScoreSink,
): { keys: number[]; hits: number } {
  const want = offset + limit;
  const range = filter.keys ?? EVERY_KEY;
  const clickedKeys = new Set(clicked);
  const page = [want - Math.max(offset, clicked.length), Math.max(0, offset - clicked.length)];
  const unclicked =
    keys === null
      ? (stmts
          .get(`SELECT k.date_key FROM (SELECT rowid AS key FROM posts_fts WHERE posts_fts MATCH ?
              AND rowid BETWEEN ${FTS_ROWID} AND ${FTS_ROWID}) t
            CROSS JOIN posts k INDEXED BY posts_by_date_key ON k.date_key = t.key
            WHERE t.key NOT IN (SELECT value FROM json_each(?)) ORDER BY k.id DESC LIMIT ? OFFSET ?`)
          .pluck()
          .all(filter.match, range.low, range.high, JSON.stringify(clicked), ...page) as number[])
      : (stmts
          .get(`SELECT k.date_key FROM json_each(?) t
            CROSS JOIN posts k INDEXED BY posts_by_date_key ON k.date_key = t.value
            ORDER BY k.id DESC LIMIT ? OFFSET ?`)
          .pluck()
          .all(JSON.stringify(keys.filter((key) => !clickedKeys.has(key))), ...page) as number[]);
  const found = [...clicked.slice(offset), ...unclicked];
  if (scores !== null && scored !== undefined) {
    for (const key of found) scored.scores.set(key, scores.get(key)!);
  }
  return { keys: found, hits: keys?.length ?? found.length };
}

/** The MATCH's hits with rowids within `keys` (inclusive), counted from the rowids alone. */
function countHits(stmts: StatementCache, index: string, match: string, keys = EVERY_KEY): number {
  return stmts
    .get(`SELECT count(*) FROM ${index} WHERE ${index} MATCH ?
      AND rowid BETWEEN ${FTS_ROWID} AND ${FTS_ROWID}`)
    .pluck()
    .get(match, keys.low, keys.high) as number;
}

/**
 * A page by clicks at `offset` > 0 without a range of date keys. The clicked posts' index holds
 * every hit in page order (its rowid: clicks, then post id; the unclicked posts' keys their ids,
 * below every clicked one's), so the hits before the page are skipped in its rowids alone, FTS5
 * reading no row, and only the page's own are joined to their posts (streamClicked from the
 * rowid at `offset`). Past the last hit the page is empty and its hit count is given as `offset`,
 * a bound that no caller reads for an empty page (it sizes the scoring of the page's hits):
 * counting them would read the doclist a second time.
 */
function skippedClickedPage(
  stmts: StatementCache,
  filter: HitFilter,
  offset: number,
  limit: number,
  scored: ScoreSink | undefined,
  ids: Map<number, number>,
): ClickedHitPage {
  const find = filter.find ?? filter.match;
  const start = stmts
    .get(`SELECT rowid FROM ${CLICKED_FTS} WHERE ${CLICKED_FTS} MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?`)
    .pluck()
    .safeIntegers(true)
    .get(find, offset) as bigint | undefined;
  if (start === undefined) return { keys: [], hits: offset, ids };
  const keys = streamClicked(stmts, filter, limit, Number.POSITIVE_INFINITY, scored, ids, start) ?? [];
  return { keys, hits: offset + keys.length, ids };
}
