/**
 * Full-text search on SQLite (operation 1, and the smart categories built on it). The FTS5 index
 * finds the matches; each sort reads only what its page needs:
 * - date: the newest hits, walked from the highest id down with an exact early stop
 *   (sqlite-newest-hits.ts);
 * - clicks: from the clicked posts or from the hits, whichever is cheaper (sqlite-clicked-hits.ts);
 * - relevance: every hit ranked when at most 10,000 match; otherwise only the 10,000 newest, as
 *   spec §4 allows (a bounded cost, as recency-tiered search engines do).
 * The page's rows are then read through `postsInOrder`, each with its bm25 score
 * (`sampled_bm25`, with term statistics from the newest posts: sqlite-term-sample.ts).
 */
import type { SearchQuery } from "../../search/search-query.js";
import type { PostPage, PostRecord, SearchSort } from "../store.js";
import { toFts5Match } from "./fts5-match.js";
import { mostClickedHitPage } from "./sqlite-clicked-hits.js";
import { FTS_ROWID, LANGUAGE_FILTER } from "./sqlite-columns.js";
import type { StatementCache } from "./sqlite-connection.js";
import { type HitFilter, newestCut, newestHitIds, newestHitPage } from "./sqlite-newest-hits.js";
import { postsInOrder } from "./sqlite-post-queries.js";
import { rankingStats, scoreSql, TERM_SAMPLE_IDS, type TermSample } from "./sqlite-term-sample.js";

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
  /** Term statistics come from the newest this many post ids (sqlite-term-sample.ts). */
  termSampleIds: number;
}

const BOUNDS: SearchBounds = { relevancePool: RELEVANCE_POOL, termSampleIds: TERM_SAMPLE_IDS };

export function searchPosts(
  stmts: StatementCache,
  page: PostPage & { query: SearchQuery; sort: SearchSort },
  bounds: SearchBounds = BOUNDS,
): Array<PostRecord & { score: number }> {
  const match = toFts5Match(page.query);
  if (match === null || page.limit === 0 || page.languageIds?.length === 0) return [];
  const filter: HitFilter = {
    match,
    languages: page.languageIds === null ? null : JSON.stringify(page.languageIds),
  };
  const sample = rankingStats(stmts, page.query, bounds.termSampleIds);
  const score: Score = { sql: scoreSql(sample.args.length - 1), sample };
  if (page.sort === "relevance") return relevancePage(stmts, filter, score, page, bounds);
  const ids =
    page.sort === "date"
      ? newestHitPage(stmts, filter, page.offset, page.limit).map(([id]) => id)
      : mostClickedHitPage(stmts, filter, page.offset, page.limit);
  if (ids.length === 0) return [];
  const scores = scoresOf(stmts, match, score, ids);
  return withScores(stmts, new Map(ids.map((id) => [id, scores.get(id)!])));
}

/**
 * The scores of some hits. Ids close together (a page by date) are scored in one statement: FTS5
 * walks the hits between the lowest and the highest id (cheap without scoring), and the
 * `+rowid IN` filter, which FTS5 never sees, lets only the wanted ones be scored. Ids spread over
 * the index (the most clicked hits) are looked up one by one instead (`rowid =` is a seek in each
 * doclist), so that no walk crosses the doclists of common words from end to end. Either way the
 * scores are those of ranking every hit.
 */
function scoresOf(
  stmts: StatementCache,
  match: string,
  score: Score,
  ids: readonly number[],
): Map<number, number> {
  let low = ids[0]!;
  let high = ids[0]!;
  for (const id of ids) {
    low = Math.min(low, id);
    high = Math.max(high, id);
  }
  if (high - low > SPREAD_PER_ID * ids.length) {
    const one = stmts
      .get(`SELECT ${score.sql} FROM posts_fts WHERE posts_fts MATCH ? AND rowid = ${FTS_ROWID}`)
      .pluck();
    return new Map(ids.map((id) => [id, one.get(...score.sample.args, match, id) as number]));
  }
  const rows = stmts
    .get(`SELECT t.rowid, ${score.sql} FROM posts_fts t WHERE posts_fts MATCH ?
      AND t.rowid BETWEEN ${FTS_ROWID} AND ${FTS_ROWID} AND +t.rowid IN (SELECT value FROM json_each(?))`)
    .raw()
    .all(...score.sample.args, match, low, high, JSON.stringify(ids)) as Array<[number, number]>;
  return new Map(rows);
}

/** Ids further apart than this on average are scored one by one (see scoresOf). */
const SPREAD_PER_ID = 64;

/**
 * The ids of the posts in `filter`'s languages that match, or null when more than `cap` do: every
 * hit is dated and filtered, so the ids found are kept (and scored once) instead of counted and
 * then looked for again.
 */
function matchesUpTo(stmts: StatementCache, filter: HitFilter, cap: number): number[] | null {
  const ids = stmts
    .get(`SELECT t.rowid FROM posts_fts t CROSS JOIN posts p INDEXED BY posts_sort_keys ON p.id = t.rowid
      WHERE posts_fts MATCH ? AND ${LANGUAGE_FILTER} LIMIT ?`)
    .pluck()
    .all(filter.match, filter.languages, cap + 1) as number[];
  return ids.length > cap ? null : ids;
}

