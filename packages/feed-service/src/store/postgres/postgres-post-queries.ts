/**
 * The post lists of the 16 operations on PostgreSQL: the same queries as on SQLite, each an index
 * scan in (post_date, id) order; search goes through the GIN index of `search_vector`.
 */
import type { SearchQuery } from "../../search/search-query.js";
import type { PostPage, PostRecord, SearchSort } from "../store.js";
import { languageFilter, NEWEST_FIRST, POST_COLUMNS, POST_JOINS, Where } from "./postgres-columns.js";
import { rows, type Sql } from "./postgres-connection.js";
import { SEARCH_SCORE, toTsquery } from "./postgres-text-search.js";

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

/** The order of the matches: on the ranked ids (`hits`) for relevance, on the posts otherwise. */
const searchOrder: Record<SearchSort, string> = {
  relevance: "hits.score DESC, p.id DESC",
  date: NEWEST_FIRST,
  clicks: "p.clicks DESC, p.id DESC",
};

/**
 * In two steps: first the page of matching ids (ranking every match costs a tsvector read per
 * match, so only the relevance sort ranks them all; the other sorts rank just the page), then the
 * columns of those ids only.
 */
export function searchPosts(
  sql: Sql,
  page: PostPage & { query: SearchQuery; sort: SearchSort },
): Promise<Array<PostRecord & { score: number }>> {
  const tsquery = toTsquery(page.query);
  if (tsquery === null || page.limit === 0 || page.languageIds?.length === 0) return Promise.resolve([]);
  // $1 is the tsquery: SEARCH_SCORE refers to it by number.
  const where = new Where().add("p.search_vector @@ ?::tsquery", tsquery);
  languageFilter(where, page.languageIds);
  const relevance = page.sort === "relevance";
  const inner = relevance
    ? { columns: `p.id, ${SEARCH_SCORE} AS score`, order: "score DESC, p.id DESC" }
    : { columns: "p.id", order: searchOrder[page.sort] };
  const text = `WITH hits AS (SELECT ${inner.columns} FROM posts p ${where.sql}
      ORDER BY ${inner.order} LIMIT ${where.next(page.limit)} OFFSET ${where.next(page.offset)})
    SELECT ${POST_COLUMNS}, ${relevance ? "hits.score" : SEARCH_SCORE} AS "score"
    FROM hits JOIN posts p ON p.id = hits.id ${POST_JOINS} ORDER BY ${searchOrder[page.sort]}`;
  return rows(sql, text, where.params);
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
