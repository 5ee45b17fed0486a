/**
 * Most popular posts over a window that ends now (operation 6) on SQLite, exactly, from each
 * clicked post's n-th newest clicks (migration 26, sqlite-click-levels.ts): the posts with at
 * least n clicks in the window are one range of `post_click_levels_by_time`, so the page is read
 * from the few levels that hold it, whatever share of all clicks the window holds. Before, a long
 * window walked the posts by all-time clicks, a weak bound when many of those clicks are older
 * than the window, and a short one scanned its clicks (bench/NOTES.md, sqlitepop31c).
 */
import type { PostRecord } from "../store.js";
import { CLICK_LEVELS, CONSECUTIVE_LEVELS } from "./sqlite-click-levels.js";
import type { StatementCache } from "./sqlite-connection.js";
import { postsInOrder } from "./sqlite-post-queries.js";

/** A ranked post: id, window clicks, post_date. */
type Ranked = [id: number, n: number, date: number];

/**
 * The ranking read from each post's n-th newest clicks (migration 26, sqlite-click-levels.ts): a
 * post has at least n clicks in the window exactly when its level-n row is at or after `since`.
 * The levels are counted from the highest down to the first that holds `limit` posts; every post
 * of the page is at that level or above, so the page is read from those levels alone: a post's
 * window count is its highest level there while the levels are consecutive, else read from its
 * clicks' ordinals (between that level and the next; migration 27). The work is the page's posts
 * at each of those levels, whatever share of all clicks the window holds.
 */
export function rankByLevels(stmts: StatementCache, args: Args): Ranked[] {
  // A category is one key of the index; every category is each key in turn, 0 for posts with none.
  const scope =
    args.categoryId === null
      ? "category_key IN (SELECT 0 UNION ALL SELECT id FROM categories)"
      : "category_key = $category";
  const values = { since: args.since, ...(args.categoryId === null ? {} : { category: args.categoryId }) };
  const top = stmts
    .get("SELECT max(level) FROM post_click_levels INDEXED BY post_click_levels_by_time")
    .pluck()
    .get() as number | null;
  if (top === null) return [];
  const count = stmts
    .get(`SELECT count(*) FROM post_click_levels INDEXED BY post_click_levels_by_time
      WHERE level = $level AND ${scope} AND clicked_at >= $since`)
    .pluck();
  const levels: number[] = [];
  for (const level of CLICK_LEVELS.filter((l) => l <= top).reverse()) {
    levels.push(level);
    if ((count.get({ ...values, level }) as number) >= args.limit) break;
  }
  // Past the consecutive levels a post's count is the newest click's ordinal minus that of its
  // first click in the window, plus one (migration 27, sqlite-click-ordinals.ts): two seeks.
  const ordinal = (
    where: string,
    order: string,
  ) => `(SELECT ordinal FROM clicks INDEXED BY clicks_by_post_time
    WHERE post_id = c.post_id${where} ORDER BY clicked_at ${order}, ordinal ${order} LIMIT 1)`;
  return stmts
    .get(`WITH c AS MATERIALIZED (SELECT post_id, max(level) AS level, post_date
        FROM post_click_levels INDEXED BY post_click_levels_by_time
        WHERE level IN (SELECT value FROM json_each($levels)) AND ${scope} AND clicked_at >= $since
        GROUP BY post_id)
      SELECT c.post_id, CASE WHEN c.level < ${CONSECUTIVE_LEVELS} THEN c.level
          ELSE ${ordinal("", "DESC")} - ${ordinal(" AND clicked_at >= $since", "")} + 1 END AS n,
        c.post_date
      FROM c ORDER BY n DESC, c.post_date DESC, c.post_id DESC LIMIT $limit`)
    .raw()
    .all({ ...values, levels: JSON.stringify(levels), limit: args.limit }) as Ranked[];
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
  const ranked = rankByLevels(stmts, args);
  // By id, not by position: a post deleted by another process between the two statements would
  // otherwise shift every later count onto the wrong row.
  const counts = new Map(ranked.map(([id, n]) => [id, n]));
  return postsInOrder(stmts, [...counts.keys()]).map((row) => ({
    ...row,
    periodClicks: counts.get(row.postId)!,
  }));
}
