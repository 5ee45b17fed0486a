/**
 * The post lists of the 16 operations on PostgreSQL: the same queries as on SQLite, each an index
 * scan in (post_date, id) order. Search is in postgres-search-queries.ts, most popular posts in
 * postgres-popular-posts.ts.
 */
import type { PostPage, PostRecord } from "../store.js";
import { languageFilter, NEWEST_FIRST, POST_COLUMNS, POST_JOINS, Where } from "./postgres-columns.js";
import { rows, type Sql } from "./postgres-connection.js";
import { applyPageStart, type PageScope, seekPage } from "./postgres-page-seek.js";
import { SEEK_FROM_OFFSET } from "./postgres-plan-costs.js";

/**
 * One page of a date-ordered list: the page's ids first (an index walk that joins nothing), past
 * deep offsets from the day `seekPage` finds, then the columns of those ids only.
 */
async function listPage(
  sql: Sql,
  scope: PageScope,
  page: { limit: number; offset: number },
): Promise<PostRecord[]> {
  const deep = page.offset > SEEK_FROM_OFFSET;
  const start = deep ? await seekPage(sql, scope, page.offset) : null;
  if (deep && start === null) return [];
  const where = new Where();
  if (scope.feedId !== undefined) where.add("p.feed_id = ?", scope.feedId);
  if (scope.categoryId !== undefined) where.add("p.category_id = ?", scope.categoryId);
  if (scope.sincePostId != null) where.add("p.id > ?", scope.sincePostId);
  if (scope.sinceDate != null) where.add("p.post_date > ?", scope.sinceDate);
  languageFilter(where, scope.languageIds);
  const skip = applyPageStart(where, start, page.offset);
  const text = `WITH page AS (SELECT p.id FROM posts p ${where.sql}
      ORDER BY ${NEWEST_FIRST} LIMIT ${where.next(page.limit)} OFFSET ${where.next(skip)})
    SELECT ${POST_COLUMNS} FROM page JOIN posts p ON p.id = page.id ${POST_JOINS} ORDER BY ${NEWEST_FIRST}`;
  return rows<PostRecord>(sql, text, where.params);
}

export function recentPosts(sql: Sql, page: PostPage): Promise<PostRecord[]> {
  if (page.limit === 0 || page.languageIds?.length === 0) return Promise.resolve([]);
  return listPage(sql, { languageIds: page.languageIds }, page);
}

export function postsByCategory(
  sql: Sql,
  page: PostPage & { categoryId: number; sincePostId: number | null; sinceDate: number | null },
): Promise<PostRecord[]> {
  if (page.limit === 0 || page.languageIds?.length === 0) return Promise.resolve([]);
  const { categoryId, languageIds, sincePostId, sinceDate } = page;
  return listPage(sql, { categoryId, languageIds, sincePostId, sinceDate }, page);
}

export function postsByFeed(
  sql: Sql,
  page: { limit: number; offset: number; feedId: number },
): Promise<PostRecord[]> {
  if (page.limit === 0) return Promise.resolve([]);
  return listPage(sql, { feedId: page.feedId, languageIds: null }, page);
}
