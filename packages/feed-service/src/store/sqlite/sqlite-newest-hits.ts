/**
 * The newest full-text hits, exactly, without reading every hit of a common word. FTS5 yields hits
 * by id, and ids grow roughly with time, so the hits are walked from the highest id down, a few id
 * blocks at a time, each chunk sorted by date inside SQLite; the walk stops as soon as no block
 * below the chunk can hold a post newer than the page's last row. `post_id_blocks` (migration 8)
 * bounds each block's dates, so the stop is exact for posts dated out of id order too: such posts
 * only widen their block's bounds and make the walk go further.
 *
 * Deep pages skip whole days of hits without sorting them (sqlite-hit-days.ts): the hits dated on
 * or after a day's start are counted, mostly by FTS5 alone, and the walk starts below the lowest
 * day start that the offset passes. Lucene's top-k early termination and Twitter's Earlybird
 * (time-ordered segments) are the models (design.md).
 */
import { FTS_ROWID } from "./sqlite-columns.js";
import type { StatementCache } from "./sqlite-connection.js";
import { SKIP_DAYS_FROM, skipWholeDays } from "./sqlite-hit-days.js";
import { type Blocks, firstId, lastId, loadBlocks } from "./sqlite-id-blocks.js";

/** One hit: post id and post_date. */
export type Hit = readonly [id: number, date: number];

const FIRST_CHUNK_BLOCKS = 8;

/** Newest first, ties by id descending. */
function newer(a: Hit, b: Hit): boolean {
  return a[1] > b[1] || (a[1] === b[1] && a[0] > b[0]);
}

/** The first `k` of two newest-first lists, merged. */
function mergeNewest(a: readonly Hit[], b: readonly Hit[], k: number): Hit[] {
  const out: Hit[] = [];
  let i = 0;
  let j = 0;
  while (out.length < k && (i < a.length || j < b.length)) {
    if (j >= b.length || (i < a.length && newer(a[i]!, b[j]!))) out.push(a[i++]!);
    else out.push(b[j++]!);
  }
  return out;
}

export interface HitFilter {
  /** The FTS5 MATCH expression. */
  match: string;
  /** JSON array of language ids, or null for every language. */
  languages: string | null;
}

/**
 * The hits from `offset` to `offset + limit` in newest-first order (postDate desc, id desc).
 *
 * @example
 * newestHitPage(stmts, { match: '"rust"', languages: null }, 0, 20); // [[id, date], ...]
 */
export function newestHitPage(
  stmts: StatementCache,
  filter: HitFilter,
  offset: number,
  limit: number,
): Hit[] {
  const blocks = loadBlocks(stmts);
  const days =
    filter.languages === null && offset >= SKIP_DAYS_FROM
      ? skipWholeDays(stmts, blocks, filter.match, offset)
      : { before: null, hits: 0 };
  const before = days.before ?? Number.MAX_SAFE_INTEGER;
  const chunk = stmts
    .get(`SELECT t.rowid, p.post_date FROM posts_fts t
      CROSS JOIN posts p INDEXED BY posts_sort_keys ON p.id = t.rowid
      WHERE posts_fts MATCH ? AND t.rowid BETWEEN ${FTS_ROWID} AND ${FTS_ROWID} AND p.post_date < ?
      ${filter.languages === null ? "" : "AND p.language_id IN (SELECT value FROM json_each(?))"}
      ORDER BY p.post_date DESC, t.rowid DESC LIMIT ?`)
    .raw();
  const extra = filter.languages === null ? [] : [filter.languages];
  const want = offset - days.hits + limit;
  // Blocks dated wholly on or after `before` hold none of the hits still wanted.
  let high = blocks.block.length - 1;
  while (high >= 0 && blocks.minDate[high]! >= before) high--;
  let best: Hit[] = [];
  let size = FIRST_CHUNK_BLOCKS;
  while (high >= 0) {
    const low = Math.max(0, high - size + 1);
    const rows = chunk.all(
      filter.match,
      firstId(blocks.block[low]!),
      lastId(blocks.block[high]!),
      before,
      ...extra,
      want,
    ) as Hit[];
    best = mergeNewest(best, rows, want);
    high = low - 1;
    size *= 2;
    // Every hit below `high` is dated at most maxUpTo[high]; on an equal date its smaller id
    // loses the tie, so the page's last row stands once it is that new.
    if (best.length === want && high >= 0 && best[want - 1]![1] >= blocks.maxUpTo[high]!) break;
  }
  return best.slice(offset - days.hits);
}

/** The first block from `low` on that can hold a post dated after `date`. */
function firstBlockAfter(blocks: Blocks, date: number, low: number): number {
  let first = low;
  let last = blocks.block.length - 1;
  while (first < last) {
    const mid = (first + last) >> 1;
    if (blocks.maxUpTo[mid]! <= date) first = mid + 1;
    else last = mid;
  }
  return first;
}

/** Where the `want` newest hits end: every hit in [from, to] dated (date, id) or newer, and no other. */
export interface NewestCut {
  from: number;
  to: number;
  date: number;
  id: number;
}

/**
 * The `want`-th newest hit and an id range holding every newer one, or null when fewer match.
 * SQLite finds the `want`-th hit of a range itself (its sorter keeps `want` rows and hands back
 * one), so no hit travels to JavaScript. The first range is sized from the hits among the newest
 * blocks, with room for the day that straddles the cut; a range too short is doubled.
 */
export function newestCut(stmts: StatementCache, filter: HitFilter, want: number): NewestCut | null {
  const blocks = loadBlocks(stmts);
  const top = blocks.block.length - 1;
  if (top < 0) return null;
  const to = lastId(blocks.block[top]!);
  const kth = stmts
    .get(`SELECT p.post_date, t.rowid FROM posts_fts t
      CROSS JOIN posts p INDEXED BY posts_sort_keys ON p.id = t.rowid
      WHERE posts_fts MATCH ? AND t.rowid BETWEEN ${FTS_ROWID} AND ${FTS_ROWID}
      ${filter.languages === null ? "" : "AND p.language_id IN (SELECT value FROM json_each(?))"}
      ORDER BY p.post_date DESC, t.rowid DESC LIMIT 1 OFFSET ?`)
    .raw();
  const extra = filter.languages === null ? [] : [filter.languages];
  let size = FIRST_CHUNK_BLOCKS;
  if (filter.languages === null) {
    const sample = stmts
      .get(
        `SELECT count(*) FROM posts_fts WHERE posts_fts MATCH ? AND rowid BETWEEN ${FTS_ROWID} AND ${FTS_ROWID}`,
      )
      .pluck()
      .get(filter.match, firstId(blocks.block[Math.max(0, top - size + 1)]!), to) as number;
    size = Math.ceil((1.2 * want * size) / Math.max(sample, 1)) + 4;
  }
  for (;;) {
    const low = Math.max(0, top - size + 1);
    const row = kth.get(filter.match, firstId(blocks.block[low]!), to, ...extra, want - 1) as
      | [number, number]
      | undefined;
    if (row !== undefined && (low === 0 || row[0] >= blocks.maxUpTo[low - 1]!)) {
      return {
        from: firstId(blocks.block[firstBlockAfter(blocks, row[0], low)]!),
        to,
        date: row[0],
        id: row[1],
      };
    }
    if (low === 0) return null;
    // The range's own cut is no newer than the true one, so every block that can hold a hit newer
    // than it is needed: start there next (or twice as low when the range held too few hits).
    size = row === undefined ? size * 2 : top - firstBlockAfter(blocks, row[0], 0) + 1;
  }
}
