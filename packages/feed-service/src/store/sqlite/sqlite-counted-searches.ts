/**
 * Schema version 29: matches per day of the smart categories' queries, so that a page of a smart
 * category at any offset, the last one included, starts at its day (as the post lists' deep pages
 * do: sqlite-day-seek.ts) instead of walking every match before it: FTS5 keeps no count of a
 * query's hits per rowid range, and a smart category of a common word holds most of the posts
 * (spec §4: the deepest offset in 50 ms, on data of any shape). PostgreSQL's counted searches
 * (postgres-counted-searches.ts) are the model.
 *
 * `counted_searches` holds each query counted as the full-text index reads it (its MATCH over
 * every language, the date order's finding query: fts5-implied-terms.ts), so that a search finds
 * its counts by its own text and a query whose text changed simply has none. `search_days` keeps
 * its matches per (language, day), plus a row per day over every language (language 0). A day is
 * one of the date keys' (sqlite-date-keys.ts): the index's rowids of a day are one range, so a
 * day's matches are read by that range whatever order the posts were stored in.
 *
 * FTS5's MATCH cannot run in the triggers that write posts (the post's index row is written after
 * its row, held back in a refresh: sqlite-index-write-hold.ts). So triggers only note what a write
 * touches, and the writer counts it once the index is written, in the same transaction
 * (`settleSearchDays`): a new post's key (`search_new_keys`: the post had no index row before, so
 * its matches add to its day's counts), or the whole day of a post deleted, or whose key, text or
 * language changed, or whose feed was renamed (`search_dirty_days`: the day is counted again). A
 * day noted and not yet counted is counted by the reader itself (`countedPageKeys`), so the counts
 * a read uses are exact in every snapshot, whichever write path left the note.
 */
import type Database from "better-sqlite3";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { foldLanguageClauses, hasFilters, type SearchQuery } from "../../search/search-query.js";
import type { MigrationProgress } from "../migration-progress.js";
import { findingQuery } from "./fts5-implied-terms.js";
import { languageMatch } from "./fts5-index-row.js";
import { toFts5Match } from "./fts5-match.js";
import { FTS_ROWID } from "./sqlite-columns.js";
import { StatementCache } from "./sqlite-connection.js";
import { SLOTS } from "./sqlite-date-keys.js";

/** Date keys per UTC day: a key is its post's second times SLOTS plus a slot. */
const DAY_KEYS = SLOTS * 86_400;

/** SQL of the day of a date key (floored, for keys before 1970 too). */
const daySql = (key: string) => `(${key} / ${DAY_KEYS} - (${key} % ${DAY_KEYS} < 0))`;

/** The lowest and highest date keys of a day. */
function dayKeys(day: number): [number, number] {
  return [day * DAY_KEYS, (day + 1) * DAY_KEYS - 1];
}

const noted = (key: string) =>
  `INSERT OR IGNORE INTO search_dirty_days (day) SELECT ${daySql(key)} WHERE ${key} IS NOT NULL;`;

/** Only while some query is counted: otherwise no day needs counting again. */
const counting = "EXISTS (SELECT 1 FROM counted_searches)";

