/**
 * Deep pages of the date-ordered post lists without reading and dropping every post before them:
 * the per-month and per-day counts of `scope_months` and `scope_days` (postgres-scope-months.ts,
 * postgres-scope-rollups.ts), a feed's running sums per day (migration 27,
 * postgres-running-sums.ts), or for a list since a post id the posts' ranks per month, say on
 * which UTC day the page's first post lies and how many posts of that day come before it, so the
 * page query starts at that day's end and skips at most one day of posts.
 */
import type { Where } from "./postgres-columns.js";
import { rows, type Sql } from "./postgres-connection.js";
import { RANK_SEEK_COST } from "./postgres-plan-costs.js";
import { SUM_BLOCK_DAYS } from "./postgres-running-sums.js";
import { MONTH_DAYS, monthOf } from "./postgres-scope-months.js";

export const DAY_MS = 86_400_000;

/** A post list's scope, in terms both `posts` and the roll-ups have. */
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

/** The day where `offset` lands in `days` (newest first, with `newer` posts before them), or null. */
function landing(days: Iterable<[number, number]>, offset: number, newer = 0): PageStart | null {
  let skipped = newer;
  for (const [day, n] of days) {
    if (skipped + n > offset) return { before: (day + 1) * DAY_MS, skip: offset - skipped };
    skipped += n;
  }
  return null;
}

/** A feed's posts per day, newest first, from its running sums within each block. */
async function feedDays(sql: Sql, feedId: number): Promise<Array<[number, number]>> {
  const blocks = await rows<{ block: number; through: number[] }>(
    sql,
    "SELECT block, through FROM feed_post_days WHERE feed_id = $1 ORDER BY block DESC",
    [feedId],
  );
  const days: Array<[number, number]> = [];
  for (const { block, through } of blocks) {
    for (let k = through.length - 1; k >= 0; k--) {
      const n = through[k]! - (k > 0 ? through[k - 1]! : 0);
      if (n > 0) days.push([block * SUM_BLOCK_DAYS + k, n]);
    }
  }
  return days;
}

/**
 * A category's posts above `sincePostId` per month, newest first. The months' counts are
 * `scope_months` rows (one language of one month each); a row's posts above the id are its count
 * less the rank of its last post at or below the id (a seek). When the category's posts above the
 * id, or those below it, are fewer than those seeks would cost (RANK_SEEK_COST), they are counted
 * per month from the ranks' id index instead, read up to that cost at most: a read bounded by the
 * category's months × languages either way, whatever the posts.
 */
export async function monthsAbove(
  sql: Sql,
  scope: PageScope & { categoryId: number; sincePostId: number },
  /** Tests take each way. */
  way?: "above" | "below" | "seeks",
): Promise<Array<[number, number]>> {
  const params: unknown[] = [scope.categoryId, scope.sincePostId];
  const months: string[] = [];
  if (scope.languageIds !== null) {
    params.push(scope.languageIds);
    months.push(`language_id = ANY($${params.length}::int[])`);
  }
  if (scope.sinceDate != null) {
    params.push(scope.sinceDate);
    months.push(`month >= ${monthOf(`post_day($${params.length})`)}`);
  }
  const where = (alias: string, base: string[]) =>
    [...base, ...months.map((c) => `${alias}.${c}`)].join(" AND ");
  // The month rows a seek would read (in scope), and the category's posts of every language and month.
  const [{ buckets, posts }] = (await rows<{ buckets: number; posts: number }>(
    sql,
    // ($2, unused here, keeps the parameters those of the queries below.)
    `SELECT (count(*) FILTER (WHERE ${where("m", ["$2::integer IS NOT NULL"])}))::float8 AS buckets,
      coalesce(sum(m.posts), 0)::float8 AS posts FROM scope_months m WHERE m.category_id = $1`,
    params,
  )) as [{ buckets: number; posts: number }];
  if (buckets === 0) return [];
  const budget = Math.ceil(buckets * RANK_SEEK_COST);
  // The posts above the id, read up to the budget or half the category: fewer, they are the
  // smaller side; more than half, those below are (and are counted, up to the budget).
  const half = Math.ceil(posts / 2);
  const count = async (side: string, limit: number) => {
    const [n] = await rows<{ n: number }>(
      sql,
      `SELECT count(*)::float8 AS n FROM (SELECT 1 FROM post_month_ranks WHERE category_id = $1 AND ${side} LIMIT $3) x`,
      [scope.categoryId, scope.sincePostId, limit],
    );
    return n!.n;
  };
  const aboveLimit = Math.min(budget, half);
  const above = way === undefined ? await count("id > $2", aboveLimit) : 0;
  const fewAbove = above < aboveLimit;
  const fewBelow =
    !fewAbove && (aboveLimit === half || (way === undefined && (await count("id <= $2", budget)) < budget));
  const perMonth = (text: string) =>
    rows<{ month: number; n: number }>(sql, text, params).then((found) =>
      found.filter((m) => m.n > 0).map((m): [number, number] => [m.month, m.n]),
    );
  if (way === "above" || (way === undefined && fewAbove)) {
    return perMonth(`SELECT r.month, count(*)::float8 AS n FROM post_month_ranks r
      WHERE ${where("r", ["r.category_id = $1", "r.id > $2"])} GROUP BY r.month ORDER BY r.month DESC`);
  }
  if (way === "below" || (way === undefined && fewBelow)) {
    return perMonth(`SELECT m.month, (sum(m.posts) - coalesce(min(b.n), 0))::float8 AS n FROM scope_months m
      LEFT JOIN (SELECT r.month, count(*) AS n FROM post_month_ranks r
        WHERE ${where("r", ["r.category_id = $1", "r.id <= $2"])} GROUP BY r.month) b ON b.month = m.month
      WHERE ${where("m", ["m.category_id = $1"])} GROUP BY m.month ORDER BY m.month DESC`);
  }
  return perMonth(`SELECT m.month, sum(m.posts - coalesce((SELECT r.rank FROM post_month_ranks r
      WHERE r.category_id = m.category_id AND r.month = m.month AND r.language_id = m.language_id AND r.id <= $2
      ORDER BY r.id DESC LIMIT 1), 0))::float8 AS n
    FROM scope_months m WHERE ${where("m", ["m.category_id = $1"])} GROUP BY m.month ORDER BY m.month DESC`);
}

