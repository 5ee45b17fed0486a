/**
 * Schema version 23: a second full-text index whose rowid orders the posts most clicked first:
 * rowid = clicks × 2^32 + post id, so FTS5's descending rowid walk is spec §4's clicks order
 * (clicks desc, ties by id desc) and a search by clicks reads its hits in page order, stopping
 * after `offset + limit` of them (index sorting with early termination, as the date key does for
 * date order: sqlite-date-keys.ts, design.md). A row holds the same tokens as the post's posts_fts
 * row (fts5IndexRow), in a table declared as posts_fts is (tokenizer, columns, prefix).
 *
 * Schema version 31: it holds every post, not only the clicked ones. A post with no click is keyed
 * by its id alone (clickedKey(0, id)), below every clicked post's key, so the unclicked hits, which
 * spec §4 orders by id desc after the clicked ones, follow them in the same rowid order: any page,
 * however deep, is a skip over one doclist's rowids, not a sort of every hit by id.
 *
 * Schema version 32: each row also holds its post's day as period tokens (sqlite-clicked-periods.ts),
 * so that a page by clicks within a date range is a skip too; the index is built anew.
 *
 * The exact key costs a re-key per click (the row deleted and inserted again: contentless_delete);
 * a tiered key (clicks rounded) would spare most of them but leave each tier to be sorted by
 * clicks on every read, which is the walk this index replaces. Figures: bench/NOTES.md
 * (sqliteclk34). Every write of a post's indexed text, or of its clicks, writes its row here too:
 * a new post, the click (recordClick), a refresh's update of its text and a feed rename
 * (sqlite-feed-writer.ts, held with posts_fts's rows: sqlite-index-write-hold.ts), a feed's
 * removal, and migrate-data (sqlite-copy-endpoint.ts). Ids and clicks stay below 2^32 and 2^31
 * (checked), so the key fits SQLite's 64-bit rowid; keys pass as BigInt, above 2^53.
 */
import type Database from "better-sqlite3";
import type { MigrationProgress } from "../migration-progress.js";
import { FTS5_COLUMNS, FTS5_TEXT_COLUMNS, fts5IndexRow, type IndexRow } from "./fts5-index-row.js";
import { periodTokens } from "./sqlite-clicked-periods.js";
import type { StatementCache } from "./sqlite-connection.js";

export const CLICKED_FTS = "posts_clicked_fts";

export const CLICKED_INSERT = `INSERT INTO ${CLICKED_FTS} (rowid, ${FTS5_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)`;

export const CLICKED_DELETE = `DELETE FROM ${CLICKED_FTS} WHERE rowid = ?`;

const TEXT_COLUMNS = FTS5_TEXT_COLUMNS.split(",").length;

/** The post id bits of a key. */
export const ID_BITS = 32;

/** SQL of the key of a posts row (alias `p`). */
export const CLICKED_KEY_SQL = "((p.clicks << 32) | p.id)";

/**
 * The clicked posts' index's row of a post keyed `key` (clickedKey) from its posts_fts row (`row`,
 * fts5IndexRow's values under the post's date key): the same tokens, and since schema 32 the
 * period tokens of its day after the title's in title_words (sqlite-clicked-periods.ts).
 */
export function clickedRow(key: bigint, row: Readonly<IndexRow>): IndexRow {
  const periods = periodTokens(Number(row[0]));
  return [key, row[1], row[2], row[3], row[4], row[5] === "" ? periods : `${row[5]} ${periods}`];
}

/** The key of post `id` with `clicks` clicks. */
export function clickedKey(clicks: number, id: number): bigint {
  if (id < 0 || id >= 2 ** ID_BITS || clicks < 0 || clicks >= 2 ** 31) {
    throw new Error(`post ${id} with ${clicks} clicks has no key in the clicked posts' index`);
  }
  return (BigInt(clicks) << BigInt(ID_BITS)) | BigInt(id);
}

