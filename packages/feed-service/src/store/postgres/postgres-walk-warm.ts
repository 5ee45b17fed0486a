/**
 * The second part of the start warm-up (postgres-warm.ts): when the posts' TOAST table does not
 * fit in shared buffers whole, the room left is given to what the walks test first, in the orders
 * they walk: each post's `search_vector` (mostly out of line, in TOAST), most clicked posts first
 * (clicked_posts by clicks, id: the clicks walk, postgres-clicked-walk.ts) and newest posts first
 * (posts_by_date: the date walks, and relevance's newest matches), a batch of each in turn. Every
 * search by clicks or date starts at the top of one of these orders, whatever its words, so this
 * is a warm-up of the orders, never of particular words or arguments (spec §4 Latency). Loaded by
 * relation and size alone, the walks found those TOAST pages outside shared buffers on a first
 * call (bench/NOTES.md, pgclk34).
 *
 * What a batch loaded is counted from the transaction's own block statistics
 * (`pg_stat_get_xact_blocks_fetched` - `_hit`: the blocks read into free buffers), so the room is
 * kept whatever a vector's size, and stops at most one batch past it.
 */
import type pg from "pg";

/** The most posts one batch reads the vectors of (a batch is one statement). */
const MAX_BATCH = 4_096;
/** Below this many posts a batch is not worth a statement: the room left is too small. */
const MIN_BATCH = 16;
/** 8 KB pages per post that a batch may take at most (a vector of a few chunks, its heap page). */
const PAGES_A_POST = 4;

interface Key {
  a: number;
  id: number;
}

/**
 * One batch of an order after `key` (both orders are (key, id) descending): each post's
 * `search_vector` read whole (length() detoasts it) so that its TOAST chunks land in shared
 * buffers. Returns the last key read, or null when the order is done.
 */
async function nextBatch(
  client: pg.PoolClient,
  order: "clicks" | "date",
  key: Key,
  limit: number,
): Promise<Key | null> {
  const keys =
    order === "clicks"
      ? `SELECT k.clicks::float8 AS a, k.id FROM clicked_posts k WHERE (k.clicks, k.id) < ($1::int, $2::int)
          ORDER BY k.clicks DESC, k.id DESC LIMIT $3`
      : `SELECT p.post_date::float8 AS a, p.id FROM posts p WHERE (p.post_date, p.id) < ($1::bigint, $2::int)
          ORDER BY p.post_date DESC, p.id DESC LIMIT $3`;
  const { rows } = await client.query<Key & { n: number }>(
    `WITH k AS MATERIALIZED (${keys})
      SELECT k.a, k.id, v.n FROM k CROSS JOIN LATERAL (
        SELECT length(p.search_vector) AS n FROM posts p WHERE p.id = k.id) v
      ORDER BY k.a DESC, k.id DESC`,
    [key.a, key.id, limit],
  );
  return rows.length < limit ? null : { a: rows.at(-1)!.a, id: rows.at(-1)!.id };
}

/**
 * Reads the vectors of the walks' first posts into shared buffers until about `roomBytes` more
 * are taken; returns the bytes it loaded (0 when the server keeps no block statistics).
 */
export async function warmWalkedVectors(
  client: pg.PoolClient,
  /** The oids of the relations a batch reads (posts, its TOAST table and indexes, clicked_posts). */
  relations: readonly string[],
  roomBytes: number,
  /** Called after each batch (the start's progress line, and where a stop request ends the warm-up). */
  onBatch?: () => void,
): Promise<number> {
  const [settings] = (
    await client.query<{ counts: boolean; block: number }>(
      "SELECT current_setting('track_counts')::bool AS counts, current_setting('block_size')::int AS block",
    )
  ).rows;
  if (!settings?.counts) return 0;
  const roomPages = Math.floor(roomBytes / settings.block);
  const read = async () =>
    Number(
      (
        await client.query<{ n: number }>(
          `SELECT coalesce(sum(pg_stat_get_xact_blocks_fetched(o) - pg_stat_get_xact_blocks_hit(o)), 0)::float8 AS n
            FROM unnest($1::oid[]) AS o`,
          [relations],
        )
      ).rows[0]!.n,
    );
  // One transaction: the backend's pending block counts reach the shared statistics only outside
  // one, so they grow by this warm-up's reads alone from `base` (earlier statements' are in it).
  await client.query("BEGIN READ ONLY");
  try {
    const base = await read();
    let pages = 0;
    const keys: Record<"clicks" | "date", Key | null> = {
      clicks: { a: 2 ** 31 - 1, id: 2 ** 31 - 1 },
      date: { a: Number.MAX_SAFE_INTEGER, id: 2 ** 31 - 1 },
    };
    let turn: "clicks" | "date" = "clicks";
    for (;;) {
      const limit = Math.min(MAX_BATCH, Math.floor((roomPages - pages) / PAGES_A_POST));
      if (limit < MIN_BATCH) break;
      if (keys[turn] === null) turn = turn === "clicks" ? "date" : "clicks";
      const key = keys[turn];
      if (key === null) break;
      keys[turn] = await nextBatch(client, turn, key, limit);
      pages = (await read()) - base;
      onBatch?.();
      turn = turn === "clicks" ? "date" : "clicks";
    }
    return pages * settings.block;
  } finally {
    await client.query("COMMIT");
  }
}
