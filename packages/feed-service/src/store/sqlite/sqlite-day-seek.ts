/**
 * Deep pages of the newest-first post lists without reading the rows they skip. `post_day_counts`
 * (migration 15) counts posts per UTC day, language and category for lists of every feed (with id
 * bounds and each post's rank by id within its row since migration 21, for lists since a post
 * id), and a feed's running sums (migration 21) its posts per day; adding the counts from the
 * newest day down finds the day where the offset lands, and the page query then starts at the
 * end of that day and skips only within it (about one day of posts instead of `offset` rows).
 * SQLite's own advice on paging is the model: seek, do not skip (https://sqlite.org/rowvalue.html#scrolling_window_queries).
 */
import type { StatementCache } from "./sqlite-connection.js";
import { DAY_ROW_LOOKUP_COST, DAY_ROW_SCAN_COST, SEEK_DAYS_FROM as SEEK_FROM } from "./sqlite-plan-costs.js";

const DAY = 86_400_000;

/** Which posts a list holds, as the day counts can tell. */
export interface DayScope {
  /** A feed's list, with no other restriction. */
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
 * there, so its last page never scans the older days. The day counts' id bounds (schema 21) in
 * the order of their highest id: only the rows holding such a post are read, whatever the feeds.
 */
function lowestDayAbove(stmts: StatementCache, scope: DayScope, sincePostId: number): number | null {
  const { sql, values } = scopeConditions(scope);
  const index = scope.categoryId === undefined ? "" : "INDEXED BY post_day_counts_by_max_id";
  return stmts
    .get(`SELECT min(day) FROM post_day_counts ${index} WHERE ${[...sql, "max_id > ?"].join(" AND ")}`)
    .pluck()
    .get(...values, sincePostId) as number | null;
}

/**
 * A day's posts in a list since a post id, per row of `post_day_counts` (one day, language and
 * category): all of them when the row's lowest id is above it, none when its highest is not, else
 * the row's count less the rank of its last post at or below the id (`post_day_ranks`, a seek).
 */
const ABOVE_SINCE = `CASE WHEN c.max_id <= $since THEN 0 WHEN c.min_id > $since THEN c.posts
  ELSE c.posts - coalesce((SELECT r.rank FROM post_day_ranks r WHERE r.category_id = c.category_id
    AND r.language_id = c.language_id AND r.day = c.day AND r.id <= $since ORDER BY r.id DESC LIMIT 1), 0) END`;

/**
 * A day of the list, newest first: its day number, the list's posts that day, the posts of its
 * languages and category that day (since bounds aside: what the list's own index holds, which a
 * walk of that index steps over), and the rows of `post_day_counts` read to count them.
 */
type DayCount = [day: number, posts: number, indexed: number, rows: number];

/** The list's posts per day after `sinceDay` (when set), newest day first. */
function dayCounts(stmts: StatementCache, scope: DayScope, sinceDay: number | null): Iterable<DayCount> {
  if (scope.feedId !== undefined) {
    // A feed's list has no other restriction (postsByFeed): one row a day.
    return stmts
      .get(`SELECT period, n, n, 1 FROM feed_post_sums WHERE level = 0 AND feed_id = ? AND period > ?
        ORDER BY period DESC`)
      .raw()
      .iterate(scope.feedId, sinceDay ?? Number.MIN_SAFE_INTEGER) as Iterable<DayCount>;
  }
  const where: string[] = [];
  const values: unknown[] = [];
  if (scope.categoryId !== undefined) {
    where.push("category_id = ?");
    values.push(scope.categoryId);
  }
  if (sinceDay !== null) {
    where.push("day > ?");
    values.push(sinceDay);
  }
  // The languages filter the sums, not the rows: a day's rows of other languages are read either
  // way (the table's and the category index's order is by day), and `rows` counts them.
  const inLanguages = scope.languageIds === null ? "1" : "language_id IN (SELECT value FROM json_each(?))";
  const languages = scope.languageIds === null ? [] : [JSON.stringify(scope.languageIds)];
  const sinceId = scope.sincePostId ?? null;
  const counted = sinceId === null ? "posts" : ABOVE_SINCE.replaceAll("$since", "?");
  return stmts
    .get(`SELECT day, sum(CASE WHEN ${inLanguages} THEN ${counted} ELSE 0 END),
        sum(CASE WHEN ${inLanguages} THEN posts ELSE 0 END), count(*) FROM post_day_counts c
      ${where.length === 0 ? "" : `WHERE ${where.join(" AND ")}`} GROUP BY day ORDER BY day DESC`)
    .raw()
    .iterate(
      ...languages,
      ...(sinceId === null ? [] : [sinceId, sinceId, sinceId]),
      ...languages,
      ...values,
    ) as Iterable<DayCount>;
}

/**
 * The list's length, when one read of the running sums (schema 21) gives it: a feed's is its
 * total row, every post's the sum of the feeds' totals. The same triggers keep those rows and
 * the day counts, in the statement that writes the post, so the two agree in every snapshot.
 * Null for lists restricted otherwise (languages, a category, since a post or a date).
 */
function listLength(stmts: StatementCache, scope: DayScope): number | null {
  if ((scope.sincePostId ?? null) !== null || (scope.sinceDate ?? null) !== null) return null;
  if (scope.feedId !== undefined) {
    return stmts
      .get("SELECT coalesce(sum(n), 0) FROM feed_post_sums WHERE level = 2 AND feed_id = ?")
      .pluck()
      .get(scope.feedId) as number;
  }
  if (scope.categoryId !== undefined || scope.languageIds !== null) return null;
  return stmts.get("SELECT coalesce(sum(n), 0) FROM feed_post_sums WHERE level = 2").pluck().get() as number;
}

/** The list's posts per day, oldest day first (the day counts of `dayCounts` in the other order). */
function oldestDayCounts(stmts: StatementCache, scope: DayScope): IterableIterator<[number, number]> {
  const sql =
    scope.feedId !== undefined
      ? "SELECT period, n FROM feed_post_sums WHERE level = 0 AND feed_id = ? ORDER BY period"
      : "SELECT day, sum(posts) FROM post_day_counts GROUP BY day ORDER BY day";
  const stmt = stmts.get(sql).raw();
  return (scope.feedId !== undefined ? stmt.iterate(scope.feedId) : stmt.iterate()) as IterableIterator<
    [number, number]
  >;
}

/**
 * Finds the day where `offset` lands, or null when the list is shorter than the offset.
 *
 * @example
 * seekDay(stmts, { languageIds: null }, 999_000); // { before: <end of a day>, skip: 1234, ... }
 */
export function seekDay(stmts: StatementCache, scope: DayScope, offset: number): Seek | null {
  const sinceId = scope.sincePostId ?? null;
  const sinceDate = scope.sinceDate ?? null;
  let notBefore: number | null = null;
  if (sinceId !== null) {
    const low = lowestDayAbove(stmts, scope, sinceId);
    if (low === null) return null;
    notBefore = low * DAY;
  }
  if (offset < SEEK_FROM) return { before: null, notBefore, skip: offset };
  // A page in the older half of a list of known length counts its days from the oldest on: a
  // last page reads its own few days, not every newer day's counts (the seek of the other end).
  const length = listLength(stmts, scope);
  if (length !== null && offset * 2 >= length) {
    if (offset >= length) return null;
    const fromOldest = length - 1 - offset;
    let older = 0;
    for (const [day, n] of oldestDayCounts(stmts, scope)) {
      if (older + n > fromOldest)
        return { before: (day + 1) * DAY, notBefore, skip: offset - (length - older - n) };
      older += n;
    }
    return null;
  }
  // Days after the one holding `sinceDate` hold only posts dated after it.
  const sinceDay = sinceDate === null ? null : Math.floor(sinceDate / DAY);
  let skipped = 0;
  // What the rows read so far cost, and what skipping their days' posts in the list's own index
  // would have: where the rows hold few posts each (thousands of feeds over many days and
  // languages), the rest of the offset is skipped in that index from the last day counted.
  // Not for several languages: their pages merge each language's ids in the process
  // (sqlite-newest-ids.ts), where every skipped entry is a row read out of SQLite.
  const oneIndex = scope.languageIds === null || new Set(scope.languageIds).size === 1;
  const rowCost = scope.categoryId === undefined ? DAY_ROW_SCAN_COST : DAY_ROW_LOOKUP_COST;
  let rowsCost = 0;
  let indexed = 0;
  // A row per day, newest first: a feed's from its running sums' days (schema 21), a list of more
  // than one feed's from post_day_counts (schema 15), whose rows do not multiply with the feeds.
  for (const [day, n, inIndex, rows] of dayCounts(stmts, scope, sinceDay)) {
    if (skipped + n > offset) return { before: (day + 1) * DAY, notBefore, skip: offset - skipped };
    skipped += n;
    rowsCost += rows * rowCost;
    indexed += inIndex;
    if (oneIndex && rowsCost > indexed) return { before: day * DAY, notBefore, skip: offset - skipped };
  }
  // What remains is the part of sincepost's own day after it (the page query filters on it).
  if (sinceDay !== null) return { before: (sinceDay + 1) * DAY, notBefore, skip: offset - skipped };
  return null;
}
