/**
 * Migration 30: a refresh's new posts counted into the roll-ups once per transaction instead of
 * row by row. The posts' triggers (sqlite-running-sums-schema.ts: the day counts, the running sums
 * of posts, the day ranks) keep every writer's rows counted, other connections and SQL by hand
 * included; but a refresh paid for them post by post, a trigger program with its own seeks into
 * each of three tables (figures in bench/NOTES.md), where its posts fall into a few days of a few
 * feeds.
 *
 * The hold: inside its write transaction the writer puts one row in `posts_rollup_hold`, the
 * largest post id there was (`from_id`). While it is there the triggers pass over every post above
 * that id, on insert, update and delete alike; before the transaction ends the writer counts the
 * posts above it as they then are, a few statements per table (`settlePostRollups`), and takes the
 * row out. So each post is counted by exactly one of the two: a post at or below `from_id` by the
 * triggers all its life, one above it (inserted under the hold: new ids are the largest) by the
 * settlement in its final state. The row is never committed, so other connections never see it
 * and their writes fire the triggers as before; a crash rolls it back with the posts.
 *
 * A held post ranks after every other post of its day, language and category (its id is larger),
 * so its rank is the group's count before it (the rank of the group's last row) plus its place
 * among the held ones. A running sum's `through` is the sum of `n` up to its row (within the block
 * at level 0, over the blocks at level 1): settled by adding the held posts' counts to `n` and
 * summing again from the earliest day (block) a feed's held posts touch.
 */
import type Database from "better-sqlite3";
import type { StatementCache } from "./sqlite-connection.js";
import { postRollupTriggers, SUM_BLOCK_DAYS } from "./sqlite-running-sums-schema.js";

/** floor(x / 1 day) for epoch milliseconds, before 1970 too (SQLite's `/` truncates toward zero). */
const day = (x: string) => `(${x} / 86400000 - (${x} % 86400000 < 0))`;
const block = (d: string) => `(${d} / ${SUM_BLOCK_DAYS} - (${d} % ${SUM_BLOCK_DAYS} < 0))`;

/** Migration 30: the hold's table, and the posts' roll-up triggers made again to pass over held posts. */
export function holdPostRollups(db: Database.Database): void {
  db.exec(`CREATE TABLE IF NOT EXISTS posts_rollup_hold (from_id INTEGER NOT NULL);
    ${postRollupTriggers((row) => `NOT EXISTS (SELECT 1 FROM posts_rollup_hold WHERE from_id < ${row}.id)`)}`);
}

/** The held posts' roll-up keys: posts_sort_keys is keyed by id and holds every column read. */
const HELD = `held AS (SELECT id, feed_id, language_id, coalesce(category_id, 0) AS c, ${day("post_date")} AS d
  FROM posts INDEXED BY posts_sort_keys WHERE id > (SELECT from_id FROM posts_rollup_hold))`;

/**
 * The rows whose `through` the held posts change, with its new value: summed again from `starts`
 * (feed_id, lo, b: the earliest changed period, and the block it lies in at level 0), from the row
 * before it that the held posts leave as it was. CROSS JOIN keeps `starts` outside: the planner
 * would otherwise walk every feed's rows of the level and filter them.
 */
const resum = (level: 0 | 1, starts: string) => {
  const within = level === 0 ? `AND p.period < (s.b + 1) * ${SUM_BLOCK_DAYS}` : "";
  const before = level === 0 ? `AND q.period >= s.b * ${SUM_BLOCK_DAYS}` : "";
  return `WITH ${HELD}, starts AS (${starts})
  SELECT f, period, t FROM (SELECT s.feed_id AS f, p.period AS period, p.through AS through,
      coalesce((SELECT q.through FROM feed_post_sums q WHERE q.level = ${level} AND q.feed_id = s.feed_id
        AND q.period < s.lo ${before} ORDER BY q.period DESC LIMIT 1), 0)
      + sum(p.n) OVER (PARTITION BY s.feed_id, s.b ORDER BY p.period) AS t
    FROM starts s CROSS JOIN feed_post_sums p
    WHERE p.level = ${level} AND p.feed_id = s.feed_id AND p.period >= s.lo ${within})
  WHERE through <> t`;
};