/**
 * posts_fts's row count and token total (the text's columns: title_words is left out of the
 * lengths, sqlite-term-sample.ts's WEIGHTS): FTS5's averages record (%_data row 1: a varint of
 * rows, then one of tokens per column), what its xRowCount and xColumnTotalSize read
 * (fts5_index.c, sqlite3Fts5IndexGetAverages). Scoring a post in the clicked posts' index with these
 * (`sampled_bm25_over`, native/sampled_bm25.c) gives the score posts_fts gives it: the row's own
 * tokens and length are the same there. That index (`index`) keeps the same record of its own
 * rows: every post since schema 31, as posts_fts.
 */
export function searchIndexTotals(
  stmts: StatementCache,
  index: "posts_fts" | typeof CLICKED_FTS = "posts_fts",
): { rows: number; tokens: number } {
  const block = stmts.get(`SELECT block FROM ${index}_data WHERE id = 1`).pluck().get() as Buffer | undefined;
  const values: number[] = [];
  let at = 0;
  while (block !== undefined && at < block.length) {
    // SQLite's varint: 7 bits a byte, high bit set on all but the last; a 9th byte holds 8 bits.
    let value = 0;
    let i = 0;
    for (; i < 8 && at < block.length; i++) {
      const byte = block[at++]!;
      value = value * 128 + (byte & 0x7f);
      if ((byte & 0x80) === 0) break;
    }
    if (i === 8 && at < block.length) value = value * 256 + block[at++]!;
    values.push(value);
  }
  const [rows = 0, ...columns] = values;
  return { rows, tokens: columns.slice(0, TEXT_COLUMNS).reduce((sum, n) => sum + n, 0) };
}

/**
 * Whether the database has the index: a database at an older schema (a test building one, before
 * it upgrades) has none to keep, and schema 23 builds it from the posts when it comes.
 */
