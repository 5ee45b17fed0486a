/**
 * Most popular posts over a window (operation 6) on SQLite, exactly, by the cheaper of two ways:
 * - a short window: its clicks are read by time and counted per post (a day of clicks is a few
 *   thousand index entries);
 * - a long one: the clicked posts are walked by all-time clicks (`posts.clicks`), most first and
 *   newest first within a count (`posts_by_clicks`), and each post's window count is read from its
 *   clicks by time (`clicks_by_post_time`, migration 12): its clicks in the window, or its all-time
 *   count less its clicks before the window, by the side its date says holds fewer of them
 *   (`CountedSide`). A post's window count is at most its all-time count, so the walk stops once
 *   the next post's all-time count cannot beat the page's last row (Fagin's threshold algorithm).
 *   Over a long window the two counts are close and the walk ends after about `limit` posts; a
 *   window that holds every click (from the oldest click on) reads no click at all, each post's
 *   window count being its all-time count.
 * The window's size is counted beforehand in the clicks' time index, up to a cap (the feeds' totals
 * for a window that holds every click); the walk is also
 * cut short, for the scan, once it has cost about what the scan would (a post for every
 * `walkCostInClicks` clicks of the window).
 */
import type { PostRecord } from "../store.js";
import type { StatementCache } from "./sqlite-connection.js";
import {
  POPULAR_CATEGORY_LIST_SHARE as CATEGORY_LIST_SHARE,
  POPULAR_IN_CATEGORY as IN_CATEGORY,
  PLAN_COUNT_CAP,
  POPULAR_WHOLE as WHOLE,
} from "./sqlite-plan-costs.js";
import { postsInOrder } from "./sqlite-post-queries.js";

const BATCH = 256;

/** A ranked post: id, window clicks, post_date. */
type Ranked = [id: number, n: number, date: number];

/** Ranked before: more window clicks, then newer, then the larger id. */
function before(a: Ranked, b: Ranked): boolean {
  return a[1] > b[1] || (a[1] === b[1] && (a[2] > b[2] || (a[2] === b[2] && a[0] > b[0])));
}

/**
 * How many clicks the window holds, counted in `clicks_by_time` up to PLAN_COUNT_CAP (exact below
 * it). Past the cap, the all-time total (the feeds' totals in `feed_click_sums`, schema 21) less the
 * clicks before the window when those are under the cap, else that total less the cap, an upper
 * bound: the per-(feed, day) roll-up is not summed, since with many small feeds it holds near a
 * row per click.
 */
function windowClicks(stmts: StatementCache, since: number, allClicks: boolean): number {
  const total = () =>
    stmts.get("SELECT coalesce(sum(n), 0) FROM feed_click_sums WHERE level = 2").pluck().get() as number;
  if (allClicks) return total();
  const inWindow = cappedCount(stmts, ">=", since);
  if (inWindow < PLAN_COUNT_CAP) return inWindow;
  return Math.max(PLAN_COUNT_CAP, total() - cappedCount(stmts, "<", since));
}

/**
 * Whether the window holds every click (it starts at or before the oldest one, the first entry
 * of `clicks_by_time`): each post's window count is then its all-time count, and the window's
 * clicks the feeds' totals, with no click read.
 */
function holdsAllClicks(stmts: StatementCache, since: number): boolean {
  const oldest = stmts.get("SELECT min(clicked_at) FROM clicks INDEXED BY clicks_by_time").pluck().get() as
    | number
    | null;
  return oldest === null || since <= oldest;
}

function cappedCount(stmts: StatementCache, op: ">=" | "<", since: number): number {
  return stmts
    .get(
      `SELECT count(*) FROM (SELECT 1 FROM clicks INDEXED BY clicks_by_time WHERE clicked_at ${op} ? LIMIT ?)`,
    )
    .pluck()
    .get(since, PLAN_COUNT_CAP) as number;
}

/**
 * How a category's window is scanned: `first` keeps only the window's clicks on the category's
 * clicked posts (a range of `posts_by_category_clicks`, held in memory) before counting them;
 * `after` counts every click of the window and then looks each counted post up by id for its
 * category (a seek per post, scattered over `posts_sort_keys`).
 */
export type CategoryFilter = "first" | "after";

export function scanWindow(stmts: StatementCache, args: Args, filter: CategoryFilter = "first"): Ranked[] {
  const windowed = (where: string) => `w AS MATERIALIZED (SELECT post_id, count(*) AS n
    FROM clicks INDEXED BY clicks_by_time WHERE clicked_at >= ? ${where} GROUP BY post_id)`;
  if (args.categoryId !== null && filter === "after") {
    return stmts
      .get(`WITH ${windowed("")}
        SELECT p.id, w.n, p.post_date FROM w JOIN posts p INDEXED BY posts_sort_keys ON p.id = w.post_id
        WHERE p.category_id = ? ORDER BY w.n DESC, p.post_date DESC, p.id DESC LIMIT ?`)
      .raw()
      .all(args.since, args.categoryId, args.limit) as Ranked[];
  }
  // A clicked post is in `posts_by_category_clicks` (partial on clicks > 0): every click adds one
  // to its post's count in the same transaction (sqlite-activity-writer.ts).
  const inCategory =
    args.categoryId === null
      ? ""
      : `AND post_id IN (SELECT id FROM posts INDEXED BY posts_by_category_clicks
          WHERE category_id = ? AND clicks > 0)`;
  const scope = args.categoryId === null ? [] : [args.categoryId];
  // Only posts with at least the page's lowest count are joined for the date tie-break.
  return stmts
    .get(`WITH ${windowed(inCategory)}, cut AS (SELECT n FROM w ORDER BY n DESC LIMIT 1 OFFSET ?)
      SELECT p.id, w.n, p.post_date FROM w JOIN posts p INDEXED BY posts_sort_keys ON p.id = w.post_id
      WHERE w.n >= coalesce((SELECT n FROM cut), 0) ORDER BY w.n DESC, p.post_date DESC, p.id DESC LIMIT ?`)
    .raw()
    .all(args.since, ...scope, args.limit - 1, args.limit) as Ranked[];
}

