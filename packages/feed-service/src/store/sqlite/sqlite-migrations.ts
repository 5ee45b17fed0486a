/**
 * The SQLite schema as an ordered list of migrations. Each runs in its own transaction together
 * with its row in `schema_migrations`, so a database is always at exactly one version; opening an
 * older database upgrades it in place. Append new migrations at the end; never edit a released one.
 *
 * Instants are INTEGER epoch milliseconds (UTC). `name_key` columns hold the Unicode lower case of
 * a name, so "by name" orderings (spec §4) are index scans with the BINARY (code point) collation.
 */
import type Database from "better-sqlite3";
import { htmlToIndexText } from "../index-text.js";
import { type MigrationProgress, stderrProgress } from "../migration-progress.js";
import { buildFeedIndex } from "./fts5-feed-index.js";
import { addPrefixIndex } from "./fts5-prefix-index.js";
import { addTitleWords } from "./fts5-title-words.js";
import { adminSchema } from "./sqlite-admin-schema.js";
import { addClickLevels } from "./sqlite-click-levels.js";
import { addClickOrdinals } from "./sqlite-click-ordinals.js";
import { buildClickedIndex } from "./sqlite-clicked-index.js";
import { addCountedSearches } from "./sqlite-counted-searches.js";
import { indexByDateKey } from "./sqlite-date-key-migration.js";
import { dayCountTables } from "./sqlite-day-counts-schema.js";
import { addFeedHealthColumns } from "./sqlite-feed-health-schema.js";
import { refileLanguages } from "./sqlite-language-refiling.js";
import { holdPostRollups } from "./sqlite-rollup-hold.js";
import { dropIdBlocks, rollupTables } from "./sqlite-rollup-schema.js";
import { addRunningSums } from "./sqlite-running-sums-schema.js";
import { moveSearchHistory } from "./sqlite-search-history.js";
import { reindexSearchText } from "./sqlite-search-reindex.js";
import { storyBandsByDay } from "./sqlite-story-bands.js";
import { mergeStoredCopies } from "./sqlite-story-migration.js";
import { storySchema } from "./sqlite-story-schema.js";
import { webSubSchema } from "./sqlite-websub-schema.js";

export interface SqliteMigration {
  readonly version: number;
  readonly description: string;
  readonly up: (db: Database.Database, progress: MigrationProgress) => void;
}

const coreTables = `
CREATE TABLE languages (
  id INTEGER PRIMARY KEY,
  code TEXT NOT NULL,
  subtag TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL
);
INSERT INTO languages (id, code, subtag, name) VALUES (1, 'en', 'en', 'English'), (2, 'und', 'und', 'Undetermined');

CREATE TABLE categories (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  name_key TEXT NOT NULL UNIQUE
);

CREATE TABLE feeds (
  id INTEGER PRIMARY KEY,
  url TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  name_key TEXT NOT NULL,
  site_url TEXT,
  description TEXT,
  category_id INTEGER REFERENCES categories (id) ON DELETE SET NULL,
  language_id INTEGER NOT NULL REFERENCES languages (id),
  post_count INTEGER NOT NULL DEFAULT 0,
  last_post_date INTEGER,
  etag TEXT,
  last_modified TEXT,
  next_fetch_at INTEGER NOT NULL DEFAULT 0,
  last_fetched_at INTEGER,
  error_count INTEGER NOT NULL DEFAULT 0,
  last_error TEXT
);
CREATE INDEX feeds_by_name ON feeds (name_key, id);
CREATE INDEX feeds_by_category ON feeds (category_id, name_key, id);
CREATE INDEX feeds_by_language ON feeds (language_id, name_key, id);
CREATE INDEX feeds_due ON feeds (next_fetch_at, id);

-- category_id copies the feed's category so that category pages are one index scan in date order.
CREATE TABLE posts (
  id INTEGER PRIMARY KEY,
  feed_id INTEGER NOT NULL REFERENCES feeds (id) ON DELETE CASCADE,
  guid TEXT NOT NULL,
  link TEXT NOT NULL,
  title TEXT NOT NULL,
  excerpt TEXT NOT NULL,
  content TEXT NOT NULL,
  published_at INTEGER,
  updated_at INTEGER,
  seen_at INTEGER NOT NULL,
  post_date INTEGER NOT NULL,
  language_id INTEGER NOT NULL REFERENCES languages (id),
  category_id INTEGER REFERENCES categories (id) ON DELETE SET NULL,
  UNIQUE (feed_id, guid)
);
CREATE INDEX posts_by_date ON posts (post_date, id);
CREATE INDEX posts_by_feed ON posts (feed_id, post_date, id);
CREATE INDEX posts_by_category ON posts (category_id, post_date, id);
CREATE INDEX posts_by_language ON posts (language_id, post_date, id);

CREATE TABLE smart_categories (
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  name_key TEXT NOT NULL,
  query TEXT NOT NULL
);
CREATE INDEX smart_categories_by_name ON smart_categories (name_key, id);

-- terms_key: the terms lower-cased with whitespace collapsed; terms: the latest spelling.
CREATE TABLE searches (
  id INTEGER PRIMARY KEY,
  terms_key TEXT NOT NULL UNIQUE,
  terms TEXT NOT NULL,
  search_count INTEGER NOT NULL,
  last_searched INTEGER NOT NULL
);
CREATE INDEX searches_by_time ON searches (last_searched, id);

CREATE TABLE settings (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
`;

