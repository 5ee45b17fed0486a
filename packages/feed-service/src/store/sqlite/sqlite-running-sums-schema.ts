/**
 * Schema version 21: counts whose reads do not grow with feeds × days (design.md, "Costs are
 * bounded by design"), kept by triggers like the other roll-ups (sqlite-rollup-schema.ts).
 *
 * - `feed_post_sums`, `feed_click_sums`: running sums of each feed's posts (by post date) and of
 *   the clicks on its posts (by click time), at three levels: a feed's all-time total (level 2),
 *   its count up to the end of each block of 64 UTC days (level 1), and within a block up to the
 *   end of each day (level 0), rows only where it has posts; the total's row also bounds the days
 *   of the feed's first and last (`lo`, `hi`; deletes leave them wide), so that a window holding
 *   all of a feed's days, or none, needs no seek. A feed's count in a window from
 *   `since` is its total less what lies before: one row of each lower level found by a seek, and
 *   the posts or clicks of since's own day before it (sqlite-feed-rankings.ts), so popular and
 *   prolific feeds read two seeks per feed instead of a row per feed and day. The prefix sums of a
 *   Fenwick or "summed-area" table in two levels: a post or click dated before others of its feed
 *   adds one to the later days of its block and to the feed's later blocks (at most 63 + the
 *   blocks it spans), while one dated last, what ingest and /click write, changes its own rows only.
 * - `post_day_ranks`: each post's rank by id among the posts of its UTC day, language and category
 *   (the key of `post_day_counts`), and `post_day_counts.min_id`/`max_id` (bounds: deletes leave
 *   them wide). A list since a post id counts a day's posts above the id as the day's count less
 *   the rank of its last post at or below the id: a seek, where bounds do not settle it
 *   (sqlite-day-seek.ts). A new post has the highest id, so its rank is its day's count: only a
 *   delete or a re-dated post renumbers (the rest of that day's posts of its language and category).
 */
import type Database from "better-sqlite3";
import type { MigrationProgress } from "../migration-progress.js";

/** floor(x / 1 day) for epoch milliseconds, before 1970 too (SQLite's `/` truncates toward zero). */
const day = (x: string) => `(${x} / 86400000 - (${x} % 86400000 < 0))`;

/** Days per block of the running sums' middle level. */
export const SUM_BLOCK_DAYS = 64;
const block = (d: string) => `(${d} / ${SUM_BLOCK_DAYS} - (${d} % ${SUM_BLOCK_DAYS} < 0))`;

/** Adds one dated `d` (a day number) to feed `f`'s own rows of running sums in `table`. */
const sumUpOwn = (table: string, f: string, d: string) => `
  INSERT INTO ${table} (level, feed_id, period, n, through, lo, hi) VALUES
    (0, ${f}, ${d}, 1, 1 + coalesce((SELECT through FROM ${table} WHERE level = 0 AND feed_id = ${f}
      AND period < ${d} AND period >= ${block(d)} * ${SUM_BLOCK_DAYS} ORDER BY period DESC LIMIT 1), 0), NULL, NULL),
    (1, ${f}, ${block(d)}, 1, 1 + coalesce((SELECT through FROM ${table} WHERE level = 1 AND feed_id = ${f}
      AND period < ${block(d)} ORDER BY period DESC LIMIT 1), 0), NULL, NULL),
    (2, ${f}, 0, 1, 1, ${d}, ${d})
  ON CONFLICT (level, feed_id, period) DO UPDATE SET n = n + 1, through = through + 1,
    lo = min(lo, excluded.lo), hi = max(hi, excluded.hi);`;

/** And to the later rows: only when the feed has days after `d`. */
const sumUpLater = (table: string, f: string, d: string) => `
  UPDATE ${table} SET through = through + 1 WHERE level = 0 AND feed_id = ${f}
    AND period > ${d} AND period < (${block(d)} + 1) * ${SUM_BLOCK_DAYS};
  UPDATE ${table} SET through = through + 1 WHERE level = 1 AND feed_id = ${f} AND period > ${block(d)};`;

const sumUp = (table: string, f: string, d: string) => sumUpOwn(table, f, d) + sumUpLater(table, f, d);

/**
 * A trigger adding a new row's `d` to the rows of running sums after it, when the feed's last day
 * (its total's `hi`, a bound that only grows) is later: what ingest and /click write, dated last,
 * skips it. Either order with the trigger adding the own rows gives the same sums.
 */
const laterSumsTrigger = (name: string, on: string, table: string, f: string, d: string, guard = "") => `
CREATE TRIGGER ${name} AFTER INSERT ON ${on}
WHEN ${d} < (SELECT hi FROM ${table} WHERE level = 2 AND feed_id = ${f})${guard === "" ? "" : ` AND ${guard}`}
BEGIN ${sumUpLater(table, f, d)}
END;`;

