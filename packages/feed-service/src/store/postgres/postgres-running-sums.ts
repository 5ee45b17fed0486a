/**
 * Migration 27: counts whose reads do not grow with feeds × days (spec §4 Latency: 1 to 10,000
 * feeds of any size; design.md, "Costs are bounded by design"). SQLite's schema 21
 * (sqlite-running-sums-schema.ts) in PostgreSQL's terms, kept by triggers like the other roll-ups.
 *
 * - `feed_post_sums`, `feed_click_sums`: one row per feed, the running count of its posts (by post
 *   date) or of the clicks on its posts (by click time) through the end of each 64-day block from
 *   its first block to its last, as an array (`through[i]`: up to the end of block
 *   `first_block + i - 1`; the last element is the total). `feed_post_days`, `feed_click_days`:
 *   per feed and block where it has posts or clicks, the running count within the block through
 *   the end of each of its days (offset 0 first). A feed's count from `since` on is its total less
 *   one element of each and the rows of since's own day before it (postgres-feed-rankings.ts).
 *   SQLite seeks the row before `since` feed by feed; here a feed's blocks are dense, so every
 *   feed's element is in the one row the read already has, and the day rows of since's block are
 *   one range of their key: a ranking reads a row per feed and per feed active in one block, in
 *   sets, without a seek per feed (a PostgreSQL index probe per feed costs about what reading
 *   a row per post would at these sizes). A post or click dated last (ingest, /click) changes its
 *   feed's last elements; one dated before others adds to the later elements (at most the feed's
 *   blocks and 63 days).
 * - `post_month_ranks`: each categorised post's rank by id among the posts of its category,
 *   language and 28-day month (the key of `scope_months`). A list since a post id counts a month's
 *   posts above the id as its `scope_months` count less the rank of its last post at or below the
 *   id (a seek per month row), and the days of the month where the page lands from the month's
 *   ranks above the id (postgres-page-seek.ts). A new post has the highest id, so its rank is its
 *   month's count: only a delete, a re-dated post or an id written out of order renumbers the rest
 *   of its month.
 *
 * Replaces `post_days` and `click_days` (migration 6: a row per feed and day, near one per post
 * with thousands of feeds), which nothing reads any more: dropped with their upkeep, which keeps
 * the write cost of a post and of a click about what it was.
 *
 * Ranks are written after the post's `scope_days` rows in the same trigger: that upsert locks the
 * post's `scope_months` rows (their triggers, postgres-scope-months.ts) until commit, so two
 * transactions ranking posts of one month take turns, and the second one's statements (each with
 * a new snapshot, READ COMMITTED) see the first one's posts.
 */
import type { MigrationProgress } from "../migration-progress.js";
import { rows, type Sql } from "./postgres-connection.js";
import { MONTH_DAYS } from "./postgres-scope-months.js";

/** Days per block of the running sums. */
export const SUM_BLOCK_DAYS = 64;

const block = (day: string) => `floor((${day}) / ${SUM_BLOCK_DAYS}.0)::integer`;
const month = (day: string) => `floor((${day}) / ${MONTH_DAYS}.0)::integer`;

/** The two kinds of running sums: what is counted, and where. */
type Counted = "post" | "click";
const tables = (of: Counted) => ({ sums: `feed_${of}_sums`, days: `feed_${of}_days` });

/**
 * `s_through` (running sums from `s_first`) with `e_through` (from `e_first`) added: written out
 * for what a post or click dated last adds (its feed's last element, or one more element after
 * it), in the statement itself, else by running_merge.
 */
const merged = (sFirst: string, s: string, eFirst: string, e: string) => `CASE
      WHEN cardinality(${e}) = 1 AND ${eFirst} = ${sFirst} + cardinality(${s}) - 1
        THEN ${s}[1:cardinality(${s}) - 1] || (${s}[cardinality(${s})] + ${e}[1])
      WHEN cardinality(${e}) = 1 AND ${eFirst} >= ${sFirst} + cardinality(${s})
        THEN ${s} || array_fill(${s}[cardinality(${s})], ARRAY[${eFirst} - ${sFirst} - cardinality(${s})]) || (${s}[cardinality(${s})] + ${e}[1])
      ELSE running_merge(${sFirst}, ${s}, ${eFirst}, ${e}) END`;

