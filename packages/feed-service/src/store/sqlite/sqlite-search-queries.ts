/**
 * Full-text search on SQLite (operation 1, and the smart categories built on it). The FTS5 index
 * finds the matches, its rowids being the posts' date keys (sqlite-date-keys.ts) and the language
 * filter part of its MATCH (fts5-index-row.ts); each sort reads only what its page needs:
 * - date: the hits in FTS5's descending rowid order, which is newest first (sqlite-newest-hits.ts);
 * - clicks: from the clicked posts or from the hits, whichever is cheaper (sqlite-clicked-hits.ts);
 * - relevance: every hit ranked when at most 10,000 match; otherwise only the 10,000 newest, as
 *   spec §4 allows (a bounded cost, as recency-tiered search engines do): the hits from the
 *   10,000th newest key up.
 * The page's rows are then read through `postsInOrder`, each with its bm25 score
 * (`sampled_bm25`, with term statistics from the newest posts: sqlite-term-sample.ts).
 */
import type { SearchQuery } from "../../search/search-query.js";
import type { PostPage, PostRecord, SearchSort } from "../store.js";
import { findingQuery } from "./fts5-implied-terms.js";
import { languageMatch } from "./fts5-index-row.js";
import { toFts5Match } from "./fts5-match.js";
import { mostClickedHitPage } from "./sqlite-clicked-hits.js";
import { FTS_ROWID } from "./sqlite-columns.js";
import type { StatementCache } from "./sqlite-connection.js";
import { countedMatch, countedPageKeys } from "./sqlite-counted-searches.js";
import { type HitFilter, idsOfKeys, newestHitKeys, newestHitsInSample } from "./sqlite-newest-hits.js";
import {
  FTS_GATHER_COST_US,
  FTS_TEST_COST_US,
  SAMPLE_ESTIMATE_MARGIN,
  SEEK_DAYS_FROM,
} from "./sqlite-plan-costs.js";
import { postsInOrder } from "./sqlite-post-queries.js";
import { segmentCount } from "./sqlite-search-maintenance.js";
import { rankingStats, scoreSql, TERM_SAMPLE_POSTS, type TermSample } from "./sqlite-term-sample.js";

/**
 * The score of a search: its SQL (bm25, positive, higher better) and the term sample that gives
 * that SQL's parameters.
 */
interface Score {
  sql: string;
  sample: TermSample;
}

/** Spec §4: when more than this many posts match, relevance ranks only this many newest. */
export const RELEVANCE_POOL = 10_000;

/** The sizes that bound a search's cost; smaller ones let tests reach every branch on a small corpus. */
export interface SearchBounds {
  /** Relevance ranks at most this many newest hits (spec §4). */
  relevancePool: number;
  /** Term statistics come from the newest this many posts (sqlite-term-sample.ts). */
  termSamplePosts: number;
}

const BOUNDS: SearchBounds = { relevancePool: RELEVANCE_POOL, termSamplePosts: TERM_SAMPLE_POSTS };

/**
 * The MATCH of a query in some languages (null: every language), or null when it matches nothing.
 *
 * @example
 * searchMatch(parseSearchQuery("rust"), [1]); // '("rust") AND "\uE0001"'
 */
export function searchMatch(query: SearchQuery, languageIds: readonly number[] | null): string | null {
  const match = toFts5Match(query);
  if (match === null || languageIds?.length === 0) return null;
  return languageIds === null ? match : `(${match}) AND ${languageMatch(languageIds)}`;
}

export function searchPosts(
  stmts: StatementCache,
  page: PostPage & { query: SearchQuery; sort: SearchSort; unscored?: boolean },
  bounds: SearchBounds = BOUNDS,
): Array<PostRecord & { score: number }> {
  const match = searchMatch(page.query, page.languageIds);
  if (match === null || page.limit === 0) return [];
  const filter: HitFilter = {
    match,
    languages: page.languageIds === null ? null : JSON.stringify(page.languageIds),
  };
  // Date and clicks orders find their posts with the terms that others do not imply, and score
  // them with every term (fts5-implied-terms.ts).
  const find = findingQuery(page.query);
  const findMatch = find === page.query ? match : searchMatch(find, page.languageIds)!;
  if (page.sort === "date" && page.unscored === true) {
    // A page whose scores the caller drops (a smart category's): the hits' keys are the page; the
    // term sample's counts and the second walk of the page's hits that score it are not needed.
    const keys = dateOrderKeys(stmts, page, findMatch);
    return keys.length === 0 ? [] : withScores(stmts, keys, new Map(keys.map((key) => [key, 0])));
  }
  const languagePhrases = page.languageIds === null ? 0 : new Set(page.languageIds).size;
  const sample = rankingStats(stmts, page.query, bounds.termSamplePosts, languagePhrases);
  const score: Score = { sql: scoreSql(sample.args.length - 1), sample };
  if (page.sort === "relevance") return relevancePage(stmts, filter, score, page, bounds);
  if (page.sort === "date") {
    const keys = dateOrderKeys(stmts, page, findMatch);
    if (keys.length === 0) return [];
    return withScores(stmts, keys, scoresOf(stmts, match, score, keys, null));
  }
  // The walk of the clicked posts scores what it finds; the other hits of the page are scored after.
  const scored = { sql: score.sql, args: score.sample.args, scores: new Map<number, number>() };
  const { keys, hits, ids } = mostClickedHitPage(
    stmts,
    { ...filter, find: findMatch },
    page.offset,
    page.limit,
    scored,
  );
  const unscored = keys.filter((key) => !scored.scores.has(key));
  if (unscored.length > 0) {
    for (const [key, value] of scoresOf(stmts, match, score, unscored, hits)) scored.scores.set(key, value);
  }
  return withScores(stmts, keys, scored.scores, ids);
}

