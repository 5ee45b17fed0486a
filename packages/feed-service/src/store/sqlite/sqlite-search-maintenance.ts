/**
 * Upkeep of the FTS5 index. Each write transaction adds index segments that FTS5 merges only
 * gradually (automerge); after a bulk load of many transactions the index is left in many
 * segments, and every search then reads and merges one doclist per segment. 'optimize' merges them
 * all into one (https://sqlite.org/fts5.html#the_optimize_command), so a search reads one doclist
 * per term (figures in bench/NOTES.md).
 */
import type Database from "better-sqlite3";
import { FEED_FTS } from "./fts5-feed-index.js";
import { CLICKED_FTS } from "./sqlite-clicked-index.js";
import type { StatementCache } from "./sqlite-connection.js";

/**
 * Merges the full-text index into a single segment (one write transaction rewriting the whole
 * index), and the clicked posts' index of schema 23 too (sqlite-clicked-index.ts: a click writes
 * a segment of one row), and the posts by feed's of schema 24 (fts5-feed-index.ts).
 */
export function optimizeSearchIndex(db: Database.Database): void {
  db.transaction(() => {
    for (const table of ftsTables(db))
      db.prepare(`INSERT INTO ${table} (${table}) VALUES ('optimize')`).run();
  })();
}

/**
 * Pages of merged index one step writes, per index (FTS5 pages hold about 4 KB: `pgsz`,
 * https://sqlite.org/fts5.html#the_pgsz_configuration_option). A step is one short write
 * transaction, so readers see no pause and a writer waits for one step at most.
 */
export const MERGE_STEP_PAGES = 1000;

/**
 * A full merge starts once the segments other than the largest hold this share of its pages:
 * each full merge then writes at most (1 + 1/share) pages per page of new data it takes in, as
 * an LSM tree with this size ratio does (Lucene's TieredMergePolicy merges segments of similar
 * size for the same reason), instead of the whole index after every ingest pass.
 */
export const FULL_MERGE_SHARE = 0.5;

/**
 * FTS5's own merge width (its `usermerge` and `automerge` default, https://sqlite.org/fts5.html#
 * the_usermerge_configuration_option): a positive 'merge' merges a level only once it holds this
 * many segments.
 */
const LEVEL_MERGE_WIDTH = 4;

/** A segment of an FTS5 index: its id and its first and last leaf page. */
export interface IndexSegment {
  readonly id: number;
  readonly first: number;
  readonly last: number;
}

/** One level of an FTS5 index: its segments, and how many of them are inputs to a merge in progress. */
export interface IndexLevel {
  readonly merging: number;
  readonly segments: readonly IndexSegment[];
}

/** A segment's size in leaf pages. */
export const segmentPages = (s: IndexSegment): number => s.last - s.first + 1;

/** Reads SQLite's varint (1-9 bytes, big-endian 7-bit groups, the ninth byte whole). */
function varint(buf: Uint8Array, at: { i: number }): number {
  let v = 0;
  for (let n = 0; n < 9; n++) {
    const b = buf[at.i++]!;
    if (n === 8) return v * 256 + b;
    v = v * 128 + (b & 0x7f);
    if ((b & 0x80) === 0) return v;
  }
  return v;
}

/**
 * The levels of an FTS5 index from its structure record (the `%_data` row with id 10, decoded as
 * fts5StructureDecode of fts5_index.c does: cookie, an optional V2 marker, levels, segments,
 * write counter, then per level its merge count and segments with their first and last page).
 */
export function readIndexLevels(db: Database.Database, table: string): IndexLevel[] {
  const blob = db.prepare(`SELECT block FROM ${table}_data WHERE id = 10`).pluck().get() as
    | Buffer
    | undefined;
  if (!blob || blob.length < 4) return [];
  const at = { i: 4 };
  const v2 = blob[4] === 0xff && blob[5] === 0 && blob[6] === 0 && blob[7] === 1;
  if (v2) at.i += 4;
  const levels = varint(blob, at);
  varint(blob, at); // segments
  varint(blob, at); // write counter
  const out: IndexLevel[] = [];
  for (let l = 0; l < levels; l++) {
    const merging = varint(blob, at);
    const count = varint(blob, at);
    const segments: IndexSegment[] = [];
    for (let s = 0; s < count; s++) {
      const id = varint(blob, at);
      const first = varint(blob, at);
      const last = varint(blob, at);
      if (v2) for (let k = 0; k < 5; k++) varint(blob, at); // origins, tombstone pages and entries, entries
      segments.push({ id, first, last });
    }
    out.push({ merging, segments });
  }
  return out;
}

