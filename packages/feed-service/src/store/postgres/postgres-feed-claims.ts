/**
 * Ingest claims on PostgreSQL: several workers on several machines share the due feeds. A worker
 * claims a batch with `FOR UPDATE SKIP LOCKED` (workers claiming at the same moment skip each
 * other's rows instead of waiting or taking the same ones) and stamps a lease on each feed; a feed
 * whose lease has not expired is not handed out again, so no feed is fetched twice at once, and a
 * crashed worker's feeds come back when its lease runs out.
 */
import type pg from "pg";
import { NOT_PAUSED } from "../feed-pause-sql.js";
import type { FeedClaimOptions as ClaimOptions, FeedAdminRecord } from "../store.js";
import { FEED_ADMIN_COLUMNS, FEED_JOINS } from "./postgres-columns.js";
import { changes, inTransaction, rows } from "./postgres-connection.js";

export async function claimDueFeeds(
  pool: pg.Pool,
  now: number,
  opts: ClaimOptions,
): Promise<FeedAdminRecord[]> {
  return inTransaction(pool, async (sql) => {
    // Once per pass (a worker id is unique per pass, and the last claimant stays on the row): a
    // feed is not handed out to the same pass again, even when its refresh could not move its next
    // fetch time (a database error), so a pass always ends.
    const due = opts.all ? "" : "AND f.next_fetch_at <= $2";
    const holders = await rows<{ worker: string }>(
      sql,
      "SELECT DISTINCT claimed_by AS worker FROM feeds WHERE claim_expires_at > $1",
      [now],
    );
    const abandoned = holders.map((h) => h.worker).filter((w) => opts.isAbandoned?.(w) ?? false);
    const claimed = await rows<{ id: number }>(
      sql,
      `UPDATE feeds SET claimed_by = $1, claimed_at = $2, claim_expires_at = $2 + $3::bigint
        WHERE id IN (
          SELECT f.id FROM feeds f
          WHERE f.claimed_by IS DISTINCT FROM $1 ${due} AND ${NOT_PAUSED}
            AND (f.claim_expires_at IS NULL OR f.claim_expires_at <= $2 OR f.claimed_by = ANY($5::text[]))
          ORDER BY f.next_fetch_at, f.id LIMIT $4 FOR UPDATE SKIP LOCKED)
        RETURNING id`,
      [opts.worker, now, opts.leaseMs, opts.limit, abandoned],
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

/**
 * Extends a claim that is still the worker's; false when another worker took it (its lease ran
 * out first) or it was released. A lease that ran out but that nobody took is renewed: no one
 * else has started on the feed.
 */
export async function renewFeedClaim(
  pool: pg.Pool,
  feedId: number,
  worker: string,
  now: number,
  leaseMs: number,
): Promise<boolean> {
  const renewed = await changes(
    pool,
    `UPDATE feeds SET claim_expires_at = $3 + $4::bigint
      WHERE id = $1 AND claimed_by = $2 AND claim_expires_at IS NOT NULL`,
    [feedId, worker, now, leaseMs],
  );
  return renewed > 0;
}

export async function releaseFeedClaims(
  pool: pg.Pool,
  feedIds: readonly number[],
  worker: string,
): Promise<void> {
  if (feedIds.length === 0) return;
  await changes(
    pool,
    "UPDATE feeds SET claim_expires_at = NULL WHERE id = ANY($1::int[]) AND claimed_by = $2",
    [feedIds, worker],
  );
}