/**
 * The keys of a date-ordered page: from the day holding its offset when its query's matches are
 * counted per day (a smart category's: sqlite-counted-searches.ts), else by walking the hits.
 */
function dateOrderKeys(
  stmts: StatementCache,
  page: PostPage & { query: SearchQuery },
  findMatch: string,
): number[] {
  if (page.offset >= SEEK_DAYS_FROM) {
    const counted = countedMatch(page.query);
    const keys =
      counted === null
        ? null
        : countedPageKeys(stmts, counted, findMatch, page.languageIds, page.offset, page.limit);
    if (keys !== null) return keys;
  }
  return newestHitKeys(stmts, findMatch, page.offset, page.limit);
}

/**
 * The scores of some hits, by key. Consecutive hits (`spread` null: a page by date) are scored
 * in one statement: FTS5 walks the hits between the lowest and the highest key, and the
 * `+rowid IN` filter, which FTS5 never sees, keeps exactly the wanted ones for scoring. Keys
 * spread over the index (the most clicked hits; `spread` the search's estimated hit count, a
 * bound on the hits between them) are looked up one by one instead (`rowid IN`: a seek in each
 * doclist of each segment per key) when that costs less than walking those hits. Either way the scores
 * are those of ranking every hit.
 */
function scoresOf(
  stmts: StatementCache,
  match: string,
  score: Score,
  keys: readonly number[],
  spread: number | null,
): Map<number, number> {
  let low = keys[0]!;
  let high = keys[0]!;
  for (const key of keys) {
    low = Math.min(low, key);
    high = Math.max(high, key);
  }
  if (spread !== null) {
    const seeksCost = keys.length * FTS_TEST_COST_US * Math.max(1, segmentCount(stmts));
    if (seeksCost < spread * FTS_GATHER_COST_US) {
      const rows = stmts
        .get(`SELECT rowid, ${score.sql} FROM posts_fts
          WHERE posts_fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))`)
        .raw()
        .all(...score.sample.args, match, JSON.stringify(keys)) as Array<[number, number]>;
      return new Map(rows);
    }
  }
  const rows = stmts
    .get(`SELECT t.rowid, ${score.sql} FROM posts_fts t WHERE posts_fts MATCH ?
      AND t.rowid BETWEEN ${FTS_ROWID} AND ${FTS_ROWID} AND +t.rowid IN (SELECT value FROM json_each(?))`)
    .raw()
    .all(...score.sample.args, match, low, high, JSON.stringify(keys)) as Array<[number, number]>;
  return new Map(rows);
}

/**
 * The `[id, score]` of a page of the hits in `pool` (a CTE of [key, score] of every hit ranked),
 * best first (ties by id descending, spec §4); its parameters: offset + limit - 1, limit, offset.
 * Only the hits scoring at least the page's last score (`edge`, found by score alone) are read
 * with their ids, through the date-key index: a seek per ranked hit otherwise, a pool's worth.
 * Those are the page and the hits that tie with its end, so the order by (score, id) is exact.
 */
const rankPage = (pool: string, columns = "") => `, edge AS (
    SELECT score FROM ${pool} ORDER BY score DESC LIMIT 1 OFFSET ?)
  SELECT ${columns}p.id, h.score FROM ${pool} AS h
  CROSS JOIN posts p INDEXED BY posts_by_date_key ON p.date_key = h.key
  WHERE h.score >= coalesce((SELECT score FROM edge), h.score)
  ORDER BY h.score DESC, p.id DESC LIMIT ? OFFSET ?`;

