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

const FIRST_CHUNK_BLOCKS = 2;
/** The newest blocks `cutBySorting` tries first. */
const FIRST_RANGE_BLOCKS = 8;

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
  // Blocks above the newest hit's hold no hit (posts in another script, say), and blocks dated
  // wholly on or after `before` none of the hits still wanted.
  const [newestHit] = newestHitIds(stmts, filter.match, 0, 1);
  if (newestHit === undefined) return [];
  let high = Math.min(blocks.block.length - 1, blockIndexOf(blocks, newestHit));
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
    // A full page is mostly settled by the next block or two (ids follow dates closely): widen
    // again from one block then, not from where the search for hits had got to.
    size = best.length === want && rows.length > 0 ? 1 : size * 2;
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
  /**
   * When known, the hits in [from, to] older than the cut: the pool is then every other hit of
   * the range, and whoever reads it need not date them.
   */
  older?: number[];
}

/**
 * The `want`-th newest hit and an id range holding every newer one, or null when fewer match.
 * Without a language filter the cut is found from per-block hit counts and the blocks' date bounds
 * (`cutByBlocks`); with one, every hit must be dated to be filtered anyway (`cutBySorting`).
 */
export function newestCut(
  stmts: StatementCache,
  filter: HitFilter,
  want: number,
  wantThById?: number,
): NewestCut | null {
  const blocks = loadBlocks(stmts);
  if (blocks.block.length === 0) return null;
  return filter.languages === null
    ? cutByBlocks(stmts, blocks, filter.match, want, wantThById)
    : cutBySorting(stmts, blocks, filter.match, filter.languages, want);
}

/** The ids of up to `count` hits in descending id order, after skipping `skip` of them. */
export function newestHitIds(stmts: StatementCache, match: string, skip: number, count: number): number[] {
  return stmts
    .get("SELECT rowid FROM posts_fts WHERE posts_fts MATCH ? ORDER BY rowid DESC LIMIT ? OFFSET ?")
    .pluck()
    .all(match, count, skip) as number[];
}

/** The index in `blocks` of the block holding `id` (or of the next one). */
function blockIndexOf(blocks: Blocks, id: number): number {
  const block = Math.floor(id / 1024);
  let first = 0;
  let last = blocks.block.length - 1;
  while (first < last) {
    const mid = (first + last) >> 1;
    if (blocks.block[mid]! < block) first = mid + 1;
    else last = mid;
  }
  return first;
}

/**
 * The cut without dating every hit. Only hits in blocks whose date bounds straddle the cut are
 * dated (ids follow dates closely in an aggregator, so that is a block or two), as a selection
 * over buckets with known bounds:
 * 1. the `want`-th hit by id (given when the caller knows it) bounds the blocks to count first
 *    (they hold `want` hits);
 * 2. `low`: going through the counted blocks by their lowest date, the date at which `want` hits
 *    are reached: the cut is no older; every block that can hold a hit that new is counted too;
 * 3. `high`: the same by their highest date: fewer than `want` hits are newer, so the cut is no newer;
 * 4. blocks dated wholly after `high` are in; the cut is found among the hits of the blocks that
 *    straddle [low, high], dated and sorted (by date, then id).
 * The result is exactly that of sorting every hit by date (sqlite-bounded-reads.test.ts).
 */
