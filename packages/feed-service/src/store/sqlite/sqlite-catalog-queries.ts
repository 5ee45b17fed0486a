/**
 * The non-post reads of the 16 operations on SQLite: categories, smart categories, languages,
 * feeds (the rankings over a window are in sqlite-feed-rankings.ts), search history, language data, and
 * the single-row lookups used to check arguments. Lists "by name" come in `name_key` order (Unicode
 * lower case, code point order), ties by id; the operations finish the order with the Unicode
 * collation (operations/by-name.ts).
 */

import { NOT_PAUSED } from "../feed-pause-sql.js";
import type {
  CategoryRecord,
  FeedAdminRecord,
  FeedFailureRecord,
  FeedRecord,
  LanguageDataRecord,
  LanguageRecord,
  SearchHistoryRecord,
  SmartCategoryRecord,
} from "../store.js";
import { FEED_ADMIN_COLUMNS, FEED_COLUMNS, FEED_JOINS, feedRecord } from "./sqlite-columns.js";
import type { StatementCache } from "./sqlite-connection.js";

const CATEGORY_COLUMNS = `c.id AS categoryId, c.name AS categoryName,
  (SELECT count(*) FROM feeds WHERE category_id = c.id) AS feedCount`;
const SMART_CATEGORY_COLUMNS = `id AS smartCategoryId, key AS smartCategoryKey, name AS smartCategoryName,
  query AS smartCategoryQuery`;
const LANGUAGE_COLUMNS = "id AS languageId, name AS languageName, code AS languageCode";

export function categories(stmts: StatementCache): CategoryRecord[] {
  return stmts
    .get(`SELECT ${CATEGORY_COLUMNS} FROM categories c ORDER BY c.name_key, c.id`)
    .all() as CategoryRecord[];
}

export function categoryById(stmts: StatementCache, id: number): CategoryRecord | undefined {
  return stmts.get(`SELECT ${CATEGORY_COLUMNS} FROM categories c WHERE c.id = ?`).get(id) as
    | CategoryRecord
    | undefined;
}

export function smartCategories(stmts: StatementCache): SmartCategoryRecord[] {
  return stmts
    .get(`SELECT ${SMART_CATEGORY_COLUMNS} FROM smart_categories ORDER BY name_key, id`)
    .all() as SmartCategoryRecord[];
}

export function smartCategoryById(stmts: StatementCache, id: number): SmartCategoryRecord | undefined {
  return stmts.get(`SELECT ${SMART_CATEGORY_COLUMNS} FROM smart_categories WHERE id = ?`).get(id) as
    | SmartCategoryRecord
    | undefined;
}

export function smartCategoryByKey(stmts: StatementCache, key: string): SmartCategoryRecord | undefined {
  return stmts
    .get(`SELECT ${SMART_CATEGORY_COLUMNS} FROM smart_categories WHERE key = ?`)
    .get(key.trim().toLowerCase()) as SmartCategoryRecord | undefined;
}

export function languages(stmts: StatementCache): LanguageRecord[] {
  return stmts.get(`SELECT ${LANGUAGE_COLUMNS} FROM languages ORDER BY id`).all() as LanguageRecord[];
}

export function languageById(stmts: StatementCache, id: number): LanguageRecord | undefined {
  return stmts.get(`SELECT ${LANGUAGE_COLUMNS} FROM languages WHERE id = ?`).get(id) as
    | LanguageRecord
    | undefined;
}

export function feeds(
  stmts: StatementCache,
  filter: { categoryId?: number; languageId?: number } = {},
): FeedRecord[] {
  const where: string[] = [];
  const values: number[] = [];
  if (filter.categoryId !== undefined) {
    where.push("f.category_id = ?");
    values.push(filter.categoryId);
  }
  if (filter.languageId !== undefined) {
    where.push("f.language_id = ?");
    values.push(filter.languageId);
  }
  const sql = `SELECT ${FEED_COLUMNS} FROM feeds f ${FEED_JOINS}
    ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY f.name_key, f.id`;
  // Raw rows: a list of every feed is thousands of rows (see feedRecord).
  return (
    stmts
      .get(sql)
      .raw()
      .all(...values) as unknown[][]
  ).map(feedRecord);
}

/** Every feed's id and name (a search's `feed:` resolves against them: operations/search-filters.ts). */
export function feedNames(stmts: StatementCache): Array<{ feedId: number; feedName: string }> {
  return stmts.get("SELECT id AS feedId, name AS feedName FROM feeds").all() as Array<{
    feedId: number;
    feedName: string;
  }>;
}

export function feedById(stmts: StatementCache, id: number): FeedAdminRecord | undefined {
  return stmts.get(`SELECT ${FEED_ADMIN_COLUMNS} FROM feeds f ${FEED_JOINS} WHERE f.id = ?`).get(id) as
    | FeedAdminRecord
    | undefined;
}

export function adminFeeds(stmts: StatementCache): FeedAdminRecord[] {
  return stmts
    .get(`SELECT ${FEED_ADMIN_COLUMNS} FROM feeds f ${FEED_JOINS} ORDER BY f.id`)
    .all() as FeedAdminRecord[];
}

/** Feeds that failed their last refresh, for the pages' notice of a broken feed. */
export function failingFeeds(stmts: StatementCache): FeedFailureRecord[] {
  return stmts
    .get(`SELECT id AS feedId, error_count AS errorCount, last_error_at AS lastErrorAt,
        last_error_stage AS lastErrorStage, last_error_code AS lastErrorCode, last_success_at AS lastSuccessAt
      FROM feeds WHERE error_count > 0 ORDER BY id`)
    .all() as FeedFailureRecord[];
}

export function dueFeeds(stmts: StatementCache, now: number, all: boolean, limit: number): FeedAdminRecord[] {
  const where = all ? `WHERE ${NOT_PAUSED}` : `WHERE f.next_fetch_at <= ? AND ${NOT_PAUSED}`;
  const params = all ? [limit] : [now, limit];
  return stmts
    .get(
      `SELECT ${FEED_ADMIN_COLUMNS} FROM feeds f ${FEED_JOINS} ${where} ORDER BY f.next_fetch_at, f.id LIMIT ?`,
    )
    .all(...params) as FeedAdminRecord[];
}

/** `stmts` are the search history's file's (sqlite-search-history.ts). */
export function searchHistory(stmts: StatementCache, limit: number): SearchHistoryRecord[] {
  return stmts
    .get(`SELECT terms AS searchTerms, search_count AS searchCount, last_searched AS lastSearched
      FROM searches ORDER BY last_searched DESC, id LIMIT ?`)
    .all(limit) as SearchHistoryRecord[];
}

const DAY_MS = 86_400_000;

export function aggregateLanguageData(stmts: StatementCache, now: number): LanguageDataRecord[] {
  return stmts
    .get(`SELECT l.id AS languageId, l.name AS languageName, l.code AS languageCode,
        (SELECT count(*) FROM feeds WHERE language_id = l.id) AS feedCount,
        l.post_count AS postCount,
        (SELECT count(*) FROM posts WHERE language_id = l.id AND post_date > ? AND post_date <= ?) AS postsLast24Hours,
        l.clicks AS clicks,
        (SELECT max(post_date) FROM posts WHERE language_id = l.id) AS lastPostDate
      FROM languages l ORDER BY l.id`)
    .all(now - DAY_MS, now) as LanguageDataRecord[];
}