const RESET_THROUGH = "UPDATE feed_post_sums SET through = ? WHERE level = ? AND feed_id = ? AND period = ?";

const SETTLE: ReadonlyArray<string | readonly [level: 0 | 1, sql: string]> = [
  `WITH ${HELD} INSERT INTO post_day_counts (day, language_id, category_id, posts, min_id, max_id)
    SELECT d, language_id, c, count(*), min(id), max(id) FROM held WHERE true GROUP BY d, language_id, c
    ON CONFLICT (day, language_id, category_id) DO UPDATE SET posts = posts + excluded.posts,
      min_id = min(min_id, excluded.min_id), max_id = max(max_id, excluded.max_id)`,
  `WITH ${HELD} INSERT INTO post_day_ranks (category_id, language_id, day, id, rank)
    SELECT h.c, h.language_id, h.d, h.id,
      coalesce((SELECT r.rank FROM post_day_ranks r WHERE r.category_id = h.c AND r.language_id = h.language_id
        AND r.day = h.d ORDER BY r.id DESC LIMIT 1), 0)
      + row_number() OVER (PARTITION BY h.c, h.language_id, h.d ORDER BY h.id)
    FROM held h`,
  `WITH ${HELD} INSERT INTO feed_post_sums (level, feed_id, period, n, through)
    SELECT 0, feed_id, d, count(*), 0 FROM held WHERE true GROUP BY feed_id, d
    ON CONFLICT (level, feed_id, period) DO UPDATE SET n = n + excluded.n`,
  [0, resum(0, `SELECT feed_id, min(d) AS lo, ${block("d")} AS b FROM held GROUP BY feed_id, b`)],
  `WITH ${HELD} INSERT INTO feed_post_sums (level, feed_id, period, n, through)
    SELECT 1, feed_id, ${block("d")}, count(*), 0 FROM held WHERE true GROUP BY 1, 2, 3
    ON CONFLICT (level, feed_id, period) DO UPDATE SET n = n + excluded.n`,
  [1, resum(1, `SELECT feed_id, min(${block("d")}) AS lo, 0 AS b FROM held GROUP BY feed_id`)],
  `WITH ${HELD} INSERT INTO feed_post_sums (level, feed_id, period, n, through, lo, hi)
    SELECT 2, feed_id, 0, count(*), count(*), min(d), max(d) FROM held WHERE true GROUP BY feed_id
    ON CONFLICT (level, feed_id, period) DO UPDATE SET n = n + excluded.n, through = through + excluded.through,
      lo = min(lo, excluded.lo), hi = max(hi, excluded.hi)`,
  "DELETE FROM posts_rollup_hold",
];

/** Whether each connection's database has the hold, by the schema version it was asked at. */
const holding = new WeakMap<Database.Database, { schema: number; has: boolean }>();

/**
 * Starts the hold inside the caller's write transaction: true when this call holds, and the caller
 * then settles; false (the triggers count every post) on a database below schema 30.
 */
export function holdRollups(stmts: StatementCache): boolean {
  const db = stmts.database;
  const schema = stmts.get("SELECT schema_version FROM pragma_schema_version").pluck().get() as number;
  let seen = holding.get(db);
  if (seen?.schema !== schema) {
    const has = stmts
      .get("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'posts_rollup_hold'")
      .get();
    seen = { schema, has: has !== undefined };
    holding.set(db, seen);
  }
  if (!seen.has) return false;
  // A hold already open (a refresh inside another's transaction) is the outer writer's to settle.
  return (
    stmts
      .get(`INSERT INTO posts_rollup_hold (from_id) SELECT coalesce((SELECT max(id) FROM posts), 0)
        WHERE NOT EXISTS (SELECT 1 FROM posts_rollup_hold)`)
      .run().changes > 0
  );
}

/** Counts the posts held since `holdRollups` and ends the hold, in the same transaction. */
export function settlePostRollups(stmts: StatementCache): void {
  for (const step of SETTLE) {
    if (typeof step === "string") {
      stmts.get(step).run();
      continue;
    }
    const [level, sql] = step;
    const reset = stmts.get(RESET_THROUGH);
    for (const [feedId, period, through] of stmts.get(sql).raw().all() as Array<[number, number, number]>)
      reset.run(through, level, feedId, period);
  }
}
