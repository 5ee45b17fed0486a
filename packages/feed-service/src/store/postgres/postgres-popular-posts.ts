/**
 * Most popular posts (operation 6) with a cost bounded whatever the window. Three exact ways:
 *
 * - a window that starts at or before the first click: every post's window count is its all-time
 *   counter, so the answer is the first `limit` posts of clicked_posts by clicks, in one statement;
 * - a short window (few clicks in it, as the feeds' running sums say): count the window's clicks per post;
 * - a long one: walk the posts by all-time clicks (most first, then newest), each post's window
 *   count read from an index probe (its clicks in the window, or its all-time counter less its
 *   clicks before the window, whichever side holds fewer), and stop once no later post can enter
 *   the top `limit`: the walk's all-time counts only fall, and a window count never exceeds the
 *   all-time one. When the window's clicks are spread so thinly that the walk goes on past its
 *   budget, the counting way finishes the job.
 *
 * Before either of the last two, the posts' n-th newest clicks kept by a refresh (migration 60,
 * postgres-click-levels.ts) rank any such window from the posts that can make the page, exactly,
 * whenever the refreshed rows are usable; the ways above are the fallback.
 *
 * The answer's columns come in the counting statement itself, or in one more after a walk.
 *
 * Order (spec §4): window clicks descending, ties newest first (post_date, then id, descending).
 */

import type { PostRecord } from "../store.js";
import { rankByClickLevels } from "./postgres-click-levels.js";
import { NEWEST_FIRST, POST_COLUMNS, POST_JOINS, POST_ROW } from "./postgres-columns.js";
import { rows, type Sql } from "./postgres-connection.js";
import { ALL_CLICKS, windowClicks } from "./postgres-feed-rankings.js";
import {
  ALL_CLICKS_TTL_MS,
  CATEGORY_WALK_POST_COST,
  MIN_WALK_POSTS,
  WALK_BATCH,
  WALK_POST_COST,
} from "./postgres-plan-costs.js";
import { type Reading, reused } from "./postgres-reused-reading.js";

/** How the cost is weighed; tests set the weights to reach every way on a small database. */
export interface PopularPostsTuning {
  /** A walked post's cost in window clicks counted (postgres-plan-costs.ts). */
  walkPostCost: number;
  /** The same within a category. */
  categoryWalkPostCost: number;
  /** Posts the walk reads per statement until its top is full. */
  walkBatch: number;
  /** A walk is begun only when it may read more posts than this (postgres-plan-costs.ts). */
  minWalk: number;
  /** Posts the walk may read before it hands over to counting; by default what counting costs. */
  walkBudget?: number;
  /** Rank from the refreshed click levels when they are usable (the store's way; tests turn it off to reach the others). */
  clickLevels?: boolean;
}

const TUNING: PopularPostsTuning = {
  walkPostCost: WALK_POST_COST,
  categoryWalkPostCost: CATEGORY_WALK_POST_COST,
  walkBatch: WALK_BATCH,
  minWalk: MIN_WALK_POSTS,
  clickLevels: true,
};

type PopularPost = PostRecord & { periodClicks: number };

interface Ranked {
  id: number;
  clicks: number;
  post_date: number;
  period: number;
}

function before(a: Ranked, b: Ranked): boolean {
  if (a.period !== b.period) return a.period > b.period;
  if (a.post_date !== b.post_date) return a.post_date > b.post_date;
  return a.id > b.id;
}

/** Counts the window's clicks per post; the posts come with their columns, in one statement. */
function countWindow(
  sql: Sql,
  args: { since: number; limit: number; categoryId: number | null },
): Promise<PopularPost[]> {
  const windowed =
    "w AS MATERIALIZED (SELECT post_id, count(*) AS n FROM clicks WHERE clicked_at >= $1 GROUP BY post_id)";
  const answer = `SELECT ${POST_COLUMNS}, p.period AS "periodClicks" FROM ranked p ${POST_JOINS}
    ORDER BY p.period DESC, ${NEWEST_FIRST}`;
  if (args.categoryId !== null) {
    // A plain join, so that the planner may read the category's clicked posts from
    // clicked_posts_by_category alone and hash them instead of probing every windowed post
    // (figures in bench/NOTES.md). The top's columns are read after.
    return rows(
      sql,
      `WITH ${windowed},
        top AS (SELECT w.post_id AS id, w.n AS period FROM w JOIN clicked_posts p ON p.id = w.post_id
          WHERE p.category_id = $3
          ORDER BY w.n DESC, p.post_date DESC, w.post_id DESC LIMIT $2),
        ranked AS (SELECT ${POST_ROW}, top.period FROM top JOIN posts p ON p.id = top.id)
      ${answer}`,
      [args.since, args.limit, args.categoryId],
    );
  }
  // Without a category, only posts with at least the limit-th highest count can make the top,
  // so only those are looked up (for their dates, the tie-breaker, and their columns). OFFSET 0
  // keeps the lookup a probe per post: joined, the planner would rather read every post.
  return rows(
    sql,
    `WITH ${windowed},
        cut AS (SELECT coalesce((SELECT n FROM w ORDER BY n DESC OFFSET $2 - 1 LIMIT 1), 1) AS n),
        ranked AS (SELECT p.*, w.n AS period FROM w CROSS JOIN cut
          CROSS JOIN LATERAL (SELECT ${POST_ROW} FROM posts p WHERE p.id = w.post_id OFFSET 0) p
          WHERE w.n >= cut.n ORDER BY w.n DESC, p.post_date DESC, p.id DESC LIMIT $2)
      ${answer}`,
    [args.since, args.limit],
  );
}