/** Takes one dated `d` off feed `f`'s running sums; rows left empty go. */
const sumDown = (table: string, f: string, d: string) => {
  const own = `(level, feed_id, period) IN (VALUES (0, ${f}, ${d}), (1, ${f}, ${block(d)}), (2, ${f}, 0))`;
  return `
  UPDATE ${table} SET n = n - 1, through = through - 1 WHERE ${own};
  UPDATE ${table} SET through = through - 1 WHERE level = 0 AND feed_id = ${f}
    AND period > ${d} AND period < (${block(d)} + 1) * ${SUM_BLOCK_DAYS};
  UPDATE ${table} SET through = through - 1 WHERE level = 1 AND feed_id = ${f} AND period > ${block(d)};
  DELETE FROM ${table} WHERE ${own} AND n <= 0;`;
};

const rankKey = (row: "new" | "old") =>
  `category_id = coalesce(${row}.category_id, 0) AND language_id = ${row}.language_id AND day = ${day(`${row}.post_date`)}`;

const rankUp = `
  INSERT INTO post_day_ranks (category_id, language_id, day, id, rank) VALUES (coalesce(new.category_id, 0),
    new.language_id, ${day("new.post_date")}, new.id, 1 + coalesce((SELECT rank FROM post_day_ranks
      WHERE ${rankKey("new")} AND id < new.id ORDER BY id DESC LIMIT 1), 0));
  UPDATE post_day_ranks SET rank = rank + 1 WHERE ${rankKey("new")} AND id > new.id;`;

const rankDown = `
  DELETE FROM post_day_ranks WHERE ${rankKey("old")} AND id = old.id;
  UPDATE post_day_ranks SET rank = rank - 1 WHERE ${rankKey("old")} AND id > old.id;`;

/** Schema 15's day counts, with the id bounds of each row. */
const dayCountUp = `
  INSERT INTO post_day_counts (day, language_id, category_id, posts, min_id, max_id)
  VALUES (${day("new.post_date")}, new.language_id, coalesce(new.category_id, 0), 1, new.id, new.id)
  ON CONFLICT (day, language_id, category_id) DO UPDATE SET
    posts = posts + 1, min_id = min(min_id, excluded.min_id), max_id = max(max_id, excluded.max_id);`;

const dayCountDown = `
  UPDATE post_day_counts SET posts = posts - 1 WHERE day = ${day("old.post_date")}
    AND language_id = old.language_id AND category_id = coalesce(old.category_id, 0);
  DELETE FROM post_day_counts WHERE day = ${day("old.post_date")}
    AND language_id = old.language_id AND category_id = coalesce(old.category_id, 0) AND posts <= 0;`;

const clickFeed = (row: "new" | "old") => `(SELECT feed_id FROM posts WHERE id = ${row}.post_id)`;

const sumFills = (table: string, rows: string) => [
  `INSERT INTO ${table} (level, feed_id, period, n, through)
    SELECT 0, feed_id, d, n, sum(n) OVER (PARTITION BY feed_id, ${block("d")} ORDER BY d) FROM (${rows})`,
  `INSERT INTO ${table} (level, feed_id, period, n, through)
    SELECT 1, feed_id, b, n, sum(n) OVER (PARTITION BY feed_id ORDER BY b)
    FROM (SELECT feed_id, ${block("period")} AS b, sum(n) AS n FROM ${table} WHERE level = 0 GROUP BY 1, 2)`,
  `INSERT INTO ${table} (level, feed_id, period, n, through, lo, hi)
    SELECT 2, feed_id, 0, sum(n), sum(n), min(period), max(period) FROM ${table} WHERE level = 0 GROUP BY feed_id`,
];

/**
 * Fills the sums and the ranks from the posts and clicks (their tables empty), each statement with
 * what it reads: on upgrade, and after migrate-data's copy. Window sums give each row its running count.
 */
export const runningSumFills: ReadonlyArray<readonly ["posts" | "clicks", string]> = [
  ...sumFills(
    "feed_post_sums",
    `SELECT feed_id, ${day("post_date")} AS d, count(*) AS n FROM posts GROUP BY 1, 2`,
  ).map((sql) => ["posts", sql] as const),
  ...sumFills(
    "feed_click_sums",
    `SELECT p.feed_id, ${day("k.clicked_at")} AS d, count(*) AS n FROM clicks k JOIN posts p ON p.id = k.post_id GROUP BY 1, 2`,
  ).map((sql) => ["clicks", sql] as const),
  [
    "posts",
    `INSERT INTO post_day_ranks (category_id, language_id, day, id, rank)
      SELECT c, language_id, d, id, row_number() OVER (PARTITION BY c, language_id, d ORDER BY id)
      FROM (SELECT coalesce(category_id, 0) AS c, language_id, ${day("post_date")} AS d, id FROM posts)`,
  ],
];