const upsertSums = `ON CONFLICT (feed_id) DO UPDATE SET first_block = least(s.first_block, excluded.first_block),
      through = ${merged("s.first_block", "s.through", "excluded.first_block", "excluded.through")}`;
const upsertDays = `ON CONFLICT (block, feed_id) DO UPDATE SET through = ${merged("0", "s.through", "0", "excluded.through")}`;

/**
 * Adds the rows of `dated` (a relation of `feed_id` and `at`, epoch ms), each counting `sign`, to
 * the running sums of `of`; with a negative sign, rows whose count is left at zero go. Statements
 * ended by `;`, for a trigger body (or a fill, on empty tables).
 */
export function sumsAdd(of: Counted, dated: string, sign: 1 | -1 = 1): string {
  const { sums, days } = tables(of);
  const counted = `(SELECT feed_id, post_day(at) AS day, count(*)::integer * ${sign} AS n FROM ${dated} GROUP BY 1, 2)`;
  // In key order, so that two writers of the same rows lock them in one order.
  const upserts = `
  INSERT INTO ${sums} AS s (feed_id, first_block, through)
    SELECT feed_id, min(pos), running_from(min(pos), array_agg(pos ORDER BY pos), array_agg(n ORDER BY pos))
    FROM (SELECT feed_id, ${block("day")} AS pos, sum(n)::integer AS n FROM ${counted} c GROUP BY 1, 2) b
    GROUP BY feed_id ORDER BY feed_id
    ${upsertSums};
  INSERT INTO ${days} AS s (block, feed_id, through)
    SELECT block, feed_id, running_from(0, array_agg(pos ORDER BY pos), array_agg(n ORDER BY pos))
    FROM (SELECT ${block("day")} AS block, feed_id, day - ${block("day")} * ${SUM_BLOCK_DAYS} AS pos, n FROM ${counted} c) d
    GROUP BY block, feed_id ORDER BY block, feed_id
    ${upsertDays};`;
  if (sign > 0) return upserts;
  return `${upserts}
  DELETE FROM ${sums} s WHERE s.feed_id IN (SELECT feed_id FROM ${dated}) AND s.through[cardinality(s.through)] <= 0;
  DELETE FROM ${days} s WHERE (s.block, s.feed_id) IN (SELECT ${block("post_day(at)")}, feed_id FROM ${dated})
    AND s.through[cardinality(s.through)] <= 0;`;
}

/**
 * A day row's running counts with `sign` added from the day at `pos` (1-based within the block)
 * on. The row of a post or click dated last (ingest, /click) ends at that day or before it: its
 * last element moves, or the row is carried to the day; written out here, since `upsertDays`
 * merges the new row's whole array (zeros up to the day) through running_merge's general case, a
 * query over every day of the block, on every click (bench/NOTES.md, pgclick31, 2026-11-29
 * evening). A day before the row's end is merged as before.
 */
const upsertDayOne = (pos: string, sign: 1 | -1) => `ON CONFLICT (block, feed_id) DO UPDATE SET through = CASE
      WHEN cardinality(s.through) = ${pos} THEN s.through[1:${pos} - 1] || (s.through[${pos}] + ${sign})
      WHEN cardinality(s.through) < ${pos}
        THEN s.through || array_fill(s.through[cardinality(s.through)], ARRAY[${pos} - 1 - cardinality(s.through)])
          || (s.through[cardinality(s.through)] + ${sign})
      ELSE running_merge(0, s.through, 0, excluded.through) END`;

/** sumsAddOne's two upserts, the feed's total row first, then its day row (a statement each). */
export function sumsAddOneUpserts(of: Counted, feed: string, at: string, sign: 1 | -1 = 1): [string, string] {
  const { sums, days } = tables(of);
  const d = `post_day(${at})`;
  return [
    `
  INSERT INTO ${sums} AS s (feed_id, first_block, through) VALUES (${feed}, ${block(d)}, ARRAY[${sign}])
    ${upsertSums};`,
    `
  INSERT INTO ${days} AS s (block, feed_id, through)
    VALUES (${block(d)}, ${feed}, array_fill(0, ARRAY[${d} - ${block(d)} * ${SUM_BLOCK_DAYS}]) || ${sign})
    ${upsertDayOne(`${d} - ${block(d)} * ${SUM_BLOCK_DAYS} + 1`, sign)};`,
  ];
}

