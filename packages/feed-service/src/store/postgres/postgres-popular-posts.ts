/**
 * Most popular posts (operation 6) with a cost bounded whatever the window. Three exact ways:
 *
 * - a window that starts at or before the first click: every post's window count is its all-time
 *   counter, so the answer is the first `limit` posts of the clicks index, read in one statement;
 * - a short window (few clicks in it, as `click_days` says): count the window's clicks per post;
 * - a long one: walk the posts by all-time clicks (most first, then newest), each post's window
 *   count being its all-time counter less its clicks before the window (an index probe), and stop
 *   once no later post can enter the top `limit`: the walk's all-time counts only fall, and a
 *   window count never exceeds the all-time one. When the window's clicks are spread so thinly
 *   that the walk goes on past its budget, the counting way finishes the job.
 *
 * Order (spec §4): window clicks descending, ties newest first (post_date, then id, descending).
 */

import type { PostRecord } from "../store.js";
import { NEWEST_FIRST, POST_COLUMNS, POST_JOINS } from "./postgres-columns.js";
import { rows, type Sql } from "./postgres-connection.js";

/** Windows with at most this many clicks are counted directly. */
const COUNT_DIRECTLY_UP_TO = 90_000;
/** Posts the walk reads per statement. */
const WALK_BATCH = 500;
/** Posts the walk may read before it hands over to counting. */
const WALK_BUDGET = 12_000;

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

async function countWindow(
  sql: Sql,
  args: { since: number; limit: number; categoryId: number | null },
): Promise<Array<{ id: number; period: number }>> {
  const windowed =
    "w AS MATERIALIZED (SELECT post_id, count(*) AS n FROM clicks WHERE clicked_at >= $1 GROUP BY post_id)";
  if (args.categoryId !== null) {
    // A plain join, so that the planner may read the category's clicked posts from
    // posts_by_category_clicks alone and hash them (`p.clicks > 0` holds for every clicked post
    // and lets it use that partial index): a probe of every windowed post took 98 ms for 89,000
    // clicks in category 1 of the 1M demo, the hash join 24.
    return rows(
      sql,
      `WITH ${windowed}
        SELECT w.post_id AS id, w.n AS period FROM w JOIN posts p ON p.id = w.post_id
        WHERE p.category_id = $3 AND p.clicks > 0
        ORDER BY w.n DESC, p.post_date DESC, w.post_id DESC LIMIT $2`,
      [args.since, args.limit, args.categoryId],
    );
  }
  // Without a category, only posts with at least the limit-th highest count can make the top,
  // so only those are looked up (for their dates, the tie-breaker). OFFSET 0 keeps the lookup a
  // probe per post: joined, the planner would rather read every post.
  return rows(
    sql,
    `WITH ${windowed},
        cut AS (SELECT coalesce((SELECT n FROM w ORDER BY n DESC OFFSET $2 - 1 LIMIT 1), 1) AS n)
      SELECT w.post_id AS id, w.n AS period FROM w CROSS JOIN cut
        CROSS JOIN LATERAL (SELECT p.post_date FROM posts p WHERE p.id = w.post_id OFFSET 0) p
      WHERE w.n >= cut.n
      ORDER BY w.n DESC, p.post_date DESC, w.post_id DESC LIMIT $2`,
    [args.since, args.limit],
  );
}

/** The first `limit` posts by all-time clicks (ties newest first), through posts_by_clicks. */
function allTimeTopPosts(
  sql: Sql,
  args: { limit: number; categoryId: number | null },
): Promise<Array<PostRecord & { periodClicks: number }>> {
  const category = args.categoryId === null ? "" : "AND p.category_id = $2";
  return rows(
    sql,
    `SELECT ${POST_COLUMNS}, p.clicks AS "periodClicks" FROM posts p ${POST_JOINS}
      WHERE p.clicks > 0 ${category} ORDER BY p.clicks DESC, ${NEWEST_FIRST} LIMIT $1`,
    args.categoryId === null ? [args.limit] : [args.limit, args.categoryId],
  );
}

/**
 * The top `limit` of a window that starts after the first click, by walking; null when the walk
 * ran past its budget.
 */
async function walkTopPosts(
  sql: Sql,
  args: { since: number; limit: number; categoryId: number | null },
): Promise<Ranked[] | null> {
  const top: Ranked[] = [];
  let cursor: Ranked | null = null;
  for (let read = 0; read < WALK_BUDGET; read += WALK_BATCH) {
    const params: unknown[] = [WALK_BATCH, args.since];
    const period = "p.clicks - (SELECT count(*) FROM clicks k WHERE k.post_id = p.id AND k.clicked_at < $2)";
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
    const batch = await rows<Ranked>(
      sql,
      `SELECT p.id, p.clicks, p.post_date, ${period} AS period FROM posts p WHERE ${conditions.join(" AND ")}
        ORDER BY p.clicks DESC, ${NEWEST_FIRST} LIMIT $1`,
      params,
    );
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
    if (batch.length < WALK_BATCH) return top;
    cursor = batch[batch.length - 1]!;
  }
  return null;
}

export async function mostPopularPosts(
  sql: Sql,
  args: { since: number; limit: number; categoryId: number | null },
): Promise<Array<PostRecord & { periodClicks: number }>> {
  if (args.limit === 0) return [];
  const [first] = await rows<{ at: number | null }>(sql, "SELECT min(clicked_at) AS at FROM clicks");
  if (first!.at === null) return [];
  if (args.since <= first!.at) return allTimeTopPosts(sql, args);
  const [window] = await rows<{ n: number }>(
    sql,
    "SELECT coalesce(sum(clicks), 0) AS n FROM click_days WHERE day >= post_day($1)",
    [args.since],
  );
  const ranked =
    window!.n <= COUNT_DIRECTLY_UP_TO
      ? await countWindow(sql, args)
      : ((await walkTopPosts(sql, args)) ?? (await countWindow(sql, args)));
  if (ranked.length === 0) return [];
  const found = await rows<PostRecord>(
    sql,
    `SELECT ${POST_COLUMNS} FROM posts p ${POST_JOINS} WHERE p.id = ANY($1::int[])`,
    [ranked.map((r) => r.id)],
  );
  const byId = new Map(found.map((r) => [r.postId, r]));
  return ranked.flatMap((r) => {
    const post = byId.get(r.id);
    return post ? [{ ...post, periodClicks: r.period }] : [];
  });
}
