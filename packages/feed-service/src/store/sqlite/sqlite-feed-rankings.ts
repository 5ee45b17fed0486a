/**
 * Feeds ranked over a window on SQLite (most popular: clicks on their posts; most prolific: posts
 * dated within it). A window of `daysBack` up to 100 years is whole UTC days plus the part of its
 * first day after `since`: the whole days come from the per-day roll-ups of migration 8
 * (`feed_click_days`, `post_days`: a few thousand rows for a 90-day history), the partial day from
 * the clicks or posts themselves (at most one day of them). Over a window that leaves few posts
 * or clicks before it, those are counted instead (each feed's post count, or its all-time clicks
 * from `feed_click_totals`, less them). The counts are exact.
 */
import type { FeedRecord } from "../store.js";
import { FEED_COLUMNS, FEED_JOINS } from "./sqlite-columns.js";
import type { StatementCache } from "./sqlite-connection.js";
import { PLAN_COUNT_CAP, ROLLUP_SORTED_ROWS } from "./sqlite-plan-costs.js";

const DAY = 86_400_000;

/** The first whole day of a window starting at `since`, and where that day starts. */
function firstWholeDay(since: number): { day: number; start: number } {
  const day = Math.ceil(since / DAY);
  return { day, start: day * DAY };
}

export function mostPopularFeeds(
  stmts: StatementCache,
  args: { since: number; limit: number },
): Array<FeedRecord & { periodClicks: number }> {
  if (args.limit === 0) return [];
  // As for prolific feeds: the window's roll-up rows, or the clicks before it (few for a wide
  // window) taken from each feed's all-time clicks, whichever reads less.
  const older = stmts
    .get("SELECT count(*) FROM (SELECT 1 FROM clicks INDEXED BY clicks_by_time WHERE clicked_at < ? LIMIT ?)")
    .pluck()
    .get(args.since, PLAN_COUNT_CAP) as number;
  const days = stmts
    .get(
      "SELECT count(*) FROM (SELECT 1 FROM feed_click_days INDEXED BY feed_click_days_by_day WHERE day >= ? LIMIT ?)",
    )
    .pluck()
    .get(firstWholeDay(args.since).day, older + 1) as number;
  // Both past the cap: the roll-up's rows need no post lookup each and never outnumber the window's
  // clicks, while the complement reads the cap's worth of clicks and more, each joined to its post.
  if (days > older && older < PLAN_COUNT_CAP) return popularByComplement(stmts, args);
  return popularByDays(stmts, args, days >= ROLLUP_SORTED_ROWS);
}

/**
 * Clicks per feed in the window as the days' roll-ups count them, plus the partial first day.
 * `inFeedOrder`: the roll-up is summed per feed in its primary key's (feed, day) order, reading
 * the whole table but sorting only a row per feed; otherwise the window's rows are read through
 * the day index and sorted by feed, which costs more per row (ROLLUP_SORTED_ROWS).
 */
export function popularByDays(
  stmts: StatementCache,
  args: { since: number; limit: number },
  inFeedOrder = false,
): Array<FeedRecord & { periodClicks: number }> {
  const whole = firstWholeDay(args.since);
  const access = inFeedOrder ? "NOT INDEXED" : "INDEXED BY feed_click_days_by_day";
  return stmts
    .get(`WITH w AS (SELECT feed_id, sum(n) AS n FROM (
        SELECT feed_id, sum(clicks) AS n FROM feed_click_days ${access} WHERE day >= ? GROUP BY feed_id
        UNION ALL
        SELECT p.feed_id, count(*) FROM clicks k INDEXED BY clicks_by_time
          JOIN posts p INDEXED BY posts_sort_keys ON p.id = k.post_id
          WHERE k.clicked_at >= ? AND k.clicked_at < ? GROUP BY p.feed_id
      ) GROUP BY feed_id HAVING sum(n) > 0)
      SELECT ${FEED_COLUMNS}, w.n AS periodClicks FROM w JOIN feeds f ON f.id = w.feed_id ${FEED_JOINS}
      ORDER BY w.n DESC, f.id LIMIT ?`)
    .all(whole.day, args.since, whole.start, args.limit) as Array<FeedRecord & { periodClicks: number }>;
}