/**
 * The same for one row (a row trigger's post or click): feed `feed` (not null), dated `at`. Plain
 * upserts of one element, without the grouping a statement's rows need.
 */
export function sumsAddOne(of: Counted, feed: string, at: string, sign: 1 | -1 = 1): string {
  const { sums, days } = tables(of);
  const d = `post_day(${at})`;
  const upserts = sumsAddOneUpserts(of, feed, at, sign).join("");
  if (sign > 0) return upserts;
  return `${upserts}
  DELETE FROM ${sums} WHERE feed_id = ${feed} AND through[cardinality(through)] <= 0;
  DELETE FROM ${days} WHERE block = ${block(d)} AND feed_id = ${feed} AND through[cardinality(through)] <= 0;`;
}

/** The posts of `posts` (a relation with the posts' columns) as `dated` rows of their feed. */
const postsDated = (posts: string) => `(SELECT feed_id, post_date AS at FROM ${posts}) AS dated`;

/** A post's rank key: category, month, language (in that order, so a month's rows are one range). */
const rankRows = (posts: string) =>
  `(SELECT category_id, ${month("post_day(post_date)")} AS month, language_id, id, post_day(post_date) AS day
    FROM ${posts} WHERE category_id IS NOT NULL)`;

const sameBucket = (a: string, b: string) =>
  `${a}.category_id = ${b}.category_id AND ${a}.month = ${b}.month AND ${a}.language_id = ${b}.language_id`;

/** The rank of the last post of bucket `b` below id `below`, 0 when none. */
const rankBelow = (b: string, below: string) =>
  `coalesce((SELECT o.rank FROM post_month_ranks o WHERE ${sameBucket("o", b)} AND o.id < ${below}
    ORDER BY o.id DESC LIMIT 1), 0)`;

/**
 * Ranks the posts of each bucket of `changed` again from its lowest id in `changed` on: rows
 * whose rank is already right are not written (new posts, ranked as they came, usually all).
 */
const renumber = (changed: string) => `
  WITH a AS MATERIALIZED (SELECT category_id, month, language_id, min(id) AS from_id FROM ${rankRows(changed)} c
      GROUP BY 1, 2, 3),
    n AS (SELECT t.category_id, t.month, t.language_id, t.id,
        ${rankBelow("a", "a.from_id")} + row_number() OVER (PARTITION BY t.category_id, t.month, t.language_id ORDER BY t.id) AS rank
      FROM a JOIN post_month_ranks t ON ${sameBucket("t", "a")} AND t.id >= a.from_id)
  UPDATE post_month_ranks r SET rank = n.rank FROM n
    WHERE ${sameBucket("r", "n")} AND r.id = n.id AND r.rank <> n.rank;`;

/**
 * New posts' ranks: the rank of the last older post of their bucket (as the table was before the
 * statement) plus their own order among the new ones; then the older posts above them, if any.
 */
const ranksAdd = (posts: string) => `
  INSERT INTO post_month_ranks (category_id, month, language_id, id, day, rank)
    SELECT c.category_id, c.month, c.language_id, c.id, c.day,
      ${rankBelow("c", "c.id")} + row_number() OVER (PARTITION BY c.category_id, c.month, c.language_id ORDER BY c.id)
    FROM ${rankRows(posts)} c ORDER BY 1, 2, 3, 4;
  ${renumber(posts)}`;

const ranksRemove = (posts: string) => `
  DELETE FROM post_month_ranks r USING ${rankRows(posts)} g WHERE ${sameBucket("r", "g")} AND r.id = g.id;
  ${renumber(posts)}`;