/** The day counts' id bounds, from one grouped read of the posts (the counts already there). */
export const fillDayCountBounds = `
UPDATE post_day_counts SET min_id = b.lo, max_id = b.hi FROM (
  SELECT ${day("post_date")} AS d, language_id AS l, coalesce(category_id, 0) AS c, min(id) AS lo, max(id) AS hi
  FROM posts GROUP BY 1, 2, 3) AS b
WHERE post_day_counts.day = b.d AND post_day_counts.language_id = b.l AND post_day_counts.category_id = b.c;
`;

/**
 * Drops what schema 21 adds (taken again by a test re-running migrations, it starts afresh), and
 * the roll-ups it replaces: `post_days` and `feed_click_days` (schema 8, a row per feed and day)
 * and `feed_click_totals` (schema 15, the sums' totals), tables and triggers, no read left on them.
 */
export const dropRunningSums = `
DROP TRIGGER IF EXISTS posts_rollup_insert;
DROP TRIGGER IF EXISTS posts_rollup_update;
DROP TRIGGER IF EXISTS posts_rollup_delete;
DROP TRIGGER IF EXISTS clicks_rollup_insert;
DROP TRIGGER IF EXISTS clicks_rollup_delete;
DROP TRIGGER IF EXISTS clicks_feed_totals_insert;
DROP TRIGGER IF EXISTS clicks_feed_totals_delete;
DROP TABLE IF EXISTS post_days;
DROP TABLE IF EXISTS feed_click_days;
DROP TABLE IF EXISTS feed_click_totals;
DROP TRIGGER IF EXISTS posts_sums_insert;
DROP TRIGGER IF EXISTS posts_sums_insert_later;
DROP TRIGGER IF EXISTS posts_sums_update;
DROP TRIGGER IF EXISTS posts_sums_delete;
DROP TRIGGER IF EXISTS posts_clicks_first;
DROP TRIGGER IF EXISTS clicks_sums_insert;
DROP TRIGGER IF EXISTS clicks_sums_insert_later;
DROP TRIGGER IF EXISTS clicks_sums_delete;
DROP TABLE IF EXISTS feed_post_sums;
DROP TABLE IF EXISTS feed_click_sums;
DROP TABLE IF EXISTS post_day_ranks;
DROP INDEX IF EXISTS post_day_counts_by_max_id;
`;

const sumsTable = (name: string) => `
CREATE TABLE ${name} (
  level INTEGER NOT NULL,
  feed_id INTEGER NOT NULL,
  period INTEGER NOT NULL,
  n INTEGER NOT NULL,
  through INTEGER NOT NULL,
  lo INTEGER,
  hi INTEGER,
  PRIMARY KEY (level, feed_id, period)
) WITHOUT ROWID;`;

export const runningSumTables = `
${sumsTable("feed_post_sums")}
${sumsTable("feed_click_sums")}
CREATE TABLE post_day_ranks (
  category_id INTEGER NOT NULL,
  language_id INTEGER NOT NULL,
  day INTEGER NOT NULL,
  id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  PRIMARY KEY (category_id, language_id, day, id)
) WITHOUT ROWID;
`;

/**
 * A further condition on the posts' roll-up triggers below, by the row each reads (`new` for an
 * insert, `old` for an update or a delete): "" for none (schema 21), or migration 30's hold
 * (sqlite-rollup-hold.ts), under which the writer counts its own new posts once per transaction.
 */
export type RollupGuard = (row: "new" | "old") => string;

const noGuard: RollupGuard = () => "";
/** `cond`, with the guard ANDed when there is one (parenthesised then: `cond` holds ORs). */
const also = (cond: string, guard: string) => (guard === "" ? cond : `(${cond}) AND ${guard}`);
const onlyWhen = (guard: string) => (guard === "" ? "" : ` WHEN ${guard}`);

