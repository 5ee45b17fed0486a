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
import { MONTH_DAYS, monthOf } from "./postgres-scope-months.js";

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

/**
 * Clicks per feed in the window: whole days from `click_days`, the window's partial first day
 * from `clicks` (at most a day of clicks, each looked up by id: OFFSET 0 keeps the planner from
 * reading every post to join them).
 */
export function mostPopularFeeds(
  sql: Sql,
  args: { since: number; limit: number },
): Promise<Array<FeedRecord & { periodClicks: number }>> {
  if (args.limit === 0) return Promise.resolve([]);
  return rows(
    sql,
    `WITH w AS (SELECT feed_id, sum(n) AS n FROM (
          SELECT feed_id, clicks AS n FROM click_days WHERE day > post_day($1)
          UNION ALL
          SELECT p.feed_id, count(*) FROM clicks k
            CROSS JOIN LATERAL (SELECT feed_id FROM posts p WHERE p.id = k.post_id OFFSET 0) p
            WHERE k.clicked_at >= $1 AND k.clicked_at < (post_day($1) + 1) * ${DAY_MS}::bigint GROUP BY p.feed_id
        ) parts GROUP BY feed_id HAVING sum(n) > 0)
      SELECT ${FEED_COLUMNS}, w.n AS "periodClicks" FROM w JOIN feeds f ON f.id = w.feed_id ${FEED_JOINS}
      ORDER BY w.n DESC, f.id LIMIT $2`,
    [args.since, args.limit],
  );
}

/**
 * Posts per feed in the window, from whichever side of the window's first day holds fewer posts
 * (as `scope_months` and `scope_days` count them): the whole days after it from `post_days` plus the first day's
 * posts from `since` on; or each feed's post count less the whole days before it and the first
 * day's posts before `since`. The widest window (spec §4: daysBack up to 36500) then reads no
 * roll-up row at all, whatever the number of feeds. The first day's posts are one range of
 * posts_by_date, not a probe per feed.
 */
/**
 * A feed's post count also holds the stories it carries as copies (RECOUNT_FEED); a window counts
 * the feed's own posts only, as the day roll-ups and SQLite's running sums do.
 */
const CARRIED_COPIES = `SELECT c.feed_id, -count(*) FROM story_copies c JOIN posts p ON p.id = c.post_id
          WHERE p.feed_id <> c.feed_id GROUP BY c.feed_id`;

export async function mostProlificFeeds(
  sql: Sql,
  args: { since: number; limit: number },
): Promise<Array<FeedRecord & { periodPosts: number }>> {
  if (args.limit === 0) return [];
  const [sides] = await rows<{ after: number; before: number }>(
    sql,
    // Whole months from scope_months, the days of the window's first month from scope_days: a
    // bounded read however long the history (postgres-scope-months.ts).
    `WITH x AS (SELECT post_day($1) AS day, ${monthOf("post_day($1)")} AS month),
      months AS (SELECT coalesce(sum(m.posts) FILTER (WHERE m.month > x.month), 0) AS after,
          coalesce(sum(m.posts) FILTER (WHERE m.month < x.month), 0) AS before FROM scope_months m, x),
      days AS (SELECT coalesce(sum(d.posts) FILTER (WHERE d.day > x.day), 0) AS after,
          coalesce(sum(d.posts) FILTER (WHERE d.day < x.day), 0) AS before FROM scope_days d, x
          WHERE d.day >= x.month * ${MONTH_DAYS} AND d.day < (x.month + 1) * ${MONTH_DAYS})
      SELECT (months.after + days.after)::float8 AS after, (months.before + days.before)::float8 AS before FROM months, days`,
    [args.since],
  );
  const firstDay = `p.post_date >= post_day($1) * ${DAY_MS}::bigint AND p.post_date < (post_day($1) + 1) * ${DAY_MS}::bigint`;
  const parts =
    sides!.after <= sides!.before
      ? `SELECT feed_id, posts AS n FROM post_days WHERE day > post_day($1)
          UNION ALL
          SELECT p.feed_id, count(*) FROM posts p WHERE ${firstDay} AND p.post_date >= $1 GROUP BY p.feed_id`
      : `SELECT id AS feed_id, post_count AS n FROM feeds
          UNION ALL
          ${CARRIED_COPIES}
          UNION ALL
          SELECT feed_id, -posts FROM post_days WHERE day < post_day($1)
          UNION ALL
          SELECT p.feed_id, -count(*) FROM posts p WHERE ${firstDay} AND p.post_date < $1 GROUP BY p.feed_id`;
  return rows(
    sql,
    `WITH w AS (SELECT feed_id, sum(n) AS n FROM (${parts}) parts GROUP BY feed_id HAVING sum(n) > 0)
      SELECT ${FEED_COLUMNS}, w.n AS "periodPosts" FROM w JOIN feeds f ON f.id = w.feed_id ${FEED_JOINS}
      ORDER BY w.n DESC, f.id LIMIT $2`,
    [args.since, args.limit],
  );
}

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