/** The first `limit` posts by all-time clicks (ties newest first), through clicked_posts. */
function allTimeTopPosts(
  sql: Sql,
  args: { limit: number; categoryId: number | null },
): Promise<PopularPost[]> {
  const category = args.categoryId === null ? "" : "WHERE k.category_id = $2";
  return rows(
    sql,
    `WITH top AS (SELECT k.id, k.clicks FROM clicked_posts k ${category}
        ORDER BY k.clicks DESC, k.post_date DESC, k.id DESC LIMIT $1)
      SELECT ${POST_COLUMNS}, p.clicks AS "periodClicks" FROM top JOIN posts p ON p.id = top.id ${POST_JOINS}
      ORDER BY p.clicks DESC, ${NEWEST_FIRST}`,
    args.categoryId === null ? [args.limit] : [args.limit, args.categoryId],
  );
}

/**
 * The top `limit` of a window that starts after the first click, by walking; null when the walk
 * would read more than its budget. `countWithin`: a post's window count is counted among its
 * clicks in the window (fewer index entries when the window holds under half of all clicks), else
 * it is the all-time counter less the clicks before the window.
 */
async function walkTopPosts(
  sql: Sql,
  args: { since: number; limit: number; categoryId: number | null },
  countWithin: boolean,
  tuning: { walkBatch: number; walkBudget: number },
): Promise<Ranked[] | null> {
  const { walkBatch, walkBudget } = tuning;
  const top: Ranked[] = [];
  let cursor: Ranked | null = null;
  let read = 0;
  const period = countWithin
    ? "(SELECT count(*) FROM clicks k WHERE k.post_id = p.id AND k.clicked_at >= $1)"
    : "p.clicks - (SELECT count(*) FROM clicks k WHERE k.post_id = p.id AND k.clicked_at < $1)";
  for (;;) {
    const params: unknown[] = [args.since];
    const conditions = ["p.clicks > 0"];
    if (args.categoryId !== null) {
      params.push(args.categoryId);
      conditions.push(`p.category_id = $${params.length}`);
    }
    if (cursor) {
      params.push(cursor.clicks, cursor.post_date, cursor.id);
      const n = params.length;
      conditions.push(`(p.clicks, p.post_date, p.id) < ($${n - 2}, $${n - 1}, $${n})`);
    }
    // Once the top is full, only posts whose all-time count reaches its last window count can
    // still enter it (a window count never exceeds the all-time one), so a batch ends there. The
    // walk goes on batch by batch: each raises the top's last count, and with it that bound.
    const floor = top.length === args.limit ? top[top.length - 1]!.period : null;
    if (floor !== null) {
      params.push(floor);
      conditions.push(`p.clicks >= $${params.length}`);
    }
    const size = Math.min(walkBatch, walkBudget - read);
    params.push(size);
    const batch = await rows<Ranked>(
      sql,
      `SELECT p.id, p.clicks, p.post_date, ${period} AS period FROM clicked_posts p WHERE ${conditions.join(" AND ")}
        ORDER BY p.clicks DESC, ${NEWEST_FIRST} LIMIT $${params.length}`,
      params,
    );
    read += batch.length;
    for (const post of batch) {
      const last = top.length === args.limit ? top[top.length - 1]! : null;
      // The best this post (and, in walk order, every later one) can do is a window count equal
      // to its all-time count; when even that cannot beat the last of a full top, the top is final.
      if (last && !before({ ...post, period: post.clicks }, last)) return top;
      if (post.period <= 0 || (last && !before(post, last))) continue;
      let at = top.length;
      while (at > 0 && before(post, top[at - 1]!)) at--;
      top.splice(at, 0, post);
      if (top.length > args.limit) top.pop();
    }
    if (batch.length < size) return top;
    if (read >= walkBudget) return null;
    cursor = batch[batch.length - 1]!;
  }
}