export const countedSearchSchema = `
DROP TABLE IF EXISTS search_days;
DROP TABLE IF EXISTS counted_searches;
DROP TABLE IF EXISTS search_dirty_days;
DROP TABLE IF EXISTS search_new_keys;
CREATE TABLE counted_searches (
  id INTEGER PRIMARY KEY,
  match TEXT NOT NULL UNIQUE
);
CREATE TABLE search_days (
  search_id INTEGER NOT NULL,
  language_id INTEGER NOT NULL,
  day INTEGER NOT NULL,
  posts INTEGER NOT NULL,
  PRIMARY KEY (search_id, language_id, day)
) WITHOUT ROWID;
-- A day's rows of every language (a day counted again; a page in several languages), covering:
-- read through the table instead, each entry cost a seek into it.
CREATE INDEX search_days_by_day ON search_days (search_id, day, posts);
CREATE TABLE search_dirty_days (day INTEGER PRIMARY KEY);
CREATE TABLE search_new_keys (key INTEGER PRIMARY KEY);
DROP TRIGGER IF EXISTS posts_search_days_insert;
DROP TRIGGER IF EXISTS posts_search_days_delete;
DROP TRIGGER IF EXISTS posts_search_days_update;
DROP TRIGGER IF EXISTS feeds_search_days_rename;
CREATE TRIGGER posts_search_days_insert AFTER INSERT ON posts WHEN ${counting} BEGIN
  INSERT OR IGNORE INTO search_new_keys (key) SELECT new.date_key WHERE new.date_key IS NOT NULL;
END;
CREATE TRIGGER posts_search_days_delete AFTER DELETE ON posts WHEN ${counting} BEGIN
  ${noted("old.date_key")}
END;
-- The columns a post's index row is written from (sqlite-feed-writer.ts): not its clicks.
CREATE TRIGGER posts_search_days_update AFTER UPDATE OF date_key, title, excerpt, content, language_id, feed_id
ON posts WHEN ${counting} AND (old.date_key IS NOT new.date_key OR old.title IS NOT new.title
  OR old.excerpt IS NOT new.excerpt OR old.content IS NOT new.content
  OR old.language_id IS NOT new.language_id OR old.feed_id IS NOT new.feed_id) BEGIN
  ${noted("old.date_key")}
  ${noted("new.date_key")}
END;
-- The feed's name is a column of its posts' index rows.
CREATE TRIGGER feeds_search_days_rename AFTER UPDATE OF name ON feeds
WHEN ${counting} AND old.name IS NOT new.name BEGIN
  INSERT OR IGNORE INTO search_dirty_days (day)
    SELECT DISTINCT ${daySql("date_key")} FROM posts WHERE feed_id = new.id AND date_key IS NOT NULL;
END;
`;

/**
 * The text a query is counted under: the date order's MATCH of it over every language, or null
 * when the store reads it otherwise (filters: fts5-operators.ts) or it matches nothing.
 */
export function countedMatch(query: SearchQuery): string | null {
  if (hasFilters(query)) return null;
  return toFts5Match(findingQuery(query));
}

/** The counted text of a smart category's query, as its page folds it (sqlite-store.ts). */
function smartCategoryMatch(text: string): string | null {
  return countedMatch(foldLanguageClauses(parseSearchQuery(text), null).query);
}

/** Whether the database has the tables (a store also writes databases not yet at schema 29). */
const withCounts = new WeakSet<StatementCache>();

const COUNT_TABLES = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'search_dirty_days'";

function countsExist(stmts: StatementCache): boolean {
  if (withCounts.has(stmts)) return true;
  const exists = stmts.get(COUNT_TABLES).get() !== undefined;
  if (exists) withCounts.add(stmts);
  return exists;
}

/** Clears the triggers' notes: every noted day and key is counted, or nothing is counted. */
function clearNotes(stmts: StatementCache): void {
  stmts.get("DELETE FROM search_dirty_days").run();
  stmts.get("DELETE FROM search_new_keys").run();
}

/** A query's matches per day and language between two keys, as rows of search_days (language 0: all). */
function countRange(
  stmts: StatementCache,
  match: string,
  low: number,
  high: number,
): Array<[number, number, number]> {
  // One walk of the matches in the range, each post's language read through its key: for a day's
  // few matches. A whole query's matches are counted per language from the index alone (countAll).
  const perLanguage = stmts
    .get(`SELECT ${daySql("t.rowid")} AS day, p.language_id, count(*) FROM posts_fts t
        CROSS JOIN posts p INDEXED BY posts_by_date_key ON p.date_key = t.rowid
      WHERE posts_fts MATCH ? AND t.rowid BETWEEN ${FTS_ROWID} AND ${FTS_ROWID} GROUP BY 1, 2`)
    .raw()
    .all(match, low, high) as Array<[number, number, number]>;
  return withTotals(perLanguage);
}