export function clickedIndexExists(stmts: StatementCache): boolean {
  // Asked for every post a refresh writes: a refresh's transaction reads it once.
  return stmts.fixedWhileWriting(
    "clickedIndexExists",
    () =>
      stmts.get("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(CLICKED_FTS) !==
      undefined,
  );
}

interface ClickedText {
  clicks: number;
  date_key: number;
  title: string;
  excerpt: string;
  content: string;
  language_id: number;
  feed_name: string;
}

const TEXT = `SELECT p.clicks, p.date_key, p.title, p.excerpt, p.content, p.language_id, f.name AS feed_name
  FROM posts p JOIN feeds f ON f.id = p.feed_id WHERE p.id = ?`;

/**
 * Keeps post `id`'s row after its clicks changed by `added` (its text unchanged): the row under
 * the old count goes, the row under the new one comes, its tokens derived again from the post.
 */
export function rekeyClicked(stmts: StatementCache, id: number, added: number): void {
  const r = stmts.get(TEXT).get(id) as ClickedText | undefined;
  if (r === undefined || added === 0 || !clickedIndexExists(stmts)) return;
  stmts.get(CLICKED_DELETE).run(clickedKey(r.clicks - added, id));
  const row = fts5IndexRow(r.date_key, r.title, r.excerpt, r.content, r.feed_name, r.language_id);
  stmts.get(CLICKED_INSERT).run(...clickedRow(clickedKey(r.clicks, id), row));
}

/**
 * Writes a post's row again with new tokens (`row`: fts5IndexRow's values under its date key, whose
 * rowid is replaced by the post's key, its day's period tokens added); `fresh` for a new post,
 * which has no row to delete yet. A post whose date changed is written again here with its new key.
 */
export function rewriteClicked(
  stmts: StatementCache,
  id: number,
  clicks: number,
  row: Readonly<IndexRow>,
  fresh = false,
): void {
  if (!clickedIndexExists(stmts)) return;
  const key = clickedKey(clicks, id);
  if (!fresh) stmts.get(CLICKED_DELETE).run(key);
  stmts.get(CLICKED_INSERT).run(...clickedRow(key, row));
}

/** Removes the rows of a feed's posts (before the posts go). */
export function unindexClickedFeed(stmts: StatementCache, feedId: number): void {
  if (!clickedIndexExists(stmts)) return;
  stmts
    .get(`DELETE FROM ${CLICKED_FTS} WHERE rowid IN (
      SELECT ${CLICKED_KEY_SQL} FROM posts p INDEXED BY posts_by_feed_clicks WHERE p.feed_id = ?)`)
    .run(feedId);
}

/** The clicked posts counted through their own index (posts_clicked_by_key), a walk of it whole. */
export const CLICKED_POSTS_COUNT =
  "SELECT count(*) FROM posts INDEXED BY posts_clicked_by_key WHERE clicks > 0";

/** How many posts have a click, per connection for a few seconds: a plan's estimate, not a result. */
const clickedCounts = new WeakMap<StatementCache, { at: number; count: number }>();

const CLICKED_COUNT_TTL_MS = 10_000;

/**
 * About how many posts have a click (counted from posts_clicked_by_key, at most a few seconds
 * old): the clicked posts' share, which a plan weighs; the index's own row count is every post's.
 */
export function clickedPostCount(stmts: StatementCache): number {
  const now = Date.now();
  const known = clickedCounts.get(stmts);
  if (known !== undefined && now - known.at < CLICKED_COUNT_TTL_MS) return known.count;
  const count = stmts.get(CLICKED_POSTS_COUNT).pluck().get() as number;
  clickedCounts.set(stmts, { at: now, count });
  return count;
}

/** posts_fts's declaration under this index's name: the same tokenizer, columns and prefix index. */
function clickedDeclaration(db: Database.Database): string {
  const row = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'posts_fts'").get() as
    | { sql: string }
    | undefined;
  if (row === undefined) throw new Error("schema 23 needs the full-text index of schema 14");
  return row.sql.replace(/^CREATE VIRTUAL TABLE\s+("?)posts_fts\1/iu, `CREATE VIRTUAL TABLE ${CLICKED_FTS}`);
}

const BATCH = 2_000;
const STEP = "indexing every post in clicks order";

/**
 * Builds the index anew from the posts (a re-run rebuilds it), in ascending key order, which FTS5
 * appends cheaply: the unclicked posts by id (their keys are their ids), then the clicked ones by
 * (clicks, id), all above 2^32; in batches (better-sqlite3 cannot write while a read is still
 * stepping), reporting progress; then merged into one segment.
 */
export function buildClickedIndex(db: Database.Database, progress: MigrationProgress): void {
  db.exec(`DROP TABLE IF EXISTS ${CLICKED_FTS}; ${clickedDeclaration(db)}`);
  const total = db.prepare("SELECT count(*) FROM posts").pluck().get() as number;
  const text =
    "p.clicks, p.id, p.date_key, p.title, p.excerpt, p.content, p.language_id, f.name AS feed_name";
  const unclicked = db.prepare(`SELECT ${text} FROM posts p JOIN feeds f ON f.id = p.feed_id
    WHERE p.id > ? AND p.clicks = 0 ORDER BY p.id LIMIT ${BATCH}`);
  const clicked = db.prepare(`SELECT ${text}
    FROM posts p INDEXED BY posts_clicked_by_key JOIN feeds f ON f.id = p.feed_id
    WHERE p.clicks > 0 AND (p.clicks, p.id) > (?, ?) ORDER BY p.clicks, p.id LIMIT ${BATCH}`);
  const insert = db.prepare(CLICKED_INSERT);
  let done = 0;
  progress(STEP, 0, total);
  const run = (next: (after: readonly [number, number]) => Array<ClickedText & { id: number }>) => {
    let after: readonly [number, number] = [0, 0];
    for (;;) {
      const rows = next(after);
      if (rows.length === 0) break;
      for (const r of rows) {
        const row = fts5IndexRow(r.date_key, r.title, r.excerpt, r.content, r.feed_name, r.language_id);
        insert.run(...clickedRow(clickedKey(r.clicks, r.id), row));
      }
      const last = rows[rows.length - 1]!;
      after = [last.clicks, last.id];
      done += rows.length;
      progress(STEP, done, total);
    }
  };
  run((after) => unclicked.all(after[1]) as Array<ClickedText & { id: number }>);
  run((after) => clicked.all(after[0], after[1]) as Array<ClickedText & { id: number }>);
  if (total > 0) db.exec(`INSERT INTO ${CLICKED_FTS} (${CLICKED_FTS}) VALUES ('optimize')`);
}