/** The walked top with the posts' columns, in its order. */
function withColumns(
  sql: Sql,
  ranked: ReadonlyArray<{ id: number; period: number }>,
): Promise<PopularPost[]> {
  if (ranked.length === 0) return Promise.resolve([]);
  return rows(
    sql,
    `SELECT ${POST_COLUMNS}, r.period AS "periodClicks"
      FROM unnest($1::int[], $2::int[]) AS r(id, period) JOIN posts p ON p.id = r.id ${POST_JOINS}
      ORDER BY r.period DESC, ${NEWEST_FIRST}`,
    [ranked.map((r) => r.id), ranked.map((r) => r.period)],
  );
}

const totals = new WeakMap<Sql, Map<string, Reading<number>>>();

/**
 * The total of all clicks, which only a walk needs (to pick its probe): reused for a minute, as a
 * stale total can only pick the slower probe, while reading it reads a row per feed
 * (feed_click_sums, which the clicks' updates bloat: https://www.postgresql.org/docs/current/routine-vacuuming.html).
 */
export function allClicks(sql: Sql, now: () => number = Date.now): Promise<number> {
  return reused(totals, sql, "", ALL_CLICKS_TTL_MS, now, async () => {
    const [all] = await rows<{ n: number }>(sql, ALL_CLICKS);
    return Number(all!.n);
  });
}

/**
 * Answers popular posts once in each of the ways a window can take (counted, walked counting the
 * window's clicks, walked subtracting the clicks before it; with no category and in the first
 * one), for nothing, so that a connection's first such call does not pay for preparing their
 * statements (figures in bench/NOTES.md). The windows are the newest clicks in the numbers that
 * lead to each way; a way the database has too few clicks for is skipped.
 */
export async function warmPopularPosts(sql: Sql, tuning: PopularPostsTuning = TUNING): Promise<void> {
  const [all, categories] = await Promise.all([
    allClicks(sql),
    rows<{ id: number }>(sql, "SELECT id FROM categories ORDER BY id LIMIT 1"),
  ]);
  // The window sizes where counting gives way to walking, with and without a category.
  const [low, high] = [tuning.walkPostCost, tuning.categoryWalkPostCost]
    .map((cost) => Math.floor(tuning.minWalk * cost))
    .sort((a, b) => a - b);
  const newest = [Math.floor(low! / 2), high! + 1, Math.floor((all * 3) / 4)].filter(
    (n) => n > 0 && n <= all,
  );
  for (const n of newest) {
    const [start] = await rows<{ at: number }>(
      sql,
      "SELECT clicked_at AS at FROM clicks ORDER BY clicked_at DESC OFFSET $1 LIMIT 1",
      [n - 1],
    );
    if (start === undefined) continue;
    for (const categoryId of [null, ...categories.map((c) => c.id)]) {
      // The limit is a parameter of every statement: the least one prepares them all. With the
      // click levels and without them: a read falls back to the other ways while they lag.
      for (const clickLevels of tuning.clickLevels ? [true, false] : [false]) {
        await mostPopularPosts(
          sql,
          { since: Number(start.at), limit: 1, categoryId },
          { ...tuning, clickLevels },
        );
      }
    }
  }
}

export async function mostPopularPosts(
  sql: Sql,
  args: { since: number; limit: number; categoryId: number | null },
  tuning: PopularPostsTuning = TUNING,
  /** Told when the refreshed click levels were not usable (too far behind, or a post marked). */
  onLevelsStale: () => void = () => {},
): Promise<PopularPost[]> {
  if (args.limit === 0) return [];
  const [first] = await rows<{ at: number | null }>(sql, "SELECT min(clicked_at) AS at FROM clicks");
  if (first!.at === null) return [];
  if (args.since <= first!.at) return allTimeTopPosts(sql, args);
  // The window's clicks from the feeds' running sums (postgres-feed-rankings.ts): a row per feed.
  const clicks = await windowClicks(sql, args.since);
  if (tuning.clickLevels) {
    // A post counted from its clicks takes the probe with fewer entries, as the walk does.
    const countWithin = clicks * 2 < (await allClicks(sql));
    const ranked = await rankByClickLevels(sql, { ...args, countWithin });
    if (ranked !== null) return withColumns(sql, ranked);
    onLevelsStale();
  }
  // Counting costs the window's clicks; a walk may read as many posts as cost that much before
  // it hands over, so a wrong choice costs at most twice the right one.
  const cost = args.categoryId === null ? tuning.walkPostCost : tuning.categoryWalkPostCost;
  const budget = tuning.walkBudget ?? (cost > 0 ? Math.floor(clicks / cost) : Number.MAX_SAFE_INTEGER);
  if (clicks === 0 || budget <= tuning.minWalk) return countWindow(sql, args);
  const walked = await walkTopPosts(sql, args, clicks * 2 < (await allClicks(sql)), {
    ...tuning,
    walkBudget: budget,
  });
  return walked === null ? countWindow(sql, args) : withColumns(sql, walked);
}
