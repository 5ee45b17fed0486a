/**
 * Feeds ranked over a window on SQLite (most popular: clicks on their posts; most prolific: posts
 * dated within it). A feed's count from `since` on is its all-time total less what lies before:
 * the running sums of schema 21 (sqlite-running-sums-schema.ts) give its count up to the end of
 * the last block of days before since's block and, within that block, up to the day before
 * since's day, a seek each; the posts or clicks of since's own day before `since` are counted
 * from the rows (at most one day of them). So a ranking reads two seeks per feed and one day of
 * rows, however many days the window or the history spans. The counts are exact.
 */
import type { FeedRecord } from "../store.js";
import { FEED_COLUMNS, FEED_JOINS, feedRecord } from "./sqlite-columns.js";
import type { StatementCache } from "./sqlite-connection.js";
import { SUM_BLOCK_DAYS } from "./sqlite-running-sums-schema.js";

const DAY = 86_400_000;

/**
 * Reads the running sums of posts and clicks and the day counts whole, into the connection's page
 * cache: a query thread's warm-up (spec §4 Latency: every feed's and day's rows, no window in
 * particular). A ranking seeks two rows per feed, each in a leaf of its own on a first call, and
 * a deep page of a list adds up day counts. Returns the rows read.
 */
export function readRankingTables(stmts: StatementCache): number {
  let rows = 0;
  for (const table of ["feed_post_sums", "feed_click_sums", "post_day_counts"]) {
    // NOT INDEXED: count(*) would otherwise walk the smallest covering index (for the day counts,
    // post_day_counts_by_category), not the table's own b-tree that the reads seek.
    rows += stmts.get(`SELECT count(*) FROM ${table} NOT INDEXED`).pluck().get() as number;
  }
  return rows;
}

/** The day that holds `since`, where it starts, and the first day of its block of the sums. */
function windowStart(since: number): { day: number; dayStart: number; blockStart: number } {
  const day = Math.floor(since / DAY);
  return { day, dayStart: day * DAY, blockStart: Math.floor(day / SUM_BLOCK_DAYS) * SUM_BLOCK_DAYS };
}

/**
 * Each feed's count in `table` (a running-sums table) from `since` on, as `w(feed_id, n)`:
 * `partial` is the SQL of the count of a feed `t.feed_id`'s posts or clicks on since's day before
 * it. A feed whose days all lie after since's day (its `lo`) counts whole, one whose days all
 * lie before it (`hi`) not at all, without a seek. Materialized: each feed's seeks run once, not
 * again for every use of `n`.
 */
function fromSums(table: string, partial: string): string {
  return `w AS MATERIALIZED (SELECT t.feed_id, t.n - CASE WHEN t.lo > $day THEN 0 ELSE
        coalesce((SELECT b.through FROM ${table} b WHERE b.level = 1 AND b.feed_id = t.feed_id
          AND b.period < $blockStart / ${SUM_BLOCK_DAYS} ORDER BY b.period DESC LIMIT 1), 0)
        + coalesce((SELECT d.through FROM ${table} d WHERE d.level = 0 AND d.feed_id = t.feed_id
          AND d.period >= $blockStart AND d.period < $day ORDER BY d.period DESC LIMIT 1), 0)
        + ${partial} END AS n
    FROM ${table} t WHERE t.level = 2 AND t.hi >= $day)`;
}

/** The partial day's count of a feed from `partial(feed_id, n)`, counted across feeds beforehand. */
const FROM_PARTIAL = "coalesce((SELECT x.n FROM partial x WHERE x.feed_id = t.feed_id), 0)";

/** The window's leaders, sorted before their feed rows are read. */
const TOP = "(SELECT feed_id, n FROM w WHERE n > 0 ORDER BY n DESC, feed_id LIMIT $limit) AS top";

export function mostPopularFeeds(
  stmts: StatementCache,
  args: { since: number; limit: number },
): Array<FeedRecord & { periodClicks: number }> {
  if (args.limit === 0) return [];
  const start = windowStart(args.since);
  // The partial day's clicks, each joined to its post for the feed. Raw rows, as the feed lists'.
  const rows = stmts
    .get(`WITH partial AS MATERIALIZED (SELECT p.feed_id, count(*) AS n FROM clicks k INDEXED BY clicks_by_time
          JOIN posts p INDEXED BY posts_sort_keys ON p.id = k.post_id
          WHERE k.clicked_at >= $dayStart AND k.clicked_at < $since GROUP BY p.feed_id),
        ${fromSums("feed_click_sums", FROM_PARTIAL)}
      SELECT ${FEED_COLUMNS}, top.n AS periodClicks FROM ${TOP} JOIN feeds f ON f.id = top.feed_id ${FEED_JOINS}
      ORDER BY top.n DESC, f.id`)
    .raw()
    .all({ ...start, since: args.since, limit: args.limit }) as unknown[][];
  return rows.map((cells) => ({ ...feedRecord(cells), periodClicks: cells[10] as number }));
}

export function mostProlificFeeds(
  stmts: StatementCache,
  args: { since: number; limit: number },
): Array<FeedRecord & { periodPosts: number }> {
  if (args.limit === 0) return [];
  const start = windowStart(args.since);
  // The partial day's posts: read in date order and joined to their feed when the day holds fewer
  // posts than there are feeds (the day counts of schema 15 tell), else a range of each feed's
  // (feed_id, post_date) index.
  const dayPosts = stmts
    .get("SELECT coalesce(sum(posts), 0) FROM post_day_counts WHERE day = ?")
    .pluck()
    .get(start.day) as number;
  const feeds = stmts.get("SELECT count(*) FROM feed_post_sums WHERE level = 2").pluck().get() as number;
  const global = dayPosts < feeds;
  const partial = global
    ? `partial AS MATERIALIZED (SELECT k.feed_id, count(*) AS n FROM posts d INDEXED BY posts_by_date
          JOIN posts k INDEXED BY posts_sort_keys ON k.id = d.id
          WHERE d.post_date >= $dayStart AND d.post_date < $since GROUP BY k.feed_id),`
    : "";
  const perFeed = `(SELECT count(*) FROM posts p INDEXED BY posts_by_feed WHERE p.feed_id = t.feed_id
      AND p.post_date >= $dayStart AND p.post_date < $since)`;
  const rows = stmts
    .get(`WITH ${partial} ${fromSums("feed_post_sums", global ? FROM_PARTIAL : perFeed)}
      SELECT ${FEED_COLUMNS}, top.n AS periodPosts FROM ${TOP} JOIN feeds f ON f.id = top.feed_id ${FEED_JOINS}
      ORDER BY top.n DESC, f.id`)
    .raw()
    .all({ ...start, since: args.since, limit: args.limit }) as unknown[][];
  return rows.map((cells) => ({ ...feedRecord(cells), periodPosts: cells[10] as number }));
}
