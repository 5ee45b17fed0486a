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
import { type CrossPlan, crossPlan } from "./postgres-scope-window.js";

/**
 * One page of a date-ordered list: the page's ids first (an index walk that joins nothing), past
 * deep offsets from the day `seekPage` finds, then the columns of those ids only.
 */
async function listPage(
  sql: Sql,
  scope: PageScope,
  page: { limit: number; offset: number },
): Promise<PostRecord[]> {
  if (scope.categoryId !== undefined && scope.languageIds !== null) {
    const languageIds = [...new Set(scope.languageIds)];
    const crossed = { ...scope, categoryId: scope.categoryId, languageIds };
    const plan = await crossPlan(sql, crossed, page);
    if (plan === null) return [];
    if (plan !== "walk") return crossPage(sql, crossed, plan, page);
  }
  const deep = page.offset > SEEK_FROM_OFFSET;
  const start = deep ? await seekPage(sql, scope, page.offset) : null;
  if (deep && start === null) return [];
  const where = new Where();
  if (scope.feedId !== undefined) where.add("p.feed_id = ?", scope.feedId);
  if (scope.categoryId !== undefined) where.add("p.category_id = ?", scope.categoryId);
  if (scope.sincePostId != null) where.add("p.id > ?", scope.sincePostId);
  if (scope.sinceDate != null) where.add("p.post_date > ?", scope.sinceDate);
  const languages = scope.languageIds === null ? [] : [...new Set(scope.languageIds)];
  // Several languages, no category: one walk of posts_by_language per language, merged in date
  // order (a Merge Append), so that each reads at most the page's depth of its own posts, however
  // rare the language; one walk of the date index filtered by language would pass over every post
  // of the other languages (spec §4: any mix of languages, none of them dominant).
  const merged = scope.categoryId === undefined && scope.feedId === undefined && languages.length > 1;
  if (!merged) languageFilter(where, scope.languageIds);
  const skip = applyPageStart(where, start, page.offset);
  let ids: string;
  if (merged) {
    const depth = where.next(page.limit + skip);
    const walks = languages.map((id) => {
      const language = where.next(id);
      const conditions = [...where.parts, `p.language_id = ${language}`].join(" AND ");
      return `(SELECT p.id, p.post_date FROM posts p WHERE ${conditions} ORDER BY ${NEWEST_FIRST} LIMIT ${depth})`;
    });
    ids = `SELECT p.id FROM (${walks.join(" UNION ALL ")}) p
      ORDER BY ${NEWEST_FIRST} LIMIT ${where.next(page.limit)} OFFSET ${where.next(skip)}`;
  } else {
    ids = `SELECT p.id FROM posts p ${where.sql}
      ORDER BY ${NEWEST_FIRST} LIMIT ${where.next(page.limit)} OFFSET ${where.next(skip)}`;
  }
  return pageRows(sql, ids, where.params);
}

/** The columns of the page's ids, in date order. */
function pageRows(sql: Sql, ids: string, params: unknown[]): Promise<PostRecord[]> {
  const text = `WITH page AS (${ids})
    SELECT ${POST_COLUMNS} FROM page JOIN posts p ON p.id = page.id ${POST_JOINS} ORDER BY ${NEWEST_FIRST}`;
  return rows<PostRecord>(sql, text, params);
}

/**
 * A category's page within languages from its days (postgres-scope-window.ts): one walk of the
 * side the plan picked, within the page's days. The other side's test is `+ 0`, which no index
 * answers, so that the planner reads the picked side's index (its estimate of a test on an
 * expression is a guess, but either of its plans, a walk in order or a sort, then reads at most
 * that side's posts of the page's days).
 */
function crossPage(
  sql: Sql,
  scope: PageScope & { categoryId: number; languageIds: readonly number[] },
  plan: CrossPlan,
  page: { limit: number; offset: number },
): Promise<PostRecord[]> {
  const where = new Where();
  if (scope.sincePostId != null) where.add("p.id > ?", scope.sincePostId);
  if (scope.sinceDate != null) where.add("p.post_date > ?", scope.sinceDate);
  where.add("p.post_date >= ?", plan.notBefore);
  const skip = applyPageStart(where, plan.start, page.offset);
  let ids: string;
  if (plan.side === "category") {
    where.add("p.category_id = ?", scope.categoryId);
    where.add("p.language_id + 0 = ANY(?::int[])", scope.languageIds);
    ids = `SELECT p.id FROM posts p ${where.sql} ORDER BY ${NEWEST_FIRST}
      LIMIT ${where.next(page.limit)} OFFSET ${where.next(skip)}`;
  } else {
    // One walk per language merged in date order, as recentPosts does (each reads at most the
    // page's depth of the intersection).
    where.add("p.category_id + 0 = ?", scope.categoryId);
    const depth = where.next(page.limit + skip);
    const walks = scope.languageIds.map((id) => {
      const conditions = [...where.parts, `p.language_id = ${where.next(id)}`].join(" AND ");
      return `(SELECT p.id, p.post_date FROM posts p WHERE ${conditions}
        ORDER BY ${NEWEST_FIRST} LIMIT ${depth})`;
    });
    ids = `SELECT p.id FROM (${walks.join(" UNION ALL ")}) p
      ORDER BY ${NEWEST_FIRST} LIMIT ${where.next(page.limit)} OFFSET ${where.next(skip)}`;
  }
  return pageRows(sql, ids, where.params);
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