/** The parameters of `rankPage`. */
const pageArgs = (page: { offset: number; limit: number }) => [
  page.offset + page.limit - 1,
  page.limit,
  page.offset,
];

function relevancePage(
  stmts: StatementCache,
  filter: HitFilter,
  score: Score,
  page: PostPage,
  bounds: SearchBounds,
): Array<PostRecord & { score: number }> {
  const pool = bounds.relevancePool;
  if (page.offset >= pool) return [];
  const limit = Math.min(page.limit, pool - page.offset);
  const ranked = rankedPageIfFew(stmts, filter.match, score, { offset: page.offset, limit }, bounds);
  if (Array.isArray(ranked)) return withIds(stmts, ranked);
  return withIds(stmts, rankNewest(stmts, filter.match, score, { offset: page.offset, limit }, pool));
}

/**
 * One page of the `pool` newest hits ranked, or of every hit when no more match, in one walk:
 * the hits are scored newest first, up to the pool (the newest `pool` hits whether more match or
 * not), and only the best of them are kept as they come (SQLite's sorter bounded by the LIMIT),
 * instead of writing every scored hit to a table read twice more (once for the page's last score,
 * once for the hits at or above it). The order is by (score, id) and a hit's id is not in the
 * index, so hits tying with the page's last score must all be kept: the sort keeps twice the
 * `offset + limit` hits the page needs, plus one, and when the last kept one still ties with the
 * page's last, the hits are ranked again with every scored hit kept (`rankPage`). Equal scores
 * are sorted by key as well: a hit that ties with the last kept one then no longer replaces it
 * (the walk comes newest first, so it sorts below), which would have the bounded sorter insert and
 * drop one entry per hit when many tie.
 * A page that deep keeps every pooled hit (twice its end passes the pool): the sort is whole
 * either way, so one sort by score alone gives, with each hit, how many score above it and how many
 * at least as high (rank() and count(*) over the same window), and only the tie groups that meet
 * the page come back, not every pooled hit (bench/NOTES.md).
 */
function rankNewest(
  stmts: StatementCache,
  match: string,
  score: Score,
  page: { offset: number; limit: number },
  pool: number,
): Array<[number, number]> {
  const want = page.offset + page.limit;
  const keep = 2 * want + 1;
  if (keep >= pool) return deepPage(stmts, match, score, page, pool);
  const best = stmts
    .get(`SELECT key, score FROM (
        SELECT t.rowid AS key, ${score.sql} AS score FROM posts_fts t WHERE posts_fts MATCH ?
        ORDER BY t.rowid DESC LIMIT ?)
      ORDER BY score DESC, key DESC LIMIT ?`)
    .raw()
    .all(...score.sample.args, match, pool, keep) as Array<[number, number]>;
  const edge = best.length >= want ? best[want - 1]![1] : Number.NEGATIVE_INFINITY;
  if (best.length === keep && best[keep - 1]![1] === edge) {
    return stmts
      .get(`WITH hits AS MATERIALIZED (
          SELECT t.rowid AS key, ${score.sql} AS score FROM posts_fts t WHERE posts_fts MATCH ?
          ORDER BY t.rowid DESC LIMIT ?)
        ${rankPage("hits")}`)
      .raw()
      .all(...score.sample.args, match, pool, ...pageArgs(page)) as Array<[number, number]>;
  }
  if (best.length <= page.offset) return [];
  // The order is (score, id), both descending: a hit scored above the page's first score is before
  // the page whatever its id, so only the hits scored from the page's first to its last score need
  // their ids (a deep page no longer reads the id of every hit before it).
  const first = best[page.offset]![1];
  const last = best[Math.min(want, best.length) - 1]![1];
  const before = best.filter(([, value]) => value > first).length;
  const kept = best.filter(([, value]) => value <= first && value >= last);
  return pageOfHits(stmts, kept, before, page);
}

/**
 * The page out of `hits` ([key, score]): whole tie groups that meet it, with `before` hits ranked
 * above them all; their ids read, ordered by (score, id) as the spec's ties are, and the hits above
 * the page skipped.
 */
function pageOfHits(
  stmts: StatementCache,
  hits: ReadonlyArray<readonly [number, number, ...unknown[]]>,
  before: number,
  page: { offset: number; limit: number },
): Array<[number, number]> {
  const ids = idsOfKeys(
    stmts,
    hits.map(([key]) => key),
  );
  return hits
    .flatMap(([key, value]): Array<[number, number]> => (ids.has(key) ? [[ids.get(key)!, value]] : []))
    .sort((x, y) => y[1] - x[1] || y[0] - x[0])
    .slice(page.offset - before, page.offset + page.limit - before);
}