/** scope_days without post_days (migration 13's functions, still used by the update trigger). */
const scopeDayFunctions = `
CREATE OR REPLACE FUNCTION post_days_remove(gone posts) RETURNS void LANGUAGE sql AS $$
  UPDATE scope_days SET posts = posts - 1, clicks = clicks - gone.clicks
    WHERE category_id IS NOT DISTINCT FROM gone.category_id AND language_id = gone.language_id
      AND day = post_day(gone.post_date);
$$;

CREATE OR REPLACE FUNCTION post_days_add(came posts) RETURNS void LANGUAGE sql AS $$
  INSERT INTO scope_days AS d (category_id, language_id, day, posts, clicks)
    VALUES (came.category_id, came.language_id, post_day(came.post_date), 1, came.clicks)
    ON CONFLICT ON CONSTRAINT scope_days_key DO UPDATE SET posts = d.posts + 1, clicks = d.clicks + excluded.clicks;
$$;
`;

const NEW_POST = "(SELECT NEW.*) AS n";
const OLD_POST = "(SELECT OLD.*) AS o";

/** The clicks' upkeep of their feed's running sums (migration 27; its day rows' fast path, 42). */
export const clickSumsTrigger = `
-- A click's feed is its post's; a post already gone (the cascade of its delete) has none.
CREATE OR REPLACE FUNCTION clicks_track_rollups() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  feed integer;
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    SELECT p.feed_id INTO feed FROM posts p WHERE p.id = OLD.post_id;
    IF feed IS NOT NULL THEN
      ${sumsAddOne("click", "feed", "OLD.clicked_at", -1)}
    END IF;
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    SELECT p.feed_id INTO feed FROM posts p WHERE p.id = NEW.post_id;
    IF feed IS NOT NULL THEN
      ${sumsAddOne("click", "feed", "NEW.clicked_at")}
    END IF;
  END IF;
  RETURN NULL;
END $$;
`;