function relevancePage(
  stmts: StatementCache,
  filter: HitFilter,
  score: Score,
  page: PostPage,
  bounds: SearchBounds,
): Array<PostRecord & { score: number }> {
  const pool = bounds.relevancePool;
  if (page.offset >= pool) return [];
  let poolThById: number | undefined;
  const limit = Math.min(page.limit, pool - page.offset);
  if (filter.languages === null) {
    const ranked = rankedPageIfFew(stmts, filter.match, score, { offset: page.offset, limit }, bounds);
    if (Array.isArray(ranked)) return withScores(stmts, new Map(ranked));
    poolThById = ranked.poolThById;
  } else {
    const few = matchesUpTo(stmts, filter, pool);
    if (few !== null) {
      if (few.length === 0) return [];
      const ranked = [...scoresOf(stmts, filter.match, score, few)].sort(
        (a, b) => b[1] - a[1] || b[0] - a[0],
      );
      return withScores(stmts, new Map(ranked.slice(page.offset, page.offset + limit)));
    }
  }
  // More match: rank the 10,000 newest, found as a cut in date order (see newestCut). The score is
  // computed only for rows that pass the cut (the select list is evaluated after the join).
  const cut = newestCut(stmts, filter, pool, poolThById);
  if (cut === null) return [];
  if (cut.older !== undefined) {
    // Every hit of the range but the older ones: no hit needs dating.
    const hits = stmts
      .get(`SELECT t.rowid, ${score.sql} AS score FROM posts_fts t
        WHERE posts_fts MATCH ? AND t.rowid BETWEEN ${FTS_ROWID} AND ${FTS_ROWID}
        AND +t.rowid NOT IN (SELECT value FROM json_each(?))
        ORDER BY score DESC, t.rowid DESC LIMIT ? OFFSET ?`)
      .raw()
      .all(
        ...score.sample.args,
        filter.match,
        cut.from,
        cut.to,
        JSON.stringify(cut.older),
        limit,
        page.offset,
      ) as Array<[number, number]>;
    return withScores(stmts, new Map(hits));
  }
  const hits = stmts
    .get(`SELECT t.rowid, ${score.sql} AS score FROM posts_fts t
      CROSS JOIN posts p INDEXED BY posts_sort_keys ON p.id = t.rowid
      WHERE posts_fts MATCH ? AND t.rowid BETWEEN ${FTS_ROWID} AND ${FTS_ROWID} AND (p.post_date, p.id) >= (?, ?)
      ${filter.languages === null ? "" : `AND ${LANGUAGE_FILTER}`}
      ORDER BY score DESC, t.rowid DESC LIMIT ? OFFSET ?`)
    .raw()
    .all(
      ...score.sample.args,
      filter.match,
      cut.from,
      cut.to,
      cut.date,
      cut.id,
      ...(filter.languages === null ? [] : [filter.languages]),
      limit,
      page.offset,
    ) as Array<[number, number]>;
  return withScores(stmts, new Map(hits));
}

/**
 * One page of every hit ranked ([id, score], best first), or `many` when more than the pool match
 * (with the pool-th hit by id when it was found on the way). Deciding that by counting first and
 * then ranking would walk the doclists twice, which for rare combinations of common words
 * (`"deep dive"`, `data -code -the`) is the whole cost; so the hits are scored as they are found,
 * up to one past the pool, in FTS5's own order (ascending ids: a quarter cheaper than descending
 * on large doclists), and SQLite ranks them and counts them in the same statement. When the
 * newest ids alone hold more than the pool, no walk is needed to know it; when they suggest far
 * more, one descending walk that stops early (cheap: such hits are dense) decides first, so that
 * the pool's worth of hits is not scored for nothing.
 */
function rankedPageIfFew(
  stmts: StatementCache,
  match: string,
  score: Score,
  page: { offset: number; limit: number },
  bounds: SearchBounds,
): Array<[number, number]> | { many: true; poolThById?: number } {
  const { relevancePool: pool, termSampleIds } = bounds;
  const { newest, queryHits } = score.sample;
  if (newest === null) return [];
  if (newest > termSampleIds) {
    const inSample =
      queryHits ??
      (stmts
        .get(`SELECT count(*) FROM (SELECT rowid FROM posts_fts WHERE posts_fts MATCH ?
          AND rowid BETWEEN ${FTS_ROWID} AND ${FTS_ROWID} LIMIT ?)`)
        .pluck()
        .get(match, newest - termSampleIds + 1, newest, pool + 1) as number);
    if (inSample > pool) return { many: true };
    if ((inSample * newest) / termSampleIds > 2 * pool) {
      // The (pool + 1)-th hit by id decides, and the pool-th is what the cut starts from.
      const [poolTh, beyond] = newestHitIds(stmts, match, pool - 1, 2);
      if (beyond !== undefined) return { many: true, poolThById: poolTh! };
    }
  }
  const rows = stmts
    .get(`WITH hits AS MATERIALIZED (
        SELECT t.rowid AS id, ${score.sql} AS score FROM posts_fts t WHERE posts_fts MATCH ? LIMIT ?)
      SELECT (SELECT count(*) FROM hits), id, score FROM hits ORDER BY score DESC, id DESC LIMIT ? OFFSET ?`)
    .raw()
    .all(...score.sample.args, match, pool + 1, page.limit, page.offset) as Array<[number, number, number]>;
  if (rows.length > 0 && rows[0]![0] > pool) return { many: true };
  return rows.map(([, id, value]) => [id, value]);
}

/** The rows of the hits, in the map's order, each with its score. */
function withScores(
  stmts: StatementCache,
  scores: Map<number, number>,
): Array<PostRecord & { score: number }> {
  return postsInOrder(stmts, [...scores.keys()]).map((row) => ({ ...row, score: scores.get(row.postId)! }));
}
