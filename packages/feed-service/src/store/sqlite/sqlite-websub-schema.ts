/**
 * The WebSub subscriptions table (SQLite): one row per feed whose documents name a hub. Removing
 * the feed removes its row; callback ids are unique so that a callback finds one subscription.
 */
export const webSubSchema = `
CREATE TABLE websub_subscriptions (
  feed_id INTEGER PRIMARY KEY REFERENCES feeds (id) ON DELETE CASCADE,
  hub_url TEXT NOT NULL,
  topic_url TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('discovered', 'pending', 'active', 'denied', 'expired')),
  callback_id TEXT UNIQUE,
  secret TEXT,
  lease_seconds INTEGER,
  lease_expires_at INTEGER,
  next_attempt_at INTEGER NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  discovered_at INTEGER NOT NULL,
  verified_at INTEGER,
  last_push_at INTEGER
);
CREATE INDEX websub_subscriptions_due ON websub_subscriptions (next_attempt_at);
`;