/**
 * What the next merge step of an index does: go on with a merge in progress (FTS5 keeps its state
 * in the structure); start a full merge once the small segments hold FULL_MERGE_SHARE of the
 * largest; merge a level of LEVEL_MERGE_WIDTH small segments into one (FTS5's tiered automerge,
 * done now instead of during later writes), never the largest segment's level; or nothing.
 */
export function chooseMerge(levels: readonly IndexLevel[]): "continue" | "full" | "level" | "none" {
  if (levels.some((l) => l.merging > 0)) return "continue";
  const sizes = levels.flatMap((l) => l.segments.map(segmentPages));
  if (sizes.length < 2) return "none";
  const largest = Math.max(...sizes);
  const total = sizes.reduce((a, b) => a + b, 0);
  if (total - largest >= FULL_MERGE_SHARE * largest) return "full";
  // A positive 'merge' takes the lowest level holding the most segments (fts5IndexMerge).
  let best = -1;
  for (let l = 0; l < levels.length; l++) {
    if (best < 0 || levels[l]!.segments.length > levels[best]!.segments.length) best = l;
  }
  const level = levels[best]!;
  return level.segments.length >= LEVEL_MERGE_WIDTH &&
    !level.segments.some((s) => segmentPages(s) === largest)
    ? "level"
    : "none";
}

/** The store's FTS5 tables that exist in this database (the clicked and per-feed ones came later). */
function ftsTables(db: Database.Database): string[] {
  const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
  return ["posts_fts", CLICKED_FTS, FEED_FTS].filter((t) => t === "posts_fts" || has.get(t) !== undefined);
}

/**
 * One bounded step of `chooseMerge`'s policy on one FTS5 table, in one short write transaction;
 * true when it merged something (FTS5's 'merge' command, https://sqlite.org/fts5.html#
 * the_merge_command: a positive N goes on with a merge in progress or merges a level, a negative N
 * starts a merge of every segment into one; a step that did work grows total_changes() by 2 or more).
 */
export function mergeIndexStep(db: Database.Database, table: string, pages = MERGE_STEP_PAGES): boolean {
  const changes = db.prepare("SELECT total_changes()").pluck();
  const merge = db.prepare(`INSERT INTO ${table} (${table}, rank) VALUES ('merge', ?)`);
  return db
    .transaction(() => {
      const action = chooseMerge(readIndexLevels(db, table));
      if (action === "none") return false;
      const before = changes.get() as number;
      merge.run(action === "full" ? -pages : pages);
      return (changes.get() as number) - before >= 2;
    })
    .immediate();
}

/**
 * One bounded step of merging each of the store's FTS5 indexes (`mergeIndexStep`); true while
 * work remains (the last call, which finds nothing to do, returns false). Run until false after
 * each ingest pass, it rewrites each page a bounded number of times and leaves few segments
 * (bench/NOTES.md), where a merge into one segment after every pass would rewrite the whole
 * index each time.
 */
export function mergeSearchIndexStep(db: Database.Database, pages = MERGE_STEP_PAGES): boolean {
  let more = false;
  for (const table of ftsTables(db)) more = mergeIndexStep(db, table, pages) || more;
  return more;
}

/** How many segments the full-text index is spread over (1 after `optimizeSearchIndex`, 0 when empty). */
export function searchIndexSegments(db: Database.Database, table = "posts_fts"): number {
  // The %_idx shadow table holds one row per leaf page per segment (https://sqlite.org/fts5.html#the_idx_table).
  return (db.prepare(`SELECT count(DISTINCT segid) AS n FROM ${table}_idx`).get() as { n: number }).n;
}

/**
 * The same count for a plan to weigh (a seek in the index reads one doclist per segment): one
 * index seek per segment, hopping from segment id to the next, instead of reading every page row.
 * `table` is posts_fts or another FTS5 table of the store (posts_feed_fts: fts5-feed-index.ts).
 */
export function segmentCount(stmts: StatementCache, table = "posts_fts"): number {
  return stmts
    .get(`WITH RECURSIVE s(id) AS (SELECT min(segid) FROM ${table}_idx
        UNION ALL SELECT (SELECT min(segid) FROM ${table}_idx WHERE segid > s.id) FROM s WHERE s.id IS NOT NULL)
      SELECT count(id) FROM s`)
    .pluck()
    .get() as number;
}
