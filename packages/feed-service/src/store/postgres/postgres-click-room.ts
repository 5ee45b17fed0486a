/**
 * Migration 31: room on every page of `posts` for one new version of its widest row, so that a
 * click's `UPDATE posts SET clicks` stays heap-only (HOT) on its first click too.
 *
 * A HOT update needs the new version on the old one's page
 * (https://www.postgresql.org/docs/current/storage-hot.html). Migration 14 left 15 % of each page
 * free (1,228 bytes of 8,192), but a row kept in line reaches TOAST_TUPLE_TARGET (2,032 bytes;
 * https://www.postgresql.org/docs/current/storage-toast.html): the first click on a wider row
 * found no room, so it wrote a new entry into every index of `posts`, the two GIN search indexes
 * included, whose pending list an unlucky click then flushed (seconds; bench/NOTES.md, pgclick31).
 * With a quarter of each page free (2,048 bytes) any row kept in line fits once; the dead version
 * is pruned when the page is next read near full, which leaves room for the next click.
 *
 * Only pages written after this migration get the room (ingest, and migrate-data, which copies
 * into tables made by the migrations); rewriting the existing ones would rebuild both GIN indexes
 * under a lock, which `VACUUM FULL posts` does for an operator who wants it at a quiet hour.
 */
import type { Sql } from "./postgres-connection.js";

/** Per cent of each `posts` page filled by inserts: the rest, 2,048 bytes, ≥ TOAST_TUPLE_TARGET. */
export const POSTS_FILLFACTOR = 75;

export async function leaveRoomForClicks(sql: Sql): Promise<void> {
  await sql.query(`ALTER TABLE posts SET (fillfactor = ${POSTS_FILLFACTOR})`);
}
