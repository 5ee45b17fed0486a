/**
 * Ingest claims on SQLite: the same lease rule as PostgreSQL (`../postgres/postgres-feed-claims.ts`)
 * for several processes over one database file. The claim table is created on first use, so
 * databases need no migration for it; claims are taken inside an IMMEDIATE transaction, which holds
 * the file's write lock, so two processes never claim the same feed.
 */
import type Database from "better-sqlite3";
import { NOT_PAUSED } from "../feed-pause-sql.js";
import type { FeedAdminRecord, FeedClaimOptions } from "../store.js";
import { FEED_ADMIN_COLUMNS, FEED_JOINS } from "./sqlite-columns.js";

const createTable = `CREATE TABLE IF NOT EXISTS feed_claims (
  feed_id INTEGER PRIMARY KEY REFERENCES feeds (id) ON DELETE CASCADE,
  claimed_by TEXT,
  claimed_at INTEGER NOT NULL,
  expires_at INTEGER
)`;

export function claimDueFeeds(db: Database.Database, now: number, opts: FeedClaimOptions): FeedAdminRecord[] {
  const run = db.transaction((): FeedAdminRecord[] => {
    db.exec(createTable);
    // Once per pass, as on PostgreSQL (the last claimant stays on the row): a pass always ends,
    // even when a refresh could not move a feed's next fetch time.
    const due = opts.all ? "" : "AND f.next_fetch_at <= ?";
    const holders = db
      .prepare("SELECT DISTINCT claimed_by AS worker FROM feed_claims WHERE expires_at > ?")
      .all(now) as Array<{ worker: string }>;
    const abandoned = holders.map((h) => h.worker).filter((w) => opts.isAbandoned?.(w) ?? false);
    const feeds = db
      .prepare(
        `SELECT ${FEED_ADMIN_COLUMNS} FROM feeds f ${FEED_JOINS} LEFT JOIN feed_claims k ON k.feed_id = f.id
          WHERE (k.claimed_by IS NULL OR k.claimed_by <> ?) ${due} AND ${NOT_PAUSED} AND (k.expires_at IS NULL OR k.expires_at <= ? OR k.claimed_by IN (SELECT value FROM json_each(?)))
          ORDER BY f.next_fetch_at, f.id LIMIT ?`,
      )
      .all(
        ...(opts.all ? [opts.worker] : [opts.worker, now]),
        now,
        JSON.stringify(abandoned),
        opts.limit,
      ) as FeedAdminRecord[];
    const claim = db.prepare(
      `INSERT INTO feed_claims (feed_id, claimed_by, claimed_at, expires_at) VALUES (?, ?, ?, ?)
        ON CONFLICT (feed_id) DO UPDATE SET claimed_by = excluded.claimed_by, claimed_at = excluded.claimed_at,
          expires_at = excluded.expires_at`,
    );
    for (const feed of feeds) claim.run(feed.feedId, opts.worker, now, now + opts.leaseMs);
    return feeds;
  });
  return run.immediate();
}

/**
 * Extends a claim that is still the worker's; false when another worker took it (its lease ran
 * out first) or it was released. A lease that ran out but that nobody took is renewed: no one
 * else has started on the feed.
 */
export function renewFeedClaim(
  db: Database.Database,
  feedId: number,
  worker: string,
  now: number,
  leaseMs: number,
): boolean {
  return db
    .transaction(() => {
      db.exec(createTable);
      return (
        db
          .prepare(
            "UPDATE feed_claims SET expires_at = ? WHERE feed_id = ? AND claimed_by = ? AND expires_at IS NOT NULL",
          )
          .run(now + leaseMs, feedId, worker).changes > 0
      );
    })
    .immediate();
}

export function releaseFeedClaims(db: Database.Database, feedIds: readonly number[], worker: string): void {
  if (feedIds.length === 0) return;
  db.transaction(() => {
    db.exec(createTable);
    db.prepare(
      "UPDATE feed_claims SET expires_at = NULL WHERE feed_id IN (SELECT value FROM json_each(?)) AND claimed_by = ?",
    ).run(JSON.stringify(feedIds), worker);
  }).immediate();
}
