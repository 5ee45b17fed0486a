/**
 * Ingest claims on PostgreSQL: several workers on several machines share the due feeds. A worker
 * claims a batch with `FOR UPDATE SKIP LOCKED` (workers claiming at the same moment skip each
 * other's rows instead of waiting or taking the same ones) and stamps a lease on each feed; a feed
 * whose lease has not expired is not handed out again, so no feed is fetched twice at once, and a
 * crashed worker's feeds come back when its lease runs out.
 */
import type pg from "pg";
import type { FeedAdminRecord } from "../store.js";
import { FEED_ADMIN_COLUMNS, FEED_JOINS } from "./postgres-columns.js";
import { changes, inTransaction, rows } from "./postgres-connection.js";

export interface ClaimOptions {
  /** Who claims (shown in the row; a release only frees the claimant's own claims). */
  worker: string;
  /** How long the claim holds if the worker never releases it. */
  leaseMs: number;
  limit: number;
  /** Every feed not claimed since `passStart`, instead of the due ones. */
  all?: boolean;
  passStart?: number;
}

export async function claimDueFeeds(
  pool: pg.Pool,
  now: number,
  opts: ClaimOptions,
): Promise<FeedAdminRecord[]> {
  return inTransaction(pool, async (sql) => {
    const due = opts.all ? "(f.claimed_at IS NULL OR f.claimed_at < $3)" : "f.next_fetch_at <= $3";
    const claimed = await rows<{ id: number }>(
      sql,
      `UPDATE feeds SET claimed_by = $1, claimed_at = $2, claim_expires_at = $2 + $4::bigint
        WHERE id IN (
          SELECT f.id FROM feeds f
          WHERE ${due} AND (f.claim_expires_at IS NULL OR f.claim_expires_at <= $2)
          ORDER BY f.next_fetch_at, f.id LIMIT $5 FOR UPDATE SKIP LOCKED)
        RETURNING id`,
      [opts.worker, now, opts.all ? (opts.passStart ?? now) : now, opts.leaseMs, opts.limit],
    );
    if (claimed.length === 0) return [];
    return rows<FeedAdminRecord>(
      sql,
      `SELECT ${FEED_ADMIN_COLUMNS} FROM feeds f ${FEED_JOINS} WHERE f.id = ANY($1::int[])
        ORDER BY f.next_fetch_at, f.id`,
      [claimed.map((r) => r.id)],
    );
  });
}

export async function releaseFeedClaim(pool: pg.Pool, feedId: number, worker: string): Promise<void> {
  await changes(
    pool,
    "UPDATE feeds SET claimed_by = NULL, claim_expires_at = NULL WHERE id = $1 AND claimed_by = $2",
    [feedId, worker],
  );
}
