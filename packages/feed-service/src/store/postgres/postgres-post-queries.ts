/**
 * The post lists of the 16 operations on PostgreSQL: the same queries as on SQLite, each an index
 * scan in (post_date, id) order. Search is in postgres-search-queries.ts.
 */
import type { PostPage, PostRecord } from "../store.js";
import { languageFilter, NEWEST_FIRST, POST_COLUMNS, POST_JOINS, Where } from "./postgres-columns.js";
import { rows, type Sql } from "./postgres-connection.js";

export function recentPosts(sql: Sql, page: PostPage): Promise<PostRecord[]> {
  if (page.limit === 0 || page.languageIds?.length === 0) return Promise.resolve([]);
  const where = new Where();
  languageFilter(where, page.languageIds);
  const text = `SELECT ${POST_COLUMNS} FROM posts p ${POST_JOINS} ${where.sql}
    ORDER BY ${NEWEST_FIRST} LIMIT ${where.next(page.limit)} OFFSET ${where.next(page.offset)}`;
  return rows<PostRecord>(sql, text, where.params);
}

export function postsByCategory(
  sql: Sql,
  page: PostPage & { categoryId: number; sincePostId: number | null; sinceDate: number | null },
): Promise<PostRecord[]> {
  if (page.limit === 0 || page.languageIds?.length === 0) return Promise.resolve([]);
  const where = new Where().add("p.category_id = ?", page.categoryId);
  if (page.sincePostId !== null) where.add("p.id > ?", page.sincePostId);
  if (page.sinceDate !== null) where.add("p.post_date > ?", page.sinceDate);
  languageFilter(where, page.languageIds);
  const text = `SELECT ${POST_COLUMNS} FROM posts p ${POST_JOINS} ${where.sql}
    ORDER BY ${NEWEST_FIRST} LIMIT ${where.next(page.limit)} OFFSET ${where.next(page.offset)}`;
  return rows<PostRecord>(sql, text, where.params);
}

export function postsByFeed(
  sql: Sql,
  page: { limit: number; offset: number; feedId: number },
): Promise<PostRecord[]> {
  if (page.limit === 0) return Promise.resolve([]);
  return rows<PostRecord>(
    sql,
    `SELECT ${POST_COLUMNS} FROM posts p ${POST_JOINS} WHERE p.feed_id = $1
      ORDER BY ${NEWEST_FIRST} LIMIT $2 OFFSET $3`,
    [page.feedId, page.limit, page.offset],
  );
}

export function mostPopularPosts(
  sql: Sql,
  args: { since: number; limit: number; categoryId: number | null },
): Promise<Array<PostRecord & { periodClicks: number }>> {
  if (args.limit === 0) return Promise.resolve([]);
  const where = new Where();
  const since = where.next(args.since);
  if (args.categoryId !== null) where.add("p.category_id = ?", args.categoryId);
  const text = `WITH w AS (SELECT post_id, count(*) AS n FROM clicks WHERE clicked_at >= ${since} GROUP BY post_id)
    SELECT ${POST_COLUMNS}, w.n AS "periodClicks" FROM w JOIN posts p ON p.id = w.post_id ${POST_JOINS}
    ${where.sql} ORDER BY w.n DESC, ${NEWEST_FIRST} LIMIT ${where.next(args.limit)}`;
  return rows(sql, text, where.params);
}