export const runningSumsSchema = `
LOCK TABLE posts, clicks, feeds IN SHARE ROW EXCLUSIVE MODE;

-- Taken again (a test re-running migrations), it starts afresh.
DROP TRIGGER IF EXISTS posts_remove_rollups ON posts;
DROP TABLE IF EXISTS feed_post_sums, feed_post_days, feed_click_sums, feed_click_days, post_month_ranks;

-- The element of a running-sums array at position p: 0 before its first, the total after its last.
CREATE OR REPLACE FUNCTION running_at(first integer, through integer[], p integer) RETURNS integer
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN CASE WHEN through IS NULL OR p < first THEN 0
    WHEN p >= first + cardinality(through) THEN through[cardinality(through)]
    ELSE through[p - first + 1] END;

-- Running sums from first to the last of ats (ascending, distinct) of the counts ns at them.
CREATE OR REPLACE FUNCTION running_from(first integer, ats integer[], ns integer[]) RETURNS integer[]
  LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  result integer[] := '{}';
  running integer := 0;
  j integer := 1;
BEGIN
  FOR p IN first .. ats[cardinality(ats)] LOOP
    WHILE j <= cardinality(ats) AND ats[j] = p LOOP
      running := running + ns[j];
      j := j + 1;
    END LOOP;
    result := result || running;
  END LOOP;
  RETURN result;
END $$;

-- Two running-sums arrays added, element by element, over the positions of both. PL/pgSQL so that
-- its statement's plan is kept for the session (a SQL function's is made again at every call).
CREATE OR REPLACE FUNCTION running_merge(a_first integer, a integer[], b_first integer, b integer[])
  RETURNS integer[] LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  last integer := a_first + cardinality(a) - 1;
BEGIN
  -- What a post or click dated last adds (ingest, /click): its feed's last element, or a new one.
  IF cardinality(b) = 1 AND b_first = last THEN
    a[cardinality(a)] := a[cardinality(a)] + b[1];
    RETURN a;
  ELSIF cardinality(b) = 1 AND b_first > last THEN
    RETURN a || array_fill(a[cardinality(a)], ARRAY[b_first - last - 1]) || (a[cardinality(a)] + b[1]);
  END IF;
  RETURN ARRAY(SELECT running_at(a_first, a, p) + running_at(b_first, b, p)
    FROM generate_series(least(a_first, b_first), greatest(a_first + cardinality(a), b_first + cardinality(b)) - 1) AS p
    ORDER BY p);
END $$;

CREATE TABLE feed_post_sums (
  feed_id integer PRIMARY KEY,
  first_block integer NOT NULL,
  through integer[] NOT NULL
);
CREATE TABLE feed_post_days (
  block integer NOT NULL,
  feed_id integer NOT NULL,
  through integer[] NOT NULL,
  PRIMARY KEY (block, feed_id)
);
-- A feed's days, newest first, for its deep pages.
CREATE INDEX feed_post_days_by_feed ON feed_post_days (feed_id, block);
CREATE TABLE feed_click_sums (
  feed_id integer PRIMARY KEY,
  first_block integer NOT NULL,
  through integer[] NOT NULL
);
CREATE TABLE feed_click_days (
  block integer NOT NULL,
  feed_id integer NOT NULL,
  through integer[] NOT NULL,
  PRIMARY KEY (block, feed_id)
);
CREATE TABLE post_month_ranks (
  category_id integer NOT NULL,
  month integer NOT NULL,
  language_id integer NOT NULL,
  id integer NOT NULL,
  day integer NOT NULL,
  rank integer NOT NULL,
  PRIMARY KEY (category_id, month, language_id, id)
);
-- A category's posts above (or below) an id, with their month, in one range (postgres-page-seek.ts).
CREATE INDEX post_month_ranks_by_id ON post_month_ranks (category_id, id) INCLUDE (month, language_id);
${scopeDayFunctions}

-- The posts' triggers below reach every table by its key, for the few rows a statement writes;
-- with statistics of a new or small post_month_ranks the planner took seq scans for its seeks
-- instead (8 ms a post in a new database, bench/NOTES.md), hence enable_seqscan off in them.

-- New posts: scope_days first (its upsert orders rankers of one month, see above).
CREATE OR REPLACE FUNCTION posts_add_rollups() RETURNS trigger LANGUAGE plpgsql SET enable_seqscan = off AS $$
BEGIN
  INSERT INTO scope_days AS d (category_id, language_id, day, posts, clicks)
    SELECT category_id, language_id, post_day(post_date), count(*), sum(clicks)
      FROM came GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT ON CONSTRAINT scope_days_key DO UPDATE SET posts = d.posts + excluded.posts,
      clicks = d.clicks + excluded.clicks;
  INSERT INTO clicked_posts (id, clicks, post_date, category_id)
    SELECT id, clicks, post_date, category_id FROM came WHERE clicks > 0;
  ${sumsAdd("post", postsDated("came"))}
  ${ranksAdd("came")}
  RETURN NULL;
END $$;

-- Deleted posts, per statement (a feed's removal deletes them all in one).
CREATE OR REPLACE FUNCTION posts_remove_rollups() RETURNS trigger LANGUAGE plpgsql SET enable_seqscan = off AS $$
BEGIN
  UPDATE scope_days d SET posts = d.posts - g.posts, clicks = d.clicks - g.clicks
    FROM (SELECT category_id, language_id, post_day(post_date) AS day, count(*) AS posts, sum(clicks) AS clicks
      FROM gone GROUP BY 1, 2, 3) g
    WHERE d.category_id IS NOT DISTINCT FROM g.category_id AND d.language_id = g.language_id AND d.day = g.day;
  ${sumsAdd("post", postsDated("gone"), -1)}
  ${ranksRemove("gone")}
  RETURN NULL;
END $$;

-- A post re-dated, re-filed or moved (rare), or clicked (the common case: only click sums move).
CREATE OR REPLACE FUNCTION posts_track_rollups() RETURNS trigger LANGUAGE plpgsql SET enable_seqscan = off AS $$
BEGIN
  IF OLD.language_id = NEW.language_id AND OLD.category_id IS NOT DISTINCT FROM NEW.category_id
      AND post_day(OLD.post_date) = post_day(NEW.post_date) THEN
    IF NEW.clicks IS DISTINCT FROM OLD.clicks THEN
      UPDATE scope_days SET clicks = clicks + (NEW.clicks - OLD.clicks)
        WHERE category_id IS NOT DISTINCT FROM NEW.category_id AND language_id = NEW.language_id
          AND day = post_day(NEW.post_date);
    END IF;
  ELSE
    PERFORM post_days_remove(OLD);
    PERFORM post_days_add(NEW);
    ${ranksRemove(OLD_POST)}
    ${ranksAdd(NEW_POST)}
  END IF;
  IF OLD.feed_id IS DISTINCT FROM NEW.feed_id OR post_day(OLD.post_date) <> post_day(NEW.post_date) THEN
    ${sumsAddOne("post", "OLD.feed_id", "OLD.post_date", -1)}
    ${sumsAddOne("post", "NEW.feed_id", "NEW.post_date")}
  END IF;
  IF OLD.feed_id IS DISTINCT FROM NEW.feed_id THEN
    -- Its clicks count for its new feed.
    ${sumsAdd("click", "(SELECT OLD.feed_id AS feed_id, clicked_at AS at FROM clicks WHERE post_id = NEW.id) AS dated", -1)}
    ${sumsAdd("click", "(SELECT NEW.feed_id AS feed_id, clicked_at AS at FROM clicks WHERE post_id = NEW.id) AS dated")}
  END IF;
  RETURN NULL;
END $$;

-- A post's clicks leave its feed's sums before the post goes: the cascade that then deletes them
-- finds no post, so no feed, and changes nothing.
CREATE OR REPLACE FUNCTION posts_forget_clicks() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  ${sumsAdd("click", "(SELECT OLD.feed_id AS feed_id, clicked_at AS at FROM clicks WHERE post_id = OLD.id) AS dated", -1)}
  RETURN OLD;
END $$;

${clickSumsTrigger}
CREATE OR REPLACE FUNCTION posts_truncate_rollups() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE scope_days, feed_post_sums, feed_post_days, feed_click_sums, feed_click_days, post_month_ranks;
  RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION clicks_truncate_rollups() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE feed_click_sums, feed_click_days;
  RETURN NULL;
END $$;

-- Deletes per statement now; updates stay a row trigger (posts_track_rollups_update).
DROP TRIGGER IF EXISTS posts_track_rollups ON posts;
CREATE TRIGGER posts_remove_rollups AFTER DELETE ON posts REFERENCING OLD TABLE AS gone
  FOR EACH STATEMENT EXECUTE FUNCTION posts_remove_rollups();

DROP TABLE IF EXISTS post_days, click_days;
`;