/** Rows of (day, language, posts) with each day's row over every language (language 0) added. */
function withTotals(rows: Array<[number, number, number]>): Array<[number, number, number]> {
  const totals = new Map<number, number>();
  for (const [day, , n] of rows) totals.set(day, (totals.get(day) ?? 0) + n);
  return [...rows, ...[...totals].map(([day, n]): [number, number, number] => [day, 0, n])];
}

function insertRows(stmts: StatementCache, searchId: number, rows: Array<[number, number, number]>): void {
  const insert = stmts.get(
    "INSERT INTO search_days (search_id, language_id, day, posts) VALUES (?, ?, ?, ?)",
  );
  for (const [day, language, n] of rows) if (n > 0) insert.run(searchId, language, day, n);
}

const STEP = "counting the smart categories' matches per day (schema 29)";

/**
 * Counts every match of new counted searches, a language at a time from the index alone, with
 * progress in posts (each search's walks of every language's posts).
 */
function countAll(
  stmts: StatementCache,
  searches: ReadonlyArray<[id: number, match: string]>,
  progress: MigrationProgress,
): void {
  if (searches.length === 0) return;
  const languages = stmts
    .get("SELECT language_id, sum(posts) FROM post_day_counts GROUP BY language_id")
    .raw()
    .all() as Array<[number, number]>;
  const total = searches.length * languages.reduce((sum, [, n]) => sum + n, 0);
  let done = 0;
  progress(STEP, 0, total);
  for (const [searchId, match] of searches)
    done = countOne(stmts, searchId, match, languages, progress, done, total);
}

function countOne(
  stmts: StatementCache,
  searchId: number,
  match: string,
  languages: ReadonlyArray<[number, number]>,
  progress: MigrationProgress,
  before: number,
  total: number,
): number {
  let done = before;
  const rows: Array<[number, number, number]> = [];
  for (const [language, n] of languages) {
    const days = stmts
      .get(`SELECT ${daySql("rowid")}, count(*) FROM posts_fts WHERE posts_fts MATCH ? GROUP BY 1`)
      .raw()
      .all(`(${match}) AND ${languageMatch([language])}`) as Array<[number, number]>;
    for (const [day, posts] of days) rows.push([day, language, posts]);
    done += n;
    progress(STEP, done, total);
  }
  insertRows(stmts, searchId, withTotals(rows));
  return done;
}

/**
 * Counts every smart category's query not counted yet and forgets the queries no smart category
 * holds any more; in the caller's transaction, with the full-text index written (a smart category
 * added or removed, the store opened, a copy finished). Counting one reads its matches once per
 * language (seconds for a word in most of a million posts).
 */
export function syncCountedSearches(stmts: StatementCache, progress: MigrationProgress = () => {}): void {
  if (!countsExist(stmts)) return;
  const queries = stmts.get("SELECT query FROM smart_categories").pluck().all() as string[];
  const wanted = new Set<string>();
  for (const text of queries) {
    const match = smartCategoryMatch(text);
    if (match !== null) wanted.add(match);
  }
  const counted = stmts.get("SELECT id, match FROM counted_searches").raw().all() as Array<[number, string]>;
  for (const [id, match] of counted) {
    if (wanted.has(match)) continue;
    stmts.get("DELETE FROM search_days WHERE search_id = ?").run(id);
    stmts.get("DELETE FROM counted_searches WHERE id = ?").run(id);
  }
  const known = new Set(counted.map(([, match]) => match));
  const added: Array<[number, string]> = [];
  for (const match of wanted) {
    if (known.has(match)) continue;
    const id = stmts.get("INSERT INTO counted_searches (match) VALUES (?)").run(match).lastInsertRowid;
    added.push([Number(id), match]);
  }
  countAll(stmts, added, progress);
  // No query counted: no day needs counting again (the triggers note none from now on).
  if (wanted.size === 0) clearNotes(stmts);
}

/**
 * Counts the days the triggers noted again, for every counted query, and clears the notes: in the
 * writer's transaction, once the full-text index holds what the posts do (after a refresh's held
 * index writes). A day's matches are one range of keys.
 */
