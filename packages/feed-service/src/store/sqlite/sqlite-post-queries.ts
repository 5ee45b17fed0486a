/**
 * The post lists of the 16 operations on SQLite. Each list is one indexed scan in
 * (post_date, id) order: by date overall, per feed, per category (posts carry their feed's
 * category), per language; search goes through the FTS5 index.
 */
import type { SearchQuery } from "../../search/search-query.js";
import type { PostPage, PostRecord, SearchSort } from "../store.js";
import { toFts5Match } from "./fts5-match.js";
import { LANGUAGE_FILTER, NEWEST_FIRST, POST_COLUMNS, POST_JOINS } from "./sqlite-columns.js";
import type { StatementCache } from "./sqlite-connection.js";

/** The WHERE parts and their parameters, in order. */
interface Filter {
  readonly sql: string[];
  readonly params: unknown[];
}

function languageFilter(filter: Filter, languageIds: readonly number[] | null): void {
  if (languageIds === null) return;
  filter.sql.push(LANGUAGE_FILTER);
  filter.params.push(JSON.stringify(languageIds));
}

function whereClause(filter: Filter): string {
  return filter.sql.length === 0 ? "" : `WHERE ${filter.sql.join(" AND ")}`;
}

export function recentPosts(stmts: StatementCache, page: PostPage): PostRecord[] {
  if (page.limit === 0 || page.languageIds?.length === 0) return [];
  const filter: Filter = { sql: [], params: [] };
  languageFilter(filter, page.languageIds);
  const sql = `SELECT ${POST_COLUMNS} FROM posts p ${POST_JOINS} ${whereClause(filter)}
    ORDER BY ${NEWEST_FIRST} LIMIT ? OFFSET ?`;
  return stmts.get(sql).all(...filter.params, page.limit, page.offset) as PostRecord[];
}

export function postsByCategory(
  stmts: StatementCache,
  page: PostPage & { categoryId: number; sincePostId: number | null; sinceDate: number | null },
): PostRecord[] {
  if (page.limit === 0 || page.languageIds?.length === 0) return [];
  const filter: Filter = { sql: ["p.category_id = ?"], params: [page.categoryId] };
  if (page.sincePostId !== null) {
    filter.sql.push("p.id > ?");
    filter.params.push(page.sincePostId);
  }
  if (page.sinceDate !== null) {
    filter.sql.push("p.post_date > ?");
    filter.params.push(page.sinceDate);
  }
  languageFilter(filter, page.languageIds);
  const sql = `SELECT ${POST_COLUMNS} FROM posts p ${POST_JOINS} ${whereClause(filter)}
    ORDER BY ${NEWEST_FIRST} LIMIT ? OFFSET ?`;
  return stmts.get(sql).all(...filter.params, page.limit, page.offset) as PostRecord[];
}

export function postsByFeed(
  stmts: StatementCache,
  page: { limit: number; offset: number; feedId: number },
): PostRecord[] {
  if (page.limit === 0) return [];
  const sql = `SELECT ${POST_COLUMNS} FROM posts p ${POST_JOINS} WHERE p.feed_id = ?
    ORDER BY ${NEWEST_FIRST} LIMIT ? OFFSET ?`;
  return stmts.get(sql).all(page.feedId, page.limit, page.offset) as PostRecord[];
}

/**
 * Relevance is FTS5's bm25 with the title weighted above the body and the feed name; bm25 is
 * negative with lower better, so the score is its negation (positive, higher better, spec §4).
 */
const SCORE = "-bm25(posts_fts, 4.0, 1.0, 2.0)";

const searchOrder: Record<SearchSort, string> = {
  relevance: `score DESC, p.id DESC`,
  date: NEWEST_FIRST,
  clicks: "p.clicks DESC, p.id DESC",
};

export function searchPosts(
  stmts: StatementCache,
  page: PostPage & { query: SearchQuery; sort: SearchSort },
): Array<PostRecord & { score: number }> {
  const match = toFts5Match(page.query);
  if (match === null || page.limit === 0 || page.languageIds?.length === 0) return [];
  const filter: Filter = { sql: ["posts_fts MATCH ?"], params: [match] };
  languageFilter(filter, page.languageIds);
  const sql = `SELECT ${POST_COLUMNS}, ${SCORE} AS score
    FROM posts_fts JOIN posts p ON p.id = posts_fts.rowid ${POST_JOINS} ${whereClause(filter)}
    ORDER BY ${searchOrder[page.sort]} LIMIT ? OFFSET ?`;
  return stmts.get(sql).all(...filter.params, page.limit, page.offset) as Array<
    PostRecord & { score: number }
  >;
}

/**
 * Clicks in the window are found by time (a window is a short range of a long history); the
 * planner would otherwise walk the per-client index over every click ever made to save a sort.
 */
export function mostPopularPosts(
  stmts: StatementCache,
  args: { since: number; limit: number; categoryId: number | null },
): Array<PostRecord & { periodClicks: number }> {
  if (args.limit === 0) return [];
  const filter: Filter = { sql: [], params: [args.since] };
  if (args.categoryId !== null) {
    filter.sql.push("p.category_id = ?");
    filter.params.push(args.categoryId);
  }
  const sql = `WITH w AS (SELECT post_id, count(*) AS n FROM clicks INDEXED BY clicks_by_time WHERE clicked_at >= ? GROUP BY post_id)
    SELECT ${POST_COLUMNS}, w.n AS periodClicks FROM w JOIN posts p ON p.id = w.post_id ${POST_JOINS}
    ${whereClause(filter)} ORDER BY w.n DESC, ${NEWEST_FIRST} LIMIT ?`;
  return stmts.get(sql).all(...filter.params, args.limit) as Array<PostRecord & { periodClicks: number }>;
}
