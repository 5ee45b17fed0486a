/**
 * The date key: the full-text index's rowid, which follows (post_date, id) whatever order posts
 * arrive in, so that a newest-first walk of the hits is FTS5's own rowid order and stops after
 * `offset + limit` hits (index sorting as in Lucene and Twitter's Earlybird, design.md). A key is
 * the post's second (clamped to ±2^36 s, about ±2,000 years) times 2^16 plus a slot; within one
 * second the slots follow (post_date, id) exactly. Keys stay below 2^53, so JavaScript numbers
 * hold them exactly. A new post takes the slot after its second's newest (its id is the highest
 * so far); one dated before a post of its second goes between its neighbours, and when no slot is
 * free there the second's posts are renumbered (their index rows written again).
 */
import { deleteIndexRow, writeIndexRow } from "./fts5-feed-index.js";
import { fts5IndexRow } from "./fts5-index-row.js";
import type { StatementCache } from "./sqlite-connection.js";

/** Slots per second. */
export const SLOTS = 65_536;
const SECOND = 1000;
const MAX_SECOND = 2 ** 36 - 1;

/** The second a post_date files under. */
function secondOf(postDate: number): number {
  return Math.min(MAX_SECOND, Math.max(-MAX_SECOND - 1, Math.floor(postDate / SECOND)));
}

/** The lowest key of the second that holds `postDate`. */
export function secondKey(postDate: number): number {
  return secondOf(postDate) * SLOTS;
}

/**
 * The lowest key a post dated at or after `date` can have; exact for a date on a whole second
 * (day starts are): every post dated before it has a lower key.
 */
export function keyAtOrAfter(date: number): number {
  return secondKey(date);
}

/** SQL of the second key of a post_date column, for bulk numbering in the migration. */
export function secondKeySql(column: string): string {
  const s = `(${column} / ${SECOND} - (${column} % ${SECOND} < 0))`;
  return `(min(${MAX_SECOND}, max(${-MAX_SECOND - 1}, ${s})) * ${SLOTS})`;
}

interface Keyed {
  key: number;
  date: number;
  id: number;
}

const before = (a: { date: number; id: number }, b: { date: number; id: number }) =>
  a.date < b.date || (a.date === b.date && a.id < b.id);

/**
 * Gives post `id` (dated `postDate`, its date_key NULL or about to change) its key, writing it to
 * posts.date_key, and returns it. The caller writes the post's own index row; rows of other posts
 * renumbered on the way are written again here.
 */
export function assignDateKey(stmts: StatementCache, id: number, postDate: number): number {
  const key = dateKeyFor(stmts, id, postDate);
  stmts.get("UPDATE posts SET date_key = ? WHERE id = ?").run(key, id);
  return key;
}

/**
 * The key for a post dated `postDate`: post `id`, or (null) a post about to be inserted, whose
 * id will be the highest (INTEGER PRIMARY KEY takes the largest id plus one), so that the insert
 * can write its key itself. Renumbers the second's other posts when needed.
 */
export function dateKeyFor(stmts: StatementCache, id: number | null, postDate: number): number {
  const low = secondKey(postDate);
  const high = low + SLOTS - 1;
  const me = { date: postDate, id: id ?? Number.MAX_SAFE_INTEGER };
  const newest = stmts
    .get(`SELECT date_key AS key, post_date AS date, id FROM posts
      WHERE date_key BETWEEN ? AND ? AND id <> ? ORDER BY date_key DESC LIMIT 1`)
    .get(low, high, id ?? -1) as Keyed | undefined;
  if (newest === undefined) return low + SLOTS / 2;
  if (before(newest, me) && newest.key < high) return newest.key + 1;
  return insertInSecond(stmts, low, me);
}

/** A key between the neighbours of `me` in its second, renumbering the second when none is free. */
function insertInSecond(stmts: StatementCache, low: number, me: { date: number; id: number }): number {
  const rows = stmts
    .get(`SELECT date_key AS key, post_date AS date, id FROM posts
      WHERE date_key BETWEEN ? AND ? AND id <> ? ORDER BY date_key`)
    .all(low, low + SLOTS - 1, me.id) as Keyed[];
  let at = 0;
  while (at < rows.length && before(rows[at]!, me)) at++;
  const below = at === 0 ? low - 1 : rows[at - 1]!.key;
  const above = at === rows.length ? low + SLOTS : rows[at]!.key;
  if (above - below > 1) return below + Math.floor((above - below) / 2);
  if (rows.length + 1 >= SLOTS) {
    throw new Error(
      `More than ${SLOTS - 1} posts are dated within one second; the date index cannot order them.`,
    );
  }
  // Spread the second's posts evenly, `me` in its place; only keys that change are rewritten.
  const step = Math.floor(SLOTS / (rows.length + 2));
  const ordered = [...rows.slice(0, at), null, ...rows.slice(at)];
  const moved: Array<{ id: number; from: number; to: number }> = [];
  let myKey = low;
  ordered.forEach((row, j) => {
    const to = low + (j + 1) * step;
    if (row === null) myKey = to;
    else if (row.key !== to) moved.push({ id: row.id, from: row.key, to });
  });
  rekey(stmts, moved);
  return myKey;
}

interface IndexedText {
  feed_id: number;
  title: string;
  excerpt: string;
  content: string;
  language_id: number;
  feed_name: string;
}

/** Moves posts to new keys, their index rows with them (two passes: keys are unique). */
function rekey(stmts: StatementCache, moved: ReadonlyArray<{ id: number; from: number; to: number }>): void {
  const text = stmts.get(`SELECT p.feed_id, p.title, p.excerpt, p.content, p.language_id, f.name AS feed_name
    FROM posts p JOIN feeds f ON f.id = p.feed_id WHERE p.id = ?`);
  const clear = stmts.get("UPDATE posts SET date_key = NULL WHERE id = ?");
  for (const m of moved) {
    deleteIndexRow(stmts, m.from);
    clear.run(m.id);
  }
  const set = stmts.get("UPDATE posts SET date_key = ? WHERE id = ?");
  for (const m of moved) {
    set.run(m.to, m.id);
    const r = text.get(m.id) as IndexedText;
    writeIndexRow(
      stmts,
      fts5IndexRow(m.to, r.title, r.excerpt, r.content, r.feed_name, r.language_id),
      r.feed_id,
    );
  }
}
