/**
 * Schema version 24: a third full-text index, posts_feed_fts, whose tokens are posts_fts's each
 * prefixed with the post's feed id (`<feed id>\uE001<token>`), so that one feed's posting list of
 * a word holds only that feed's posts. A `feed:` search with words then reads, per feed its name
 * matches, the lists of that feed only (fts5-feed-search.ts), not the whole index's lists of the
 * words ANDed with the feed name's: the lists PostgreSQL's migration 32 keys by '<feed id> <word>'
 * (postgres-feed-words.ts). posts_fts's AND reads every page of lists as long as `the` and `new`
 * whatever the feed share, FTS5 skipping only gaps of a leaf page (bench/NOTES.md, sqlitefeed31).
 *
 * A row is keyed by the post's date key, as posts_fts's (sqlite-date-keys.ts), and holds the same
 * number of tokens in each column, in the same order: a phrase's instances in a row are the word's
 * in posts_fts's row, and the row's length is read from posts_fts's docsize table, so
 * `sampled_bm25_over` with posts_fts's totals scores a row exactly as posts_fts does (as the
 * clicked posts' index: sqlite-clicked-index.ts). No prefix index: every token of a feed shares
 * the feed's prefix, so a 3-character prefix index would hold a feed's whole vocabulary under
 * one key; a `word*` reads the feed's own terms that begin with it. The private-use separator is
 * never emitted by the analyzer (fts5-index-row.ts), so no query token can reach another feed's.
 *
 * Every write of posts_fts's rows writes here too (writeIndexRow, deleteIndexRow, held with them
 * in a refresh: sqlite-index-write-hold.ts), with the feed's removal and migrate-data's copy.
 */
import type Database from "better-sqlite3";
import type { MigrationProgress } from "../migration-progress.js";
import {
  FTS5_DELETE,
  FTS5_INSERT,
  FTS5_TEXT_COLUMNS,
  FTS5_TOKENIZER,
  type IndexRow,
} from "./fts5-index-row.js";
import type { StatementCache } from "./sqlite-connection.js";
import { forEachIndexRowByKey } from "./sqlite-date-key-migration.js";

export const FEED_FTS = "posts_feed_fts";

export const FEED_FTS_INSERT = `INSERT INTO ${FEED_FTS} (rowid, title, body, feed_name, language) VALUES (?, ?, ?, ?, ?)`;

export const FEED_FTS_DELETE = `DELETE FROM ${FEED_FTS} WHERE rowid = ?`;

/** The prefix of feed `feedId`'s tokens. */
export function feedTokenPrefix(feedId: number): string {
  return `${feedId}\uE001`;
}

function prefixed(prefix: string, tokens: string): string {
  // One pass over the string: a split and a join allocate an array and a string per token, for
  // every column of every post a refresh writes.
  return tokens === "" ? "" : prefix + tokens.replaceAll(" ", ` ${prefix}`);
}

/**
 * The values of FEED_FTS_INSERT for a posts_fts row (fts5IndexRow's values) of a post of feed
 * `feedId`: its text's columns (no title_words: a `title:` here is a column filter, fts5-match.ts).
 *
 * @example
 * feedIndexRow([7, "a b", "", "blog", "\uE0001", "\uE002a \uE002b"], 3); // [7, "3\uE001a 3\uE001b", "", "3\uE001blog", "3\uE001\uE0001"]
 */
export function feedIndexRow(
  row: Readonly<IndexRow>,
  feedId: number,
): [number | bigint, string, string, string, string] {
  const p = feedTokenPrefix(feedId);
  return [row[0], prefixed(p, row[1]), prefixed(p, row[2]), prefixed(p, row[3]), prefixed(p, row[4])];
}

/**
 * The statement caches whose database was seen with the index, for the writes. Only a present
 * index is remembered: schema 24 creates it on an open connection, and nothing drops it but
 * `buildFeedIndex`, which creates it again in the same call. Every post a refresh writes asks
 * (an updated one twice); reading sqlite_master each time cost a statement per ask. The searches
 * ask sqlite_master each time (a test takes the index away to compare their plans without it).
 */
const withFeedIndex = new WeakSet<StatementCache>();

/**
 * Whether the database has the index: one at an older schema (a test building one, before it
 * upgrades) has none to keep, and schema 24 builds it from the posts.
 */
export function feedIndexExists(stmts: StatementCache): boolean {
  return (
    stmts.get("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(FEED_FTS) !== undefined
  );
}

/** `feedIndexExists` for the writes, remembered once seen (`withFeedIndex`). */
function feedIndexWritten(stmts: StatementCache): boolean {
  if (withFeedIndex.has(stmts)) return true;
  const exists = feedIndexExists(stmts);
  if (exists) withFeedIndex.add(stmts);
  return exists;
}

/** Writes a post's index rows: posts_fts's (`row`, fts5IndexRow's values) and this index's. */
export function writeIndexRow(stmts: StatementCache, row: Readonly<IndexRow>, feedId: number): void {
  stmts.get(FTS5_INSERT).run(...row);
  if (feedIndexWritten(stmts)) stmts.get(FEED_FTS_INSERT).run(...feedIndexRow(row, feedId));
}

/** Removes a post's index rows by its date key. */
export function deleteIndexRow(stmts: StatementCache, key: number): void {
  stmts.get(FTS5_DELETE).run(key);
  if (feedIndexWritten(stmts)) stmts.get(FEED_FTS_DELETE).run(key);
}

/** Removes the rows of a feed's posts from this index (before the posts go). */
export function unindexFeedPosts(stmts: StatementCache, feedId: number): void {
  if (!feedIndexExists(stmts)) return;
  stmts
    .get(`DELETE FROM ${FEED_FTS} WHERE rowid IN (SELECT date_key FROM posts WHERE feed_id = ?)`)
    .run(feedId);
}

export const FEED_FTS_DECLARATION = `CREATE VIRTUAL TABLE ${FEED_FTS} USING fts5 (
  ${FTS5_TEXT_COLUMNS},
  content = '', contentless_delete = 1,
  tokenize = '${FTS5_TOKENIZER}'
)`;

const STEP = "indexing posts by feed and word (schema 24)";

/**
 * Builds the index anew from the posts (a re-run rebuilds it): by ascending date key, which FTS5
 * appends cheaply, in batches (better-sqlite3 cannot write while a read is still stepping),
 * reporting progress; then merged into one segment.
 */
export function buildFeedIndex(db: Database.Database, progress: MigrationProgress): void {
  db.exec(`DROP TABLE IF EXISTS ${FEED_FTS}; ${FEED_FTS_DECLARATION}`);
  const insert = db.prepare(FEED_FTS_INSERT);
  const total = forEachIndexRowByKey(db, STEP, progress, (row, feedId) =>
    insert.run(...feedIndexRow(row, feedId)),
  );
  if (total > 0) db.exec(`INSERT INTO ${FEED_FTS} (${FEED_FTS}) VALUES ('optimize')`);
}
