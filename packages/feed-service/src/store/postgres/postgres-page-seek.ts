/**
 * Deep pages of the date-ordered post lists without reading and dropping every post before them:
 * the per-month and per-day counts of `scope_months` and `scope_days` (postgres-scope-months.ts,
 * postgres-scope-rollups.ts), or of `post_days` for one feed (postgres-rollups.ts), say on which
 * UTC day the page's first
 * post lies and how many posts of that day come before it, so the page query starts at that day's
 * end and skips at most one day of posts.
 */
import type { Where } from "./postgres-columns.js";
import { rows, type Sql } from "./postgres-connection.js";
import { MONTH_DAYS, monthOf } from "./postgres-scope-months.js";

export const DAY_MS = 86_400_000;

/** A post list's scope, in terms both `posts` and `post_days` have. */
export interface PageScope {
  feedId?: number;
  categoryId?: number;
  languageIds: readonly number[] | null;
  /** Only posts with id > sincePostId. */
  sincePostId?: number | null;
  /** Only posts with post_date > sinceDate. */
  sinceDate?: number | null;
}

export interface PageStart {
  /** Posts with post_date below this (the landing day's end); null: from the newest. */
  before: number | null;
  /** Posts of the landing day to skip. */
  skip: number;
}

/**
 * Where the page at `offset` starts, or null when the scope has no post at that offset.
 * A bucket whose id bounds straddle `sincePostId` is counted exactly from `posts` (it holds one
 * feed's posts of one day).
 */
export async function seekPage(sql: Sql, scope: PageScope, offset: number): Promise<PageStart | null> {
  // One feed's days, or a bound (sincePostId) only the per-feed id bounds can split, come from
  // post_days; every other scope from scope_days, whose size does not grow with the feeds.
  const perFeed = scope.feedId !== undefined || scope.sincePostId != null;
  const conditions: string[] = ["d.posts > 0"];
  const params: unknown[] = [offset];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  if (scope.feedId !== undefined) conditions.push(`d.feed_id = ${param(scope.feedId)}`);
  if (scope.categoryId !== undefined) conditions.push(`d.category_id = ${param(scope.categoryId)}`);
  if (scope.languageIds !== null) conditions.push(`d.language_id = ANY(${param(scope.languageIds)}::int[])`);
  // Months: the same conditions, the month of sinceDate whole.
  const monthConditions = [...conditions];
  if (scope.sinceDate != null) {
    const since = param(scope.sinceDate);
    conditions.push(`d.day >= post_day(${since})`);
    monthConditions.push(`d.month >= ${monthOf(`post_day(${since})`)}`);
  }
  let count = "d.posts";
  if (scope.sincePostId != null) {
    const since = param(scope.sincePostId);
    conditions.push(`d.max_id > ${since}`);
    count = `CASE WHEN d.min_id > ${since} THEN d.posts ELSE (SELECT count(*) FROM posts p
      WHERE p.feed_id = d.feed_id AND p.post_date >= d.day * ${DAY_MS}::bigint AND p.post_date < (d.day + 1) * ${DAY_MS}::bigint
        AND p.id > ${since} AND p.language_id = d.language_id AND p.category_id IS NOT DISTINCT FROM d.category_id) END`;
  }
  const [found] = await rows<{ day: number; n: number; running: number }>(
    sql,
    perFeed
      ? `SELECT day, n, running FROM (
          SELECT day, n, sum(n) OVER (ORDER BY day DESC) AS running FROM (
            SELECT d.day, sum(${count}) AS n FROM post_days d WHERE ${conditions.join(" AND ")} GROUP BY d.day) per_day
        ) s WHERE running > $1 ORDER BY day DESC LIMIT 1`
      : // The month first (scope_months: a 28th of the rows), then the day among that month's days.
        // A month's count may hold posts before sinceDate only in the oldest month in scope, where
        // the day count below then finds no day (an empty page, as the page query would).
        `WITH landing AS (
          SELECT month, running - n AS newer FROM (
            SELECT month, n, sum(n) OVER (ORDER BY month DESC) AS running FROM (
              SELECT d.month, sum(d.posts) AS n FROM scope_months d
                WHERE ${monthConditions.join(" AND ")} GROUP BY d.month) per_month
          ) s WHERE running > $1 ORDER BY month DESC LIMIT 1)
        SELECT day, n, running FROM (
          SELECT day, n, landing.newer + sum(n) OVER (ORDER BY day DESC) AS running FROM landing, (
            SELECT d.day, sum(d.posts) AS n FROM scope_days d, landing l
              WHERE ${conditions.join(" AND ")} AND d.day >= l.month * ${MONTH_DAYS} AND d.day < (l.month + 1) * ${MONTH_DAYS}
              GROUP BY d.day) per_day
        ) s WHERE running > $1 ORDER BY day DESC LIMIT 1`,
    params,
  );
  if (!found) return null;
  // The landing day is the last one that can hold the page: on the day of sinceDate the count
  // also holds the posts before it, which the page query leaves out (an empty page, correctly).
  return { before: (found.day + 1) * DAY_MS, skip: offset - (found.running - found.n) };
}

/** The page start as conditions of the page query; `offset` the rows it still skips. */
export function applyPageStart(where: Where, start: PageStart | null, offset: number): number {
  if (start === null) return offset;
  if (start.before !== null) where.add("p.post_date < ?", start.before);
  return start.skip;
}
