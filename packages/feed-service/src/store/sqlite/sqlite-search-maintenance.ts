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
    db.prepare("INSERT INTO posts_fts (posts_fts) VALUES ('optimize')").run();
    if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(CLICKED_FTS)) {
      db.prepare(`INSERT INTO ${CLICKED_FTS} (${CLICKED_FTS}) VALUES ('optimize')`).run();
    }
    if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(FEED_FTS)) {
      db.prepare(`INSERT INTO ${FEED_FTS} (${FEED_FTS}) VALUES ('optimize')`).run();
    }
  })();
}

/**
 * Pages of merged index one step writes, per index (FTS5 pages hold about 4 KB: `pgsz`,
 * https://sqlite.org/fts5.html#the_pgsz_configuration_option). A step is one short write
 * transaction, so readers see no pause and a writer waits for one step at most.
 */
export const MERGE_STEP_PAGES = 1000;

/** The store's FTS5 tables that exist in this database (the clicked and per-feed ones came later). */
function ftsTables(db: Database.Database): string[] {
  const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
  return ["posts_fts", CLICKED_FTS, FEED_FTS].filter((t) => t === "posts_fts" || has.get(t) !== undefined);
}

/**
 * One bounded step of merging each FTS5 index towards a single segment, each index in its own
 * short write transaction; true while work remains (the last call, which finds nothing to do,
 * returns false). Run it until false to leave every index in one segment whatever the ingest
 * history, as `optimizeSearchIndex` does in one long transaction.
 *
 * FTS5's 'merge' command (https://sqlite.org/fts5.html#the_merge_command) did work when
 * total_changes() grew by 2 or more. A positive N first continues a merge in progress (new
 * segments written meanwhile by ingest do not restart it) or merges a level of `usermerge`
 * segments; only when there is none, a negative N starts a merge of all segments into one.
 * Starting with the negative one would restart the whole merge after every write, and a
 * server that keeps ingesting would never converge.
 */
export function mergeSearchIndexStep(db: Database.Database, pages = MERGE_STEP_PAGES): boolean {
  const changes = db.prepare("SELECT total_changes()").pluck();
  let more = false;
  for (const table of ftsTables(db)) {
    const merge = db.prepare(`INSERT INTO ${table} (${table}, rank) VALUES ('merge', ?)`);
    db.transaction(() => {
      for (const n of [pages, -pages]) {
        const before = changes.get() as number;
        merge.run(n);
        if ((changes.get() as number) - before >= 2) {
          more = true;
          return;
        }
      }
    }).immediate();
  }
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