export function settleSearchDays(stmts: StatementCache): void {
  if (!countsExist(stmts)) return;
  const days = stmts.get("SELECT day FROM search_dirty_days").pluck().all() as number[];
  const fresh = stmts.get("SELECT key FROM search_new_keys").pluck().all() as number[];
  if (days.length === 0 && fresh.length === 0) return;
  // New keys by day, on the days not counted again whole.
  const whole = new Set(days);
  const byDay = new Map<number, Set<number>>();
  for (const key of fresh) {
    const day = Math.floor(key / DAY_KEYS);
    if (whole.has(day)) continue;
    const keys = byDay.get(day);
    if (keys) keys.add(key);
    else byDay.set(day, new Set([key]));
  }
  const searches = stmts.get("SELECT id, match FROM counted_searches").raw().all() as Array<[number, string]>;
  const language = stmts.get("SELECT language_id FROM posts WHERE date_key = ?").pluck();
  const add = stmts.get(`INSERT INTO search_days (search_id, language_id, day, posts) VALUES (?, ?, ?, ?)
    ON CONFLICT (search_id, language_id, day) DO UPDATE SET posts = posts + excluded.posts`);
  const walk = stmts
    .get(
      `SELECT rowid FROM posts_fts WHERE posts_fts MATCH ? AND rowid BETWEEN ${FTS_ROWID} AND ${FTS_ROWID}`,
    )
    .pluck();
  for (const [id, match] of searches) {
    for (const day of days) {
      stmts.get("DELETE FROM search_days WHERE search_id = ? AND day = ?").run(id, day);
      insertRows(stmts, id, countRange(stmts, match, ...dayKeys(day)));
    }
    for (const [day, keys] of byDay) {
      // The matches between the day's lowest and highest new key, the new ones kept: a refresh's
      // new posts are mostly the newest, a range of few other posts.
      let low = Number.POSITIVE_INFINITY;
      let high = Number.NEGATIVE_INFINITY;
      for (const key of keys) {
        low = Math.min(low, key);
        high = Math.max(high, key);
      }
      const perLanguage = new Map<number, number>();
      let all = 0;
      for (const key of walk.all(match, low, high) as number[]) {
        if (!keys.has(key)) continue;
        const l = language.get(key) as number;
        perLanguage.set(l, (perLanguage.get(l) ?? 0) + 1);
        all++;
      }
      if (all === 0) continue;
      for (const [l, n] of perLanguage) add.run(id, l, day, n);
      add.run(id, 0, day, all);
    }
  }
  clearNotes(stmts);
}

/** Forgets every count (a copy clears the posts); the queries are counted again by `syncCountedSearches`. */
export function forgetCountedSearches(db: Database.Database): void {
  if (!db.prepare(COUNT_TABLES).get()) return;
  db.exec(
    "DELETE FROM search_days; DELETE FROM counted_searches; DELETE FROM search_dirty_days; DELETE FROM search_new_keys;",
  );
}

/** Migration 29: the tables and triggers, and every smart category's query counted. */
export function addCountedSearches(db: Database.Database, progress: MigrationProgress): void {
  db.exec(countedSearchSchema);
  syncCountedSearches(new StatementCache(db), progress);
}

/** A day's rows of a search in some languages (null: all, the rows of language 0), and their values. */
function perDay(languages: readonly number[] | null): { sql: string; values: unknown[] } {
  if (languages === null)
    return { sql: "SELECT day, posts FROM search_days WHERE search_id = ? AND language_id = 0", values: [] };
  if (languages.length === 1)
    return {
      sql: "SELECT day, posts FROM search_days WHERE search_id = ? AND language_id = ?",
      values: [...languages],
    };
  return {
    sql: `SELECT day, sum(posts) AS posts FROM search_days WHERE search_id = ?
      AND language_id IN (SELECT value FROM json_each(?)) GROUP BY day`,
    values: [JSON.stringify(languages)],
  };
}

/**
 * The day holding match `offset` (newest first) and the matches on newer days, from the counts
 * alone (no day noted): a running sum in one statement, each day's row stepped in SQLite, not
 * read out one by one. Null past the last match.
 */