/** Clicks per feed in the window as its all-time clicks (schema 15) less its clicks before the window. */
export function popularByComplement(
  stmts: StatementCache,
  args: { since: number; limit: number },
): Array<FeedRecord & { periodClicks: number }> {
  return stmts
    .get(`WITH before AS (SELECT p.feed_id, count(*) AS n FROM clicks k INDEXED BY clicks_by_time
          JOIN posts p INDEXED BY posts_sort_keys ON p.id = k.post_id
          WHERE k.clicked_at < ? GROUP BY p.feed_id),
      w AS (SELECT t.feed_id, t.clicks - coalesce(b.n, 0) AS n FROM feed_click_totals t
          LEFT JOIN before b ON b.feed_id = t.feed_id)
      SELECT ${FEED_COLUMNS}, w.n AS periodClicks FROM w JOIN feeds f ON f.id = w.feed_id ${FEED_JOINS}
      WHERE w.n > 0 ORDER BY w.n DESC, f.id LIMIT ?`)
    .all(args.since, args.limit) as Array<FeedRecord & { periodClicks: number }>;
}

export function mostProlificFeeds(
  stmts: StatementCache,
  args: { since: number; limit: number },
): Array<FeedRecord & { periodPosts: number }> {
  if (args.limit === 0) return [];
  // The cheaper of two exact counts, told by counting what each would read (up to a cap): the
  // window's roll-up rows (a row per feed, day, language and category: near one per post with
  // many small feeds), or the posts dated before the window (a wide window leaves few), taken
  // from each feed's post count.
  const older = stmts
    .get("SELECT count(*) FROM (SELECT 1 FROM posts INDEXED BY posts_by_date WHERE post_date < ? LIMIT ?)")
    .pluck()
    .get(args.since, PLAN_COUNT_CAP) as number;
  const days = stmts
    .get("SELECT count(*) FROM (SELECT 1 FROM post_days WHERE day >= ? LIMIT ?)")
    .pluck()
    .get(firstWholeDay(args.since).day, older + 1) as number;
  return days <= older ? prolificByDays(stmts, args) : prolificByComplement(stmts, args);
}

/** Posts per feed in the window as the days' roll-ups count them, plus the partial first day. */
export function prolificByDays(
  stmts: StatementCache,
  args: { since: number; limit: number },
): Array<FeedRecord & { periodPosts: number }> {
  const whole = firstWholeDay(args.since);
  // The partial day is one range of each feed's (feed_id, post_date) index.
  return stmts
    .get(`WITH w AS (SELECT feed_id, sum(n) AS n FROM (
        SELECT feed_id, posts AS n FROM post_days WHERE day >= ?
        UNION ALL
        SELECT f.id, (SELECT count(*) FROM posts p WHERE p.feed_id = f.id AND p.post_date >= ? AND p.post_date < ?)
          FROM feeds f
      ) GROUP BY feed_id HAVING sum(n) > 0)
      SELECT ${FEED_COLUMNS}, w.n AS periodPosts FROM w JOIN feeds f ON f.id = w.feed_id ${FEED_JOINS}
      ORDER BY w.n DESC, f.id LIMIT ?`)
    .all(whole.day, args.since, whole.start, args.limit) as Array<FeedRecord & { periodPosts: number }>;
}

/**
 * Posts per feed in the window as each feed's post count less its posts dated before the window
 * (one range of the feed's (feed_id, post_date) index each).
 */
export function prolificByComplement(
  stmts: StatementCache,
  args: { since: number; limit: number },
): Array<FeedRecord & { periodPosts: number }> {
  return stmts
    .get(`WITH w AS (SELECT f.id AS feed_id,
        f.post_count - (SELECT count(*) FROM posts p WHERE p.feed_id = f.id AND p.post_date < ?) AS n FROM feeds f)
      SELECT ${FEED_COLUMNS}, w.n AS periodPosts FROM w JOIN feeds f ON f.id = w.feed_id ${FEED_JOINS}
      WHERE w.n > 0 ORDER BY w.n DESC, f.id LIMIT ?`)
    .all(args.since, args.limit) as Array<FeedRecord & { periodPosts: number }>;
}