function cutByBlocks(
  stmts: StatementCache,
  blocks: Blocks,
  match: string,
  want: number,
  knownWantThById: number | undefined,
): NewestCut | null {
  const top = blocks.block.length - 1;
  const to = lastId(blocks.block[top]!);
  const wantThById = knownWantThById ?? newestHitIds(stmts, match, want - 1, 1)[0];
  if (wantThById === undefined) return null;
  const counts = new Map<number, number>();
  const countBlocks = stmts
    .get(`SELECT rowid >> 10, count(*) FROM posts_fts WHERE posts_fts MATCH ?
      AND rowid BETWEEN ${FTS_ROWID} AND ${FTS_ROWID} GROUP BY 1`)
    .raw();
  const count = (low: number, high: number) => {
    const rows = countBlocks.all(match, firstId(blocks.block[low]!), lastId(blocks.block[high]!));
    for (const [block, n] of rows as Array<[number, number]>)
      counts.set(blockIndexOf(blocks, firstId(block)), n);
  };
  let counted = blockIndexOf(blocks, wantThById);
  count(counted, top);
  const low = reachedAt([...counts.keys()], (i) => blocks.minDate[i]!, counts, want);
  const lowest = firstBlockAfter(blocks, low - 1, 0);
  if (lowest < counted) {
    count(lowest, counted - 1);
    counted = lowest;
  }
  const candidates = [...counts.keys()].filter((i) => blocks.maxDate[i]! >= low);
  const outside = [...counts.keys()].filter((i) => blocks.maxDate[i]! < low);
  const high = reachedAt(candidates, (i) => blocks.maxDate[i]!, counts, want);
  let newer = 0;
  const straddling: number[] = [];
  for (const i of candidates) {
    if (blocks.minDate[i]! > high) newer += counts.get(i)!;
    else straddling.push(i);
  }
  straddling.sort((a, b) => a - b);
  const dated = stmts
    .get(`SELECT t.rowid, p.post_date FROM posts_fts t
      CROSS JOIN posts p INDEXED BY posts_sort_keys ON p.id = t.rowid
      WHERE posts_fts MATCH ? AND t.rowid BETWEEN ${FTS_ROWID} AND ${FTS_ROWID}`)
    .raw();
  const hits: Hit[] = [];
  for (let k = 0; k < straddling.length; ) {
    let end = k;
    while (end + 1 < straddling.length && straddling[end + 1] === straddling[end]! + 1) end++;
    const run = dated.all(
      match,
      firstId(blocks.block[straddling[k]!]!),
      lastId(blocks.block[straddling[end]!]!),
    );
    for (const hit of run as Hit[]) hits.push(hit);
    k = end + 1;
  }
  hits.sort((a, b) => b[1] - a[1] || b[0] - a[0]);
  const cut = hits[want - newer - 1];
  if (cut === undefined) throw new Error("newestCut: the block counts and the dated hits disagree");
  const fromIndex = firstBlockAfter(blocks, cut[1] - 1, 0);
  const result: NewestCut = { from: firstId(blocks.block[fromIndex]!), to, date: cut[1], id: cut[0] };
  // The older hits of the range are known when they are all dated: none in a block left out whole.
  if (outside.every((i) => i < fromIndex || counts.get(i) === 0)) {
    result.older = hits.slice(want - newer).flatMap(([id]) => (id >= result.from ? [id] : []));
  }
  return result;
}

/**
 * Going through `indexes` by `key` from the highest down, adding up their counts: the key at
 * which the sum first reaches `want` (every index is known to be needed up to there).
 */
function reachedAt(
  indexes: number[],
  key: (i: number) => number,
  counts: Map<number, number>,
  want: number,
): number {
  const byKey = [...indexes].sort((a, b) => key(b) - key(a));
  let sum = 0;
  for (const i of byKey) {
    sum += counts.get(i)!;
    if (sum >= want) return key(i);
  }
  return key(byKey[byKey.length - 1]!);
}

/**
 * The cut among the hits in some languages: every hit of a range is dated and filtered, and
 * SQLite finds the `want`-th (its sorter keeps `want` rows and hands back one), so no hit travels
 * to JavaScript. The first range is the newest `FIRST_RANGE_BLOCKS` blocks; a range too short is
 * doubled, and one whose own cut a lower block could beat starts where that block does.
 */
function cutBySorting(
  stmts: StatementCache,
  blocks: Blocks,
  match: string,
  languages: string,
  want: number,
): NewestCut | null {
  const top = blocks.block.length - 1;
  const to = lastId(blocks.block[top]!);
  const kth = stmts
    .get(`SELECT p.post_date, t.rowid FROM posts_fts t
      CROSS JOIN posts p INDEXED BY posts_sort_keys ON p.id = t.rowid
      WHERE posts_fts MATCH ? AND t.rowid BETWEEN ${FTS_ROWID} AND ${FTS_ROWID}
      AND p.language_id IN (SELECT value FROM json_each(?))
      ORDER BY p.post_date DESC, t.rowid DESC LIMIT 1 OFFSET ?`)
    .raw();
  let size = FIRST_RANGE_BLOCKS;
  for (;;) {
    const low = Math.max(0, top - size + 1);
    const row = kth.get(match, firstId(blocks.block[low]!), to, languages, want - 1) as
      | [number, number]
      | undefined;
    if (row !== undefined && (low === 0 || row[0] >= blocks.maxUpTo[low - 1]!)) {
      return {
        // Hits dated the same as the cut with a higher id are in it too: from the first block
        // that can hold a post dated as new as the cut.
        from: firstId(blocks.block[firstBlockAfter(blocks, row[0] - 1, low)]!),
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