/** The posts' triggers that keep the day counts, the running sums of posts and the day ranks. */
export const postRollupTriggers = (guard: RollupGuard = noGuard) => `
DROP TRIGGER IF EXISTS posts_day_counts_insert;
DROP TRIGGER IF EXISTS posts_day_counts_update;
DROP TRIGGER IF EXISTS posts_day_counts_delete;
DROP TRIGGER IF EXISTS posts_sums_insert;
DROP TRIGGER IF EXISTS posts_sums_insert_later;
DROP TRIGGER IF EXISTS posts_sums_update;
DROP TRIGGER IF EXISTS posts_sums_delete;
CREATE TRIGGER posts_day_counts_insert AFTER INSERT ON posts${onlyWhen(guard("new"))} BEGIN ${dayCountUp}
END;
CREATE TRIGGER posts_day_counts_update AFTER UPDATE OF post_date, language_id, category_id ON posts
WHEN ${also(
  `old.post_date IS NOT new.post_date OR old.language_id IS NOT new.language_id
  OR old.category_id IS NOT new.category_id`,
  guard("old"),
)}
BEGIN ${dayCountDown} ${dayCountUp}
END;
CREATE TRIGGER posts_day_counts_delete AFTER DELETE ON posts${onlyWhen(guard("old"))} BEGIN ${dayCountDown}
END;
CREATE TRIGGER posts_sums_insert AFTER INSERT ON posts${onlyWhen(guard("new"))} BEGIN
  ${sumUpOwn("feed_post_sums", "new.feed_id", day("new.post_date"))}
  ${rankUp}
END;
${laterSumsTrigger("posts_sums_insert_later", "posts", "feed_post_sums", "new.feed_id", day("new.post_date"), guard("new"))}
CREATE TRIGGER posts_sums_update AFTER UPDATE OF post_date, feed_id, language_id, category_id ON posts
WHEN ${also(
  `old.post_date IS NOT new.post_date OR old.feed_id IS NOT new.feed_id
  OR old.language_id IS NOT new.language_id OR old.category_id IS NOT new.category_id`,
  guard("old"),
)}
BEGIN
  ${sumDown("feed_post_sums", "old.feed_id", day("old.post_date"))}
  ${sumUp("feed_post_sums", "new.feed_id", day("new.post_date"))}
  ${rankDown}
  ${rankUp}
END;
CREATE TRIGGER posts_sums_delete AFTER DELETE ON posts${onlyWhen(guard("old"))} BEGIN
  ${sumDown("feed_post_sums", "old.feed_id", day("old.post_date"))}
  ${rankDown}
END;`;

export const runningSumTriggers = `
-- A category's rows holding a post above an id, for the lowest day of a list since it.
CREATE INDEX post_day_counts_by_max_id ON post_day_counts (category_id, max_id);
${postRollupTriggers()}
-- A post's clicks go before it, so that their triggers still find its feed (the cascade would
-- delete them after the post, when it no longer can).
CREATE TRIGGER posts_clicks_first BEFORE DELETE ON posts BEGIN
  DELETE FROM clicks WHERE post_id = old.id;
END;
CREATE TRIGGER clicks_sums_insert AFTER INSERT ON clicks BEGIN
  ${sumUpOwn("feed_click_sums", clickFeed("new"), day("new.clicked_at"))}
END;
${laterSumsTrigger("clicks_sums_insert_later", "clicks", "feed_click_sums", clickFeed("new"), day("new.clicked_at"))}
CREATE TRIGGER clicks_sums_delete AFTER DELETE ON clicks BEGIN
  ${sumDown("feed_click_sums", clickFeed("old"), day("old.clicked_at"))}
END;
`;

const STEP = "counting posts and clicks per feed as running sums (schema 21)";

/** Fills the tables from the rows, reporting progress in rows read. */
export function fillRunningSumTables(db: Database.Database, progress: MigrationProgress): void {
  const rows = {
    posts: db.prepare("SELECT count(*) FROM posts").pluck().get() as number,
    clicks: db.prepare("SELECT count(*) FROM clicks").pluck().get() as number,
  };
  const total = runningSumFills.reduce((sum, [of]) => sum + rows[of], rows.posts);
  let done = 0;
  progress(STEP, 0, total);
  for (const [of, sql] of runningSumFills) {
    db.exec(sql);
    done += rows[of];
    progress(STEP, done, total);
  }
  db.exec(fillDayCountBounds);
  progress(STEP, total, total);
}

/**
 * Migration 21. Taken again (a test re-running migrations after schema 15 made `post_day_counts`
 * anew), it drops what it made and makes it again.
 */
export function addRunningSums(db: Database.Database, progress: MigrationProgress): void {
  db.exec(dropRunningSums);
  const columns = (db.pragma("table_info(post_day_counts)") as Array<{ name: string }>).map((c) => c.name);
  if (!columns.includes("min_id")) {
    db.exec(`ALTER TABLE post_day_counts ADD COLUMN min_id INTEGER;
      ALTER TABLE post_day_counts ADD COLUMN max_id INTEGER;`);
  }
  db.exec(runningSumTables);
  fillRunningSumTables(db, progress);
  db.exec(runningSumTriggers);
}