/**
 * Fills the (empty) tables of migration 27 from the posts and clicks: on upgrade, and after
 * migrate-data's load. Each a statement over what it reads.
 */
export const runningSumFills: ReadonlyArray<readonly ["posts" | "clicks", string]> = [
  ["posts", sumsAdd("post", postsDated("posts"))],
  [
    "clicks",
    sumsAdd(
      "click",
      "(SELECT p.feed_id, k.clicked_at AS at FROM clicks k JOIN posts p ON p.id = k.post_id) AS dated",
    ),
  ],
  [
    "posts",
    `INSERT INTO post_month_ranks (category_id, month, language_id, id, day, rank)
      SELECT category_id, month, language_id, id, day,
        row_number() OVER (PARTITION BY category_id, month, language_id ORDER BY id)
      FROM ${rankRows("posts")} c;`,
  ],
];

export const ANALYZE_RUNNING_SUMS =
  "feed_post_sums, feed_post_days, feed_click_sums, feed_click_days, post_month_ranks";

const STEP = "counting posts and clicks per feed as running sums, ranking posts per month (schema 27)";

/** Fills the tables, reporting progress in rows read. */
export async function fillRunningSums(sql: Sql, progress?: MigrationProgress): Promise<void> {
  const [count] = await rows<{ posts: number; clicks: number }>(
    sql,
    "SELECT (SELECT count(*) FROM posts)::float8 AS posts, (SELECT count(*) FROM clicks)::float8 AS clicks",
  );
  const total = runningSumFills.reduce((sum, [of]) => sum + count![of], 0);
  let done = 0;
  progress?.(STEP, 0, total);
  for (const [of, statement] of runningSumFills) {
    await sql.query(statement);
    done += count![of];
    progress?.(STEP, done, total);
  }
}

export async function createRunningSums(sql: Sql, progress: MigrationProgress): Promise<void> {
  await sql.query(runningSumsSchema);
  await fillRunningSums(sql, progress);
  await sql.query(`ANALYZE ${ANALYZE_RUNNING_SUMS}`);
}