/**
 * The category filter that reads less: the category's clicked posts when they are few next to the
 * window's clicks (counted only up to that many), else a lookup per counted post (at most one per
 * click). Either way the scan reads at most about twice the window's clicks.
 */
function categoryFilter(stmts: StatementCache, categoryId: number, windowClicks: number): CategoryFilter {
  const most = Math.floor(windowClicks * CATEGORY_LIST_SHARE);
  const clicked = stmts
    .get(`SELECT count(*) FROM (SELECT 1 FROM posts INDEXED BY posts_by_category_clicks
      WHERE category_id = ? AND clicks > 0 LIMIT ?)`)
    .pluck()
    .get(categoryId, most + 1) as number;
  return clicked <= most ? "first" : "after";
}

/**
 * Which of a walked post's clicks are read to find its window count: those in the window, or
 * those before it (the window count is then the all-time count less them). Either gives the same
 * count; `by date` reads the window's side for a post dated before the window and the other side
 * for one dated inside it: a post is clicked after it is stored, so after its date but for
 * future-dated or re-dated posts, most clicks soon after it; the side read is then the one holding
 * few of the post's clicks or none, where the other side can hold hundreds. `all` reads none: for
 * a window that holds every click, where the window count is the all-time count.
 */
export type CountedSide = "window" | "before" | "by date" | "all";

/**
 * The walk; null when it has read `budget` posts without finishing. Keyset pages of the clicked
 * posts, each row's window count a correlated seek in the same statement; the first page is the
 * page's size, later ones a fixed batch, so the seeks made past the threshold's row are at most a
 * batch's (each page read at once: per row, cheaper than stepping a statement from JavaScript).
 */
export function walkAllTime(
  stmts: StatementCache,
  args: Args,
  budget: number,
  side: CountedSide = "by date",
): Ranked[] | null {
  const scope = args.categoryId === null ? "" : "category_id = ? AND";
  const index = args.categoryId === null ? "posts_by_clicks" : "posts_by_category_clicks";
  const countOf = (op: ">=" | "<") => `(SELECT count(*) FROM clicks INDEXED BY clicks_by_post_time
    WHERE post_id = p.id AND clicked_at ${op} $since)`;
  const windowSide = { window: "1", before: "0", "by date": "p.post_date < $since", all: null }[side];
  const count =
    windowSide === null
      ? "p.clicks"
      : `CASE WHEN ${windowSide} THEN ${countOf(">=")} ELSE p.clicks - ${countOf("<")} END`;
  const walk = stmts
    .get(`SELECT p.id, ${count}, p.post_date, p.clicks FROM posts p INDEXED BY ${index}
      WHERE ${scope} p.clicks > 0 AND (p.clicks, p.post_date, p.id) < ($clicks, $date, $id)
      ORDER BY p.clicks DESC, p.post_date DESC, p.id DESC LIMIT $batch`)
    .raw();
  const scopeValues = args.categoryId === null ? [] : [args.categoryId];
  const top: Ranked[] = [];
  let after = { clicks: Number.MAX_SAFE_INTEGER, date: 0, id: 0 };
  let read = 0;
  for (let batch = Math.min(args.limit, BATCH); ; batch = BATCH) {
    const rows = walk.all(...scopeValues, { since: args.since, ...after, batch }) as Array<
      [number, number, number, number]
    >;
    for (const [id, n, date, clicks] of rows) {
      const last = top[args.limit - 1];
      // The post's all-time count bounds its window count and every later post's.
      if (last !== undefined && !before([id, clicks, date], last)) return top;
      if (n > 0) insertRanked(top, [id, n, date], args.limit);
      if (++read >= budget) return null;
    }
    if (rows.length < batch) return top;
    const [id, , date, clicks] = rows[rows.length - 1]!;
    after = { clicks, date, id };
  }
}

/** Inserts into a ranked list kept at `limit` rows. */
function insertRanked(top: Ranked[], item: Ranked, limit: number): void {
  let i = top.length;
  while (i > 0 && before(item, top[i - 1]!)) i--;
  if (i >= limit) return;
  top.splice(i, 0, item);
  if (top.length > limit) top.pop();
}

export interface Args {
  since: number;
  limit: number;
  categoryId: number | null;
}

export function mostPopularPosts(
  stmts: StatementCache,
  args: Args,
): Array<PostRecord & { periodClicks: number }> {
  if (args.limit === 0) return [];
  const allClicks = holdsAllClicks(stmts, args.since);
  const clicks = windowClicks(stmts, args.since, allClicks);
  const { scanClicks, walkCostInClicks } = args.categoryId === null ? WHOLE : IN_CATEGORY;
  const walked =
    clicks > scanClicks
      ? walkAllTime(stmts, args, clicks / walkCostInClicks, allClicks ? "all" : "by date")
      : null;
  const ranked =
    walked ??
    scanWindow(
      stmts,
      args,
      args.categoryId === null ? "first" : categoryFilter(stmts, args.categoryId, clicks),
    );
  // By id, not by position: a post deleted by another process between the two statements would
  // otherwise shift every later count onto the wrong row.
  const counts = new Map(ranked.map(([id, n]) => [id, n]));
  return postsInOrder(stmts, [...counts.keys()]).map((row) => ({
    ...row,
    periodClicks: counts.get(row.postId)!,
  }));
}