/** Fills the full-text rows of every existing post (when the index is created on old data). */
function fillSearchIndex(db: Database.Database): void {
  // The HTML is stripped in JavaScript, exactly as the store does for new posts.
  db.function("feed_index_text", { deterministic: true }, (html: unknown) =>
    htmlToIndexText(String(html ?? "")),
  );
  db.exec(`INSERT INTO posts_fts (rowid, title, body, feed_name)
    SELECT p.id, p.title, p.excerpt || ' ' || feed_index_text(p.content), f.name
    FROM posts p JOIN feeds f ON f.id = p.feed_id`);
}

export const sqliteMigrations: readonly SqliteMigration[] = [
  {
    version: 1,
    description: "languages, categories, feeds with fetch state, posts, smart categories, searches, settings",
    up: (db) => db.exec(coreTables),
  },
  {
    version: 2,
    description: "full-text index of posts (title, excerpt and content text, feed name)",
    up: (db) => {
      // Contentless: the text lives in posts; the store writes index rows itself (it strips the
      // HTML first, which a trigger could not). contentless_delete lets it delete rows by id.
      db.exec(`CREATE VIRTUAL TABLE posts_fts USING fts5 (
        title, body, feed_name,
        content = '', contentless_delete = 1,
        tokenize = 'unicode61 remove_diacritics 2'
      )`);
      fillSearchIndex(db);
    },
  },
  {
    version: 3,
    description: "clicks, with a per-post all-time counter kept in step by the store",
    up: (db) => {
      db.exec(`
        CREATE TABLE clicks (
          id INTEGER PRIMARY KEY,
          post_id INTEGER NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
          clicked_at INTEGER NOT NULL,
          client_hash TEXT NOT NULL
        );
        CREATE INDEX clicks_by_time ON clicks (clicked_at, post_id);
        CREATE INDEX clicks_by_client ON clicks (post_id, client_hash, clicked_at);
        ALTER TABLE posts ADD COLUMN clicks INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX posts_clicked_by_language ON posts (language_id, clicks) WHERE clicks > 0;
      `);
    },
  },
  {
    version: 4,
    description: "indexes for category pages filtered by language and for sorting search hits",
    up: (db) =>
      db.exec(`
        CREATE INDEX posts_by_category_language ON posts (category_id, language_id, post_date, id);
        -- Search hits arrive by id from the full-text index; sorting them by date or clicks, or
        -- filtering them by language, reads this small index instead of the posts' wide rows.
        CREATE INDEX posts_sort_keys ON posts (id, post_date, language_id, clicks);
      `),
  },
  {
    version: 5,
    description: "feed and category in the search sort index, for click rankings by feed or category",
    up: (db) =>
      db.exec(`
        -- IF EXISTS: databases migrated by an earlier version 4 never had this index.
        DROP INDEX IF EXISTS posts_sort_keys;
        CREATE INDEX posts_sort_keys ON posts (id, post_date, language_id, clicks, feed_id, category_id);
      `),
  },
  {
    version: 6,
    description: "posts and clicks per language kept on the language rows",
    up: (db) =>
      db.exec(`
        ALTER TABLE languages ADD COLUMN post_count INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE languages ADD COLUMN clicks INTEGER NOT NULL DEFAULT 0;
        UPDATE languages SET
          post_count = (SELECT count(*) FROM posts WHERE language_id = languages.id),
          clicks = (SELECT coalesce(sum(clicks), 0) FROM posts WHERE language_id = languages.id);
        DROP INDEX posts_clicked_by_language;
      `),
  },
  {
    version: 7,
    description: "ingest claims: which process refreshes which feed, until when",
    // IF NOT EXISTS: before this migration the claims module created the table on first use.
    up: (db) =>
      db.exec(`CREATE TABLE IF NOT EXISTS feed_claims (
        feed_id INTEGER PRIMARY KEY REFERENCES feeds (id) ON DELETE CASCADE,
        claimed_by TEXT,
        claimed_at INTEGER NOT NULL,
        expires_at INTEGER
      )`),
  },
  {
    version: 8,
    description:
      "roll-ups that bound read costs: date range per id block, posts per day, clicks per feed and day",
    up: (db) => db.exec(rollupTables),
  },
  {
    version: 9,
    description:
      "full-text index of the search analyzer's tokens (words inside Chinese, Japanese, Korean runs)",
    up: reindexSearchText,
  },
  {
    version: 10,
    description: "feed health: last success, and the last error's time, stage and code",
    up: addFeedHealthColumns,
  },
  {
    version: 11,
    description: "WebSub subscriptions: the hub and topic each feed names, and the subscription's state",
    up: (db) => db.exec(webSubSchema),
  },
  {
    version: 12,
    description: "clicks by post and time, for counting a post's clicks before a popularity window",
    // clicks_by_client holds the same, with the client's hash between: three times the pages, and
    // no seek to a time within a post's clicks.
    up: (db) => db.exec("CREATE INDEX clicks_by_post_time ON clicks (post_id, clicked_at)"),
  },
  {
    version: 13,
    description:
      "languages filed by language, not by the first regional tag seen; pt-BR/pt-PT and zh-Hans/zh-Hant kept apart",
    up: refileLanguages,
  },
  {
    version: 14,
    description:
      "full-text index keyed by each post's date key, so its rowid order is date order; the post's language in the index",
    up: indexByDateKey,
  },
  {
    version: 15,
    description:
      "posts per day per language and category, a roll-up whose size does not grow with the feeds; clicks per feed",
    up: (db) => db.exec(dayCountTables),
  },
  {
    version: 16,
    description:
      "administrators, their sessions, the audit log, visitors' suggestions, sign-in failures, paused feeds",
    up: (db) => db.exec(adminSchema),
  },
  {
    version: 17,
    description:
      "a prefix index of 3 characters in the full-text index, for the search operator word*; one feed's posts by clicks",
    up: (db, progress) => {
      addPrefixIndex(db, progress);
      // feed:name sorted by clicks walks one feed's posts in that order (fts5-operators.ts).
      db.exec("CREATE INDEX IF NOT EXISTS posts_by_feed_clicks ON posts (feed_id, clicks, id)");
    },
  },
  {
    version: 18,
    description:
      "one story once across feeds: story keys (canonical link, text print), copies kept apart from posts, stored copies merged",
    up: (db, progress) => {
      // Taken again on a database put back to an older version (the re-filing test): the story
      // tables then exist and every stored post already has its keys.
      if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'story_keys'").get())
        return;
      db.exec(storySchema);
      // Deleting the merged copies leaves delete markers in another segment that every later
      // search merges with; FTS5's 'optimize' folds them in (https://sqlite.org/fts5.html#the_optimize_command).
      if (mergeStoredCopies(db, progress) > 0) db.exec("INSERT INTO posts_fts(posts_fts) VALUES('optimize')");
    },
  },
  {
    version: 19,
    description:
      "no more date ranges per id block (unread since schema 14, kept on every write); clicked posts by language",
    up: (db) => {
      db.exec(dropIdBlocks);
      // A search by clicks in one language reads that language's clicked posts only (sqlite-clicked-hits.ts).
      db.exec(
        "CREATE INDEX IF NOT EXISTS posts_clicked_by_language ON posts (language_id, clicks, id, date_key) WHERE clicks > 0",
      );
    },
  },
  {
    version: 21,
    description:
      "posts and clicks per feed as running sums by day and block of days, posts ranked by id within their day, language and category",
    up: addRunningSums,
  },
  {
    version: 22,
    description:
      "text-print bands keyed by post (written by appending) and found through an index by day, not spread over one index of all time",
    up: storyBandsByDay,
  },
  {
    version: 23,
    description:
      "a full-text index of the clicked posts keyed most clicked first, so a search by clicks reads its hits in page order",
    up: buildClickedIndex,
  },
  {
    version: 24,
    description:
      "a full-text index of every post's tokens keyed by its feed, so a feed: search with words reads only those feeds' lists",
    up: buildFeedIndex,
  },
  {
    version: 25,
    description:
      "the search history in a file of its own beside the database's, so that recording a search leaves the posts' readers their page caches",
    up: moveSearchHistory,
  },
  {
    version: 26,
    description:
      "each clicked post's n-th newest click at a few levels of n, so the most clicked posts over a window are read level by level",
    up: addClickLevels,
  },
  {
    version: 27,
    description:
      "each click's ordinal among its post's clicks, so a post's clicks in a window that ends now are two seeks, not a count",
    up: addClickOrdinals,
  },
  {
    version: 28,
    description:
      "each post's title tokens in a column of their own behind a marker, so title:w reads the titles that hold w, not w's whole posting list",
    up: addTitleWords,
  },
  {
    version: 29,
    description:
      "each smart category's matches per language and day, kept as posts are written, so any page of it starts at its day",
    up: addCountedSearches,
  },
  {
    version: 30,
    description:
      "a writer's new posts counted into the day counts, running sums and day ranks once per transaction, the triggers passing over them meanwhile",
    up: holdPostRollups,
  },
  {
    version: 31,
    description:
      "every post in the index keyed most clicked first, the unclicked ones by id after the clicked, so any page by clicks is a skip over one posting list",
    up: buildClickedIndex,
  },
  {
    version: 32,
    description:
      "each post's day as period tokens in the index keyed most clicked first, so a page by clicks within after:/before: is a skip over posting lists",
    up: buildClickedIndex,
  },
];