/**
 * rankNewest's page when the sort keeps the whole pool: the hits of the tie groups (equal scores)
 * that meet the page, each with how many hits score above its group (`above`). Groups are whole,
 * so ordering them by (score, id) and skipping the hits above the first group gives the page
 * exactly, whatever the ties.
 */
function deepPage(
  stmts: StatementCache,
  match: string,
  score: Score,
  page: { offset: number; limit: number },
  pool: number,
): Array<[number, number]> {
  const want = page.offset + page.limit;
  const groups = stmts
    .get(`SELECT key, score, above FROM (
        SELECT key, score, rank() OVER s - 1 AS above, count(*) OVER s AS through FROM (
          SELECT t.rowid AS key, ${score.sql} AS score FROM posts_fts t WHERE posts_fts MATCH ?
          ORDER BY t.rowid DESC LIMIT ?)
        WINDOW s AS (ORDER BY score DESC))
      WHERE above < ? AND through > ?`)
    .raw()
    .all(...score.sample.args, match, pool, want, page.offset) as Array<[number, number, number]>;
  if (groups.length === 0) return [];
  const before = groups.reduce((least, [, , above]) => Math.min(least, above), Number.POSITIVE_INFINITY);
  return pageOfHits(stmts, groups, before, page);
}

/**
 * One page of every hit ranked ([id, score], best first), or `many` when more than the pool
 * match or may well (then `rankNewest` ranks them in one descending walk). Deciding that by
 * counting first and then ranking would walk the doclists twice, which for rare combinations of
 * common words (`"deep dive"`, `data -code -the`) is the whole cost; so the hits are scored as
 * they are found, up to one past the pool, in FTS5's own order (ascending keys: a quarter cheaper
 * than descending on large doclists), and SQLite ranks them and counts them in the same
 * statement. The hits among the newest posts tell which walk to take: when they suggest more
 * than the pool (within the estimate's margin), the descending one, which needs no second walk
 * when they are right.
 */
function rankedPageIfFew(
  stmts: StatementCache,
  match: string,
  score: Score,
  page: { offset: number; limit: number },
  bounds: SearchBounds,
): Array<[number, number]> | { many: true } {
  const { relevancePool: pool, termSamplePosts } = bounds;
  const { range, queryHits } = score.sample;
  if (range !== null) {
    const posts = (stmts.get("SELECT max(id) FROM posts").pluck().get() as number | null) ?? 0;
    const many = (inSample: number) =>
      inSample > pool || ((inSample * posts) / termSamplePosts) * SAMPLE_ESTIMATE_MARGIN > pool;
    if (queryHits !== null) {
      if (many(queryHits)) return { many: true };
    } else {
      const newest = newestHitsInSample(stmts, match, range.from, leastMany(many, pool + 1));
      if (newest === null) return [];
      if (many(newest)) return { many: true };
    }
  }
  const rows = stmts
    .get(`WITH hits AS MATERIALIZED (
        SELECT t.rowid AS key, ${score.sql} AS score FROM posts_fts t WHERE posts_fts MATCH ? LIMIT ?)
      ${rankPage("hits", "(SELECT count(*) FROM hits), ")}`)
    .raw()
    .all(...score.sample.args, match, pool + 1, ...pageArgs(page)) as Array<[number, number, number]>;
  if (rows.length > 0 && rows[0]![0] > pool) return { many: true };
  return rows.map(([, id, value]) => [id, value]);
}

/** The least count for which `many` holds (it holds for `atMost`, and once it holds it holds above). */
function leastMany(many: (count: number) => boolean, atMost: number): number {
  let low = 0;
  let high = atMost;
  while (low < high) {
    const mid = Math.floor((low + high) / 2);
    if (many(mid)) high = mid;
    else low = mid + 1;
  }
  return high;
}

/** The rows of hits given as [id, score], in that order, each with its score. */
function withIds(
  stmts: StatementCache,
  ranked: ReadonlyArray<[number, number]>,
): Array<PostRecord & { score: number }> {
  const scores = new Map(ranked);
  return postsInOrder(stmts, [...scores.keys()]).map((row) => ({ ...row, score: scores.get(row.postId)! }));
}

/**
 * The rows of hits given by key, in that order, each with its score; the post ids of the keys
 * not in `known` (the ones a walk read with them) are read by key.
 */
function withScores(
  stmts: StatementCache,
  keys: readonly number[],
  scores: Map<number, number>,
  known?: ReadonlyMap<number, number>,
): Array<PostRecord & { score: number }> {
  const ids = idsOfKeys(stmts, keys, known);
  return withIds(
    stmts,
    keys.flatMap((key): Array<[number, number]> => (ids.has(key) ? [[ids.get(key)!, scores.get(key)!]] : [])),
  );
}
