/**
 * The WebSub subscriptions table (PostgreSQL): one row per feed whose documents name a hub.
 * Removing the feed removes its row; callback ids are unique so that a callback finds one
 * subscription.
 */
import type { Sql } from "./postgres-connection.js";

export async function createWebSubTable(sql: Sql): Promise<void> {
  await sql.query(`
CREATE TABLE websub_subscriptions (
  feed_id INTEGER PRIMARY KEY REFERENCES feeds (id) ON DELETE CASCADE,
  hub_url TEXT NOT NULL,
  topic_url TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('discovered', 'pending', 'active', 'denied', 'expired')),
  callback_id TEXT UNIQUE,
  secret TEXT,
  lease_seconds INTEGER,
  lease_expires_at BIGINT,
  next_attempt_at BIGINT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  discovered_at BIGINT NOT NULL,
  verified_at BIGINT,
  last_push_at BIGINT
);
CREATE INDEX websub_subscriptions_due ON websub_subscriptions (next_attempt_at);
`);
}
