/**
 * Deep pages of the newest-first post lists without reading the rows they skip. `post_days`
 * (migration 8) counts posts per UTC day per feed, language and category, and `post_day_counts`
 * (migration 15) per day, language and category for lists of every feed; adding the counts from
 * the newest day down finds the day where the offset lands, and the page query then starts at the
 * end of that day and skips only within it (about one day of posts instead of `offset` rows).
 * SQLite's own advice on paging is the model: seek, do not skip (https://sqlite.org/rowvalue.html#scrolling_window_queries).
 */
import type { StatementCache } from "./sqlite-connection.js";
import type { PostFilters } from "./sqlite-newest-ids.js";
import { SEEK_DAYS_FROM as SEEK_FROM, SINCE_IDS_READ } from "./sqlite-plan-costs.js";

const DAY = 86_400_000;

/** Which posts a list holds, as `post_days` can tell. */
export interface DayScope {
  feedId?: number;
  categoryId?: number;
  languageIds: readonly number[] | null;
  sincePostId?: number | null;
  sinceDate?: number | null;
}

/** Where a page starts: its rows are dated before `before` (when set), after skipping `skip` of them. */
export interface Seek {
  before: number | null;
  /** Posts dated from here on (a lower bound that only trims a scan, never a row). */
  notBefore: number | null;
  skip: number;
}

function scopeConditions(scope: DayScope): { sql: string[]; values: unknown[] } {
  const sql: string[] = [];
  const values: unknown[] = [];
  if (scope.feedId !== undefined) {
    sql.push("feed_id = ?");
    values.push(scope.feedId);
  }
  if (scope.categoryId !== undefined) {
    sql.push("category_id = ?");
    values.push(scope.categoryId);
  }
  if (scope.languageIds !== null) {
    sql.push("language_id IN (SELECT value FROM json_each(?))");
    values.push(JSON.stringify(scope.languageIds));
  }
  return { sql, values };
}

/**
 * The lowest day that can hold a post with id above `sincePostId`: a list restricted by id ends
 * there, so its last page never scans the older days.
 */
function lowestDayAbove(stmts: StatementCache, scope: DayScope, sincePostId: number): number | null {
  const { sql, values } = scopeConditions(scope);
  return stmts
    .get(`SELECT min(day) FROM post_days WHERE ${[...sql, "max_id > ?"].join(" AND ")}`)
    .pluck()
    .get(...values, sincePostId) as number | null;
}

/**
 * The posts of a list's scope with ids up to `sincePostId`, counted per day, when fewer than
 * SINCE_IDS_READ posts of any scope have such ids (read in id order, the table's own), else null.
 */
function postsUpTo(stmts: StatementCache, scope: DayScope, sincePostId: number): Map<number, number> | null {
  const { sql, values } = scopeConditions(scope);
  const inScope = sql.length === 0 ? "1" : sql.join(" AND ");
  const rows = stmts
    .get(`SELECT post_date, ${inScope} FROM posts NOT INDEXED WHERE id <= ? LIMIT ?`)
    .raw()
    .all(...values, sincePostId, SINCE_IDS_READ) as Array<[number, number]>;
  if (rows.length >= SINCE_IDS_READ) return null;
  const perDay = new Map<number, number>();
  for (const [date, matches] of rows) {
    if (matches !== 1) continue;
    const day = Math.floor(date / DAY);
    perDay.set(day, (perDay.get(day) ?? 0) + 1);
  }
  return perDay;
}

/**
 * Finds the day where `offset` lands, or null when the list is shorter than the offset.
 *
 * @example
 * seekDay(stmts, { languageIds: null }, [], 999_000); // { before: <end of a day>, skip: 1234, ... }
 */
export function seekDay(
  stmts: StatementCache,
  scope: DayScope,
  filters: PostFilters,
  offset: number,
): Seek | null {
  const sinceId = scope.sincePostId ?? null;
  const sinceDate = scope.sinceDate ?? null;
  let notBefore: number | null = null;
  if (sinceId !== null) {
    const low = lowestDayAbove(stmts, scope, sinceId);
    if (low === null) return null;
    notBefore = low * DAY;
  }
  if (offset < SEEK_FROM) return { before: null, notBefore, skip: offset };
  const { sql, values } = scopeConditions(scope);
  // Days after the one holding `sinceDate` hold only posts dated after it.
  const sinceDay = sinceDate === null ? null : Math.floor(sinceDate / DAY);
  if (sinceDay !== null) {
    sql.push("day > ?");
    values.push(sinceDay);
  }
  // Lists of more than one feed count days in post_day_counts (schema 15), whose rows do not
  // multiply with the feeds. A sincepost below which few posts lie takes those few off their
  // days' counts; otherwise ids on both sides of it need post_days' per-feed id bounds.
  const below = sinceId === null || scope.feedId !== undefined ? null : postsUpTo(stmts, scope, sinceId);
  const perFeed = scope.feedId !== undefined || (sinceId !== null && below === null);
  const days = stmts
    .get(`SELECT day, sum(posts), ${perFeed ? "min(min_id), max(max_id)" : "0, 0"}
      FROM ${perFeed ? "post_days" : "post_day_counts"}
      ${sql.length === 0 ? "" : `WHERE ${sql.join(" AND ")}`} GROUP BY day ORDER BY day DESC`)
    .raw();
  const exact = stmts
    .get(
      `SELECT count(*) FROM posts p WHERE ${[
        ...filters.map(([condition]) => condition),
        "p.post_date >= ? AND p.post_date < ?",
      ].join(" AND ")}`,
    )
    .pluck();
  let skipped = 0;
  // all(), not iterate(): the exact counts below need the connection meanwhile. A row per day.
  for (const [day, posts, minId, maxId] of days.all(...values) as Array<[number, number, number, number]>) {
    let n = posts;
    if (below !== null) n -= below.get(day) ?? 0;
    else if (sinceId !== null && maxId <= sinceId) n = 0;
    else if (sinceId !== null && minId <= sinceId) {
      // A day holding ids on both sides of sincepost: counted exactly (one day's index range).
      n = exact.get(...filters.map(([, value]) => value), day * DAY, (day + 1) * DAY) as number;
    }
    if (skipped + n > offset) return { before: (day + 1) * DAY, notBefore, skip: offset - skipped };
    skipped += n;
  }
  // What remains is the part of sincepost's own day after it (the page query filters on it).
  if (sinceDay !== null) return { before: (sinceDay + 1) * DAY, notBefore, skip: offset - skipped };
  return null;
}
