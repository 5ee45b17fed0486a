/**
 * The tables of running the aggregator from the browser (spec §5.5) on SQLite: administrators,
 * their sessions (ids stored hashed), the audit log, visitors' suggestions, sign-in failures for
 * the throttle, and paused feeds. Removing a user removes their sessions; removing a feed its
 * pause and the link from the suggestion that added it. IF NOT EXISTS: a database rewound to an
 * earlier version (the migration tests do) takes this migration again unharmed.
 */
export const adminSchema = `
CREATE TABLE IF NOT EXISTS admin_users (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  name_key TEXT NOT NULL UNIQUE,
  password_hash TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  changed_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS admin_sessions (
  id_hash TEXT PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES admin_users (id) ON DELETE CASCADE,
  csrf_token TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS admin_sessions_by_user ON admin_sessions (user_id);
CREATE TABLE IF NOT EXISTS audit_log (
  id INTEGER PRIMARY KEY,
  at INTEGER NOT NULL,
  actor TEXT NOT NULL,
  action TEXT NOT NULL,
  subject TEXT,
  details TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS suggestions (
  id INTEGER PRIMARY KEY,
  url TEXT NOT NULL,
  feed_url TEXT NOT NULL,
  feed_title TEXT,
  category_id INTEGER REFERENCES categories (id) ON DELETE SET NULL,
  note TEXT NOT NULL,
  client_hash TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('waiting', 'approved', 'rejected')),
  created_at INTEGER NOT NULL,
  decided_at INTEGER,
  decided_by TEXT,
  feed_id INTEGER REFERENCES feeds (id) ON DELETE SET NULL
);
CREATE INDEX IF NOT EXISTS suggestions_by_client ON suggestions (client_hash, created_at);
CREATE INDEX IF NOT EXISTS suggestions_by_state ON suggestions (state, id);
CREATE TABLE IF NOT EXISTS sign_in_failures (
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL,
  at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS sign_in_failures_by_key ON sign_in_failures (key, at);
CREATE TABLE IF NOT EXISTS feed_pauses (
  feed_id INTEGER PRIMARY KEY REFERENCES feeds (id) ON DELETE CASCADE,
  paused_at INTEGER NOT NULL
);
`;
