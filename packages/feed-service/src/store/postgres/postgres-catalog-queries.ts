/**
 * The non-post reads of the 16 operations on PostgreSQL: categories, smart categories, languages,
 * feeds (plain and ranked), search history, language data, single-row lookups and due feeds. Same
 * queries and orderings as on SQLite; "by name" is the "C"-collated `name_key`, which the
 * operations finish with the Unicode collation (operations/by-name.ts).
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
import { FEED_ADMIN_COLUMNS, FEED_COLUMNS, FEED_JOINS } from "./postgres-columns.js";
import { rows, type Sql } from "./postgres-connection.js";
import { DAY_MS } from "./postgres-page-seek.js";

const CATEGORY_COLUMNS = `c.id AS "categoryId", c.name AS "categoryName",
  (SELECT count(*) FROM feeds WHERE category_id = c.id) AS "feedCount"`;
const SMART_CATEGORY_COLUMNS = `id AS "smartCategoryId", key AS "smartCategoryKey", name AS "smartCategoryName",
  query AS "smartCategoryQuery"`;
const LANGUAGE_COLUMNS = `id AS "languageId", name AS "languageName", code AS "languageCode"`;

async function first<T>(promise: Promise<T[]>): Promise<T | undefined> {
  return (await promise)[0];
}

export function categories(sql: Sql): Promise<CategoryRecord[]> {
  return rows(sql, `SELECT ${CATEGORY_COLUMNS} FROM categories c ORDER BY c.name_key, c.id`);
}

export function categoryById(sql: Sql, id: number): Promise<CategoryRecord | undefined> {
  return first(rows(sql, `SELECT ${CATEGORY_COLUMNS} FROM categories c WHERE c.id = $1`, [id]));
}

export function smartCategories(sql: Sql): Promise<SmartCategoryRecord[]> {
  return rows(sql, `SELECT ${SMART_CATEGORY_COLUMNS} FROM smart_categories ORDER BY name_key, id`);
}

export function smartCategoryById(sql: Sql, id: number): Promise<SmartCategoryRecord | undefined> {
  return first(rows(sql, `SELECT ${SMART_CATEGORY_COLUMNS} FROM smart_categories WHERE id = $1`, [id]));
}

export function smartCategoryByKey(sql: Sql, key: string): Promise<SmartCategoryRecord | undefined> {
  return first(
    rows(sql, `SELECT ${SMART_CATEGORY_COLUMNS} FROM smart_categories WHERE key = $1`, [
      key.trim().toLowerCase(),
    ]),
  );
}

export function languages(sql: Sql): Promise<LanguageRecord[]> {
  return rows(sql, `SELECT ${LANGUAGE_COLUMNS} FROM languages ORDER BY id`);
}

export function languageById(sql: Sql, id: number): Promise<LanguageRecord | undefined> {
  return first(rows(sql, `SELECT ${LANGUAGE_COLUMNS} FROM languages WHERE id = $1`, [id]));
}

export function feeds(
  sql: Sql,
  filter: { categoryId?: number; languageId?: number } = {},
): Promise<FeedRecord[]> {
  const conditions: string[] = [];
  const params: unknown[] = [];
  if (filter.categoryId !== undefined) {
    params.push(filter.categoryId);
    conditions.push(`f.category_id = $${params.length}`);
  }
  if (filter.languageId !== undefined) {
    params.push(filter.languageId);
    conditions.push(`f.language_id = $${params.length}`);
  }
  const where = conditions.length > 0 ? `WHERE ${conditions.join(" AND ")}` : "";
  return rows(
    sql,
    `SELECT ${FEED_COLUMNS} FROM feeds f ${FEED_JOINS} ${where} ORDER BY f.name_key, f.id`,
    params,
  );
}

export function feedById(sql: Sql, id: number): Promise<FeedAdminRecord | undefined> {
  return first(rows(sql, `SELECT ${FEED_ADMIN_COLUMNS} FROM feeds f ${FEED_JOINS} WHERE f.id = $1`, [id]));
}

/** Feeds that failed their last refresh, for the pages' notice of a broken feed. */
export function failingFeeds(sql: Sql): Promise<FeedFailureRecord[]> {
  return rows(
    sql,
    `SELECT id AS "feedId", error_count AS "errorCount", last_error_at AS "lastErrorAt",
      last_error_stage AS "lastErrorStage", last_error_code AS "lastErrorCode", last_success_at AS "lastSuccessAt"
    FROM feeds WHERE error_count > 0 ORDER BY id`,
  );
}

export function adminFeeds(sql: Sql): Promise<FeedAdminRecord[]> {
  return rows(sql, `SELECT ${FEED_ADMIN_COLUMNS} FROM feeds f ${FEED_JOINS} ORDER BY f.id`);
}

export function dueFeeds(sql: Sql, now: number, all: boolean, limit: number): Promise<FeedAdminRecord[]> {
  const where = all ? `WHERE ${NOT_PAUSED}` : `WHERE f.next_fetch_at <= $2 AND ${NOT_PAUSED}`;
  return rows(
    sql,
    `SELECT ${FEED_ADMIN_COLUMNS} FROM feeds f ${FEED_JOINS} ${where} ORDER BY f.next_fetch_at, f.id LIMIT $1`,
    all ? [limit < 0 ? null : limit] : [limit < 0 ? null : limit, now],
  );
}

/** Feeds ranked over a window, from migration 27's running sums (postgres-feed-rankings.ts). */
export { mostPopularFeeds, mostProlificFeeds } from "./postgres-feed-rankings.js";

export function searchHistory(sql: Sql, limit: number): Promise<SearchHistoryRecord[]> {
  return rows(
    sql,
    `SELECT terms AS "searchTerms", search_count AS "searchCount", last_searched AS "lastSearched"
      FROM searches ORDER BY last_searched DESC, id LIMIT $1`,
    [limit],
  );
}

/**
 * Post and click totals from `language_totals` (postgres-language-totals.ts: its click sums are of
 * the posts' all-time counters); the last 24 hours and the newest post per language are ranges of
 * posts_by_language.
 */
export function aggregateLanguageData(sql: Sql, now: number): Promise<LanguageDataRecord[]> {
  return rows(
    sql,
    `WITH totals AS (SELECT language_id, sum(posts) AS posts, sum(clicks) AS clicks FROM language_totals GROUP BY language_id)
      SELECT l.id AS "languageId", l.name AS "languageName", l.code AS "languageCode",
        (SELECT count(*) FROM feeds WHERE language_id = l.id) AS "feedCount",
        coalesce(t.posts, 0) AS "postCount",
        (SELECT count(*) FROM posts WHERE language_id = l.id AND post_date > $1 AND post_date <= $2) AS "postsLast24Hours",
        coalesce(t.clicks, 0) AS "clicks",
        (SELECT max(post_date) FROM posts WHERE language_id = l.id) AS "lastPostDate"
      FROM languages l LEFT JOIN totals t ON t.language_id = l.id ORDER BY l.id`,
    [now - DAY_MS, now],
  );
}