/** The version the code expects: the last migration's. */
export const latestSchemaVersion = sqliteMigrations[sqliteMigrations.length - 1]!.version;

/** The version a database is at (0 for an empty one). */
export function schemaVersion(db: Database.Database): number {
  db.exec(
    "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at INTEGER NOT NULL)",
  );
  const row = db.prepare("SELECT max(version) AS v FROM schema_migrations").get() as { v: number | null };
  return row.v ?? 0;
}

/**
 * Applies every migration newer than the database, each in its own IMMEDIATE transaction (so two
 * processes opening the same new database do not both migrate it). `to` stops early (tests build
 * old databases with it); `progress` hears how far a long migration got.
 *
 * @example
 * migrateSqlite(new Database("feeds.db")); // -> 9
 */
export function migrateSqlite(
  db: Database.Database,
  to = latestSchemaVersion,
  progress: MigrationProgress = stderrProgress(),
): number {
  let version = schemaVersion(db);
  for (const m of sqliteMigrations) {
    if (m.version > to) break;
    const step = db.transaction(() => {
      // Re-read inside the write lock: another process may have migrated meanwhile.
      if (schemaVersion(db) >= m.version) return;
      m.up(db, progress);
      db.prepare("INSERT INTO schema_migrations (version, description, applied_at) VALUES (?, ?, ?)").run(
        m.version,
        m.description,
        Date.now(),
      );
    });
    if (m.version > version) {
      step.immediate();
      version = m.version;
    }
  }
  return schemaVersion(db);
}
