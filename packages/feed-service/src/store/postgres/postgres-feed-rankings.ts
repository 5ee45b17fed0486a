/**
 * Feeds ranked over a window on PostgreSQL (most popular: clicks on their posts; most prolific:
 * their own posts dated within it), and the window's clicks in all, which popular posts weighs.
 * A feed's count from `since` on is its total less what lies before: its running count through
 * the block of days before since's block (an element of its row of migration 27's sums,
 * postgres-running-sums.ts), its count within since's block before since's day (an element of its
 * day row of that block, where it has one) and its posts or clicks of since's own day before
 * `since`, counted from the rows (at most one day of them). So a ranking reads a row per feed,
 * one range of day rows and one day of posts or clicks, however many days the window or the
 * history spans, and no seek per feed. The counts are exact.
 */
import type { FeedRecord } from "../store.js";
import { FEED_COLUMNS, FEED_JOINS } from "./postgres-columns.js";
import { rows, type Sql } from "./postgres-connection.js";
import { SUM_BLOCK_DAYS } from "./postgres-running-sums.js";

const DAY = 86_400_000;

/** The parameters of a window from `since` ($1): since, its day's start, its block, its offset in the block. */
function windowParams(since: number): [number, number, number, number] {
  const day = Math.floor(since / DAY);
  const block = Math.floor(day / SUM_BLOCK_DAYS);
  return [since, day * DAY, block, day - block * SUM_BLOCK_DAYS];
}

/**
 * `w(feed_id, n)`: each feed's count in the window, from the sums of `of` and `partial(feed_id, n)`
 * (the rows of since's day before it). Parameters: $1 since, $2 its day's start, $3 its block,
 * $4 its day's offset in the block.
 */
function windowCounts(of: "post" | "click", partial: string): string {
  return `partial AS MATERIALIZED (${partial}),
    w AS (SELECT s.feed_id, s.through[cardinality(s.through)] - running_at(s.first_block, s.through, $3 - 1)
        - coalesce(running_at(0, d.through, $4 - 1), 0) - coalesce(x.n, 0) AS n
      FROM feed_${of}_sums s
      LEFT JOIN feed_${of}_days d ON d.block = $3 AND d.feed_id = s.feed_id
      LEFT JOIN partial x ON x.feed_id = s.feed_id)`;
}

/** Posts of since's day before it: one range of posts_by_date. */
const POSTS_BEFORE_SINCE =
  "SELECT p.feed_id, count(*) AS n FROM posts p WHERE p.post_date >= $2 AND p.post_date < $1 GROUP BY p.feed_id";

/**
 * Clicks of since's day before it: one range of clicks_by_time, each click's post looked up by id
 * (OFFSET 0 keeps the planner from reading every post to join them).
 */
const CLICKS_BEFORE_SINCE = `SELECT p.feed_id, count(*) AS n FROM clicks k
  CROSS JOIN LATERAL (SELECT feed_id FROM posts p WHERE p.id = k.post_id OFFSET 0) p
  WHERE k.clicked_at >= $2 AND k.clicked_at < $1 GROUP BY p.feed_id`;

/** The window's leaders (sorted before their feed rows are read), with their feed rows. */
function ranked<T>(
  sql: Sql,
  of: "post" | "click",
  partial: string,
  field: string,
  args: { since: number; limit: number },
) {
  return rows<FeedRecord & T>(
    sql,
    `WITH ${windowCounts(of, partial)},
      top AS (SELECT feed_id, n FROM w WHERE n > 0 ORDER BY n DESC, feed_id LIMIT $5)
    SELECT ${FEED_COLUMNS}, top.n AS "${field}" FROM top JOIN feeds f ON f.id = top.feed_id ${FEED_JOINS}
    ORDER BY top.n DESC, f.id`,
    [...windowParams(args.since), args.limit],
  );
}

export function mostPopularFeeds(
  sql: Sql,
  args: { since: number; limit: number },
): Promise<Array<FeedRecord & { periodClicks: number }>> {
  if (args.limit === 0) return Promise.resolve([]);
  return ranked<{ periodClicks: number }>(sql, "click", CLICKS_BEFORE_SINCE, "periodClicks", args);
}

/**
 * Counts the feed's own posts (as SQLite does): a story it carries as a copy of another feed's
 * post counts for that feed, not this one.
 */
export function mostProlificFeeds(
  sql: Sql,
  args: { since: number; limit: number },
): Promise<Array<FeedRecord & { periodPosts: number }>> {
  if (args.limit === 0) return Promise.resolve([]);
  return ranked<{ periodPosts: number }>(sql, "post", POSTS_BEFORE_SINCE, "periodPosts", args);
}

/** All the clicks from `since` on (exact), from the same sums. */
export async function windowClicks(sql: Sql, since: number): Promise<number> {
  const [row] = await rows<{ n: number }>(
    sql,
    `WITH ${windowCounts("click", CLICKS_BEFORE_SINCE)} SELECT coalesce(sum(n), 0)::float8 AS n FROM w`,
    windowParams(since),
  );
  return row!.n;
}

/** All the clicks: the sum of each feed's total. */
export const ALL_CLICKS =
  "SELECT coalesce(sum(through[cardinality(through)]), 0)::float8 AS n FROM feed_click_sums";