/** The days of one month of a category with posts above `sincePostId`, newest first, from the ranks. */
function monthDaysAbove(
  sql: Sql,
  scope: PageScope & { categoryId: number; sincePostId: number },
  month: number,
): Promise<Array<{ day: number; n: number }>> {
  const params: unknown[] = [scope.categoryId, month, scope.sincePostId];
  const conditions = ["r.category_id = $1", "r.month = $2", "r.id > $3"];
  if (scope.languageIds !== null) {
    params.push(scope.languageIds);
    conditions.push(`r.language_id = ANY($${params.length}::int[])`);
  }
  if (scope.sinceDate != null) {
    params.push(scope.sinceDate);
    conditions.push(`r.day >= post_day($${params.length})`);
  }
  return rows(
    sql,
    `SELECT r.day, count(*)::float8 AS n FROM post_month_ranks r WHERE ${conditions.join(" AND ")}
      GROUP BY r.day ORDER BY r.day DESC`,
    params,
  );
}

/** A list since a post id: where the page at `offset` starts, null when the list is shorter. */
async function seekSince(
  sql: Sql,
  scope: PageScope & { categoryId: number; sincePostId: number },
  offset: number,
): Promise<PageStart | null> {
  let newer = 0;
  for (const [month, n] of await monthsAbove(sql, scope)) {
    if (newer + n > offset) {
      const days = await monthDaysAbove(sql, scope, month);
      // A month's count may hold posts before sinceDate only in the oldest month in scope, where
      // the days then run out before the offset (an empty page, as the page query would give).
      return landing(
        days.map((d) => [d.day, d.n]),
        offset,
        newer,
      );
    }
    newer += n;
  }
  return null;
}

/** Where the page at `offset` starts, or null when the scope has no post at that offset. */
export async function seekPage(sql: Sql, scope: PageScope, offset: number): Promise<PageStart | null> {
  if (scope.sincePostId != null && scope.categoryId !== undefined) {
    return seekSince(sql, { ...scope, categoryId: scope.categoryId, sincePostId: scope.sincePostId }, offset);
  }
  // A feed's list has no other restriction (postsByFeed).
  if (scope.feedId !== undefined) return landing(await feedDays(sql, scope.feedId), offset);
  const conditions: string[] = ["d.posts > 0"];
  const params: unknown[] = [offset];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  if (scope.categoryId !== undefined) conditions.push(`d.category_id = ${param(scope.categoryId)}`);
  if (scope.languageIds !== null) conditions.push(`d.language_id = ANY(${param(scope.languageIds)}::int[])`);
  // Months: the same conditions, the month of sinceDate whole.
  const monthConditions = [...conditions];
  if (scope.sinceDate != null) {
    const since = param(scope.sinceDate);
    conditions.push(`d.day >= post_day(${since})`);
    monthConditions.push(`d.month >= ${monthOf(`post_day(${since})`)}`);
  }
  const [found] = await rows<{ day: number; n: number; running: number }>(
    sql,
    // The month first (scope_months: a 28th of the rows), then the day among that month's days.
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