function countedDay(
  stmts: StatementCache,
  id: number,
  languages: readonly number[] | null,
  offset: number,
): [number, number] | null {
  const { sql, values } = perDay(languages);
  const row = stmts
    .get(`SELECT day, running - posts FROM (
        SELECT day, posts, sum(posts) OVER (ORDER BY day DESC) AS running FROM (${sql}))
      WHERE running > ? ORDER BY day DESC LIMIT 1`)
    .raw()
    .get(id, ...values, offset) as [number, number] | undefined;
  return row ?? null;
}

/**
 * `countedDay` with days noted and not yet counted again: those are counted from the index (the
 * page's MATCH over the day's keys), the others read from their rows, newest first.
 */
function liveDay(
  stmts: StatementCache,
  id: number,
  languages: readonly number[] | null,
  match: string,
  dirty: readonly number[],
  offset: number,
): [number, number] | null {
  const noted = new Set(dirty);
  let next = 0;
  let skipped = 0;
  const live = (day: number) =>
    stmts
      .get(
        `SELECT count(*) FROM posts_fts WHERE posts_fts MATCH ? AND rowid BETWEEN ${FTS_ROWID} AND ${FTS_ROWID}`,
      )
      .pluck()
      .get(match, ...dayKeys(day)) as number;
  const landsOn = (n: number): boolean => {
    if (skipped + n > offset) return true;
    skipped += n;
    return false;
  };
  let found: number | null = null;
  const { sql, values } = perDay(languages);
  const days = stmts
    .get(`${sql} ORDER BY day DESC`)
    .raw()
    .iterate(id, ...values) as IterableIterator<[number, number]>;
  try {
    for (const [day, n] of days) {
      // Noted days from this one up, counted live (this one's row is then not read).
      while (found === null && next < dirty.length && dirty[next]! >= day) {
        const d = dirty[next++]!;
        if (landsOn(live(d))) found = d;
      }
      if (found !== null) break;
      if (noted.has(day)) continue;
      if (landsOn(n)) {
        found = day;
        break;
      }
    }
  } finally {
    days.return?.();
  }
  while (found === null && next < dirty.length) {
    const d = dirty[next++]!;
    if (landsOn(live(d))) found = d;
  }
  return found === null ? null : [found, skipped];
}

/** Noted days at most read live by a page; beyond, the page walks its matches (still exact). */
const LIVE_DAYS = 64;

/**
 * The keys of a counted query's matches `offset` to `offset + limit` newest first, in some
 * languages (null: all); null when the query is not counted (or too many days wait to be counted
 * again). The days' counts, newest first, find the day holding the offset; the page then walks the
 * matches from the end of that day, skipping only within it.
 *
 * @example
 * countedPageKeys(stmts, '"new"', '"new"', null, 500_000, 20); // [date key, ...] or null
 */
export function countedPageKeys(
  stmts: StatementCache,
  counted: string,
  match: string,
  languageIds: readonly number[] | null,
  offset: number,
  limit: number,
): number[] | null {
  if (!countsExist(stmts)) return null;
  const id = stmts.get("SELECT id FROM counted_searches WHERE match = ?").pluck().get(counted) as
    | number
    | undefined;
  if (id === undefined) return null;
  const dirty = stmts
    .get(
      `SELECT day FROM search_dirty_days UNION SELECT ${daySql("key")} FROM search_new_keys ORDER BY 1 DESC`,
    )
    .pluck()
    .all() as number[];
  if (dirty.length > LIVE_DAYS) return null;
  const languages = languageIds === null ? null : [...new Set(languageIds)];
  const seek =
    dirty.length === 0
      ? countedDay(stmts, id, languages, offset)
      : liveDay(stmts, id, languages, match, dirty, offset);
  if (seek === null) return [];
  const [found, skipped] = seek;
  return stmts
    .get(
      `SELECT rowid FROM posts_fts WHERE posts_fts MATCH ? AND rowid <= ${FTS_ROWID} ORDER BY rowid DESC LIMIT ? OFFSET ?`,
    )
    .pluck()
    .all(match, dayKeys(found)[1], limit, offset - skipped) as number[];
}
