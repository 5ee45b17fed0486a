/**
 * The post lists of the 16 operations on SQLite. Each list is found as ids in order through one
 * index (by date overall, per feed, per category, per language, or the FTS5 index), and only the
 * page's rows are then read in full: the sort never carries titles and excerpts of rows it drops.
 */
import type { PostPage, PostRecord } from "../store.js";
import { NEWEST_FIRST, POST_CELLS, POST_JOINS, postRecord } from "./sqlite-columns.js";
import type { StatementCache } from "./sqlite-connection.js";
import { type DayScope, seekDay } from "./sqlite-day-seek.js";
import { newestIds, newestPageFilter, type PostFilters } from "./sqlite-newest-ids.js";

/** The rows of the given posts, in the order of `ids`. */
export function postsInOrder(stmts: StatementCache, ids: readonly number[]): PostRecord[] {
  if (ids.length === 0) return [];
  const rows = (
    stmts
      .get(`SELECT ${POST_CELLS} FROM posts p ${POST_JOINS} WHERE p.id IN (SELECT value FROM json_each(?))`)
      .raw()
      .all(JSON.stringify(ids)) as unknown[][]
  ).map(postRecord);
  const byId = new Map(rows.map((r) => [r.postId, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/**
 * A newest-first page in one statement. The first page walks the date index and reads each row as
 * it goes (CROSS JOIN keeps posts the outer loop, so the walk uses the same index as the ids
 * query). A later page would read the full rows of every skipped post, so there the ids come from
 * a subquery (a co-routine over the index alone: SQLite does not flatten a subquery with LIMIT
 * into a join) and only the page's rows are read. Either way about half the cost of finding the
 * ids first and reading the rows with a second statement.
 */
function newestPage(
  stmts: StatementCache,
  filters: PostFilters,
  scope: DayScope,
  page: PostPage,
): PostRecord[] {
  const seek = seekDay(stmts, scope, page.offset);
  if (seek === null) return [];
  const bounded: Array<readonly [string, unknown]> = [...filters];
  if (seek.before !== null) bounded.push(["p.post_date < ?", seek.before]);
  if (seek.notBefore !== null) bounded.push(["p.post_date >= ?", seek.notBefore]);
  const sought = { ...page, offset: seek.skip };
  const single = newestPageFilter(bounded, sought);
  if (single === null) return postsInOrder(stmts, newestIds(stmts, bounded, sought));
  const paged = `${single.where} ORDER BY ${NEWEST_FIRST} LIMIT ? OFFSET ?`;
  const sql =
    sought.offset === 0
      ? `SELECT ${POST_CELLS} FROM posts p CROSS ${POST_JOINS} ${paged}`
      : `SELECT ${POST_CELLS} FROM (SELECT p.id FROM posts p ${paged}) AS page
        CROSS JOIN posts p ON p.id = page.id ${POST_JOINS} ORDER BY ${NEWEST_FIRST}`;
  const rows = stmts
    .get(sql)
    .raw()
    .all(...single.values) as unknown[][];
  return rows.map(postRecord);
}

export function recentPosts(stmts: StatementCache, page: PostPage): PostRecord[] {
  if (page.limit === 0 || page.languageIds?.length === 0) return [];
  return newestPage(stmts, [], { languageIds: page.languageIds }, page);
}

export function postsByCategory(
  stmts: StatementCache,
  page: PostPage & { categoryId: number; sincePostId: number | null; sinceDate: number | null },
): PostRecord[] {
  if (page.limit === 0 || page.languageIds?.length === 0) return [];
  const filters: Array<[string, unknown]> = [["p.category_id = ?", page.categoryId]];
  if (page.sincePostId !== null) filters.push(["p.id > ?", page.sincePostId]);
  if (page.sinceDate !== null) filters.push(["p.post_date > ?", page.sinceDate]);
  return newestPage(stmts, filters, page, page);
}

export function postsByFeed(
  stmts: StatementCache,
  page: { limit: number; offset: number; feedId: number },
): PostRecord[] {
  if (page.limit === 0) return [];
  return newestPage(
    stmts,
    [["p.feed_id = ?", page.feedId]],
    { feedId: page.feedId, languageIds: null },
    { ...page, languageIds: null },
  );
}
