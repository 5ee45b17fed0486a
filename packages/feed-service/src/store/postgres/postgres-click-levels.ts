/**
 * Migration 60: each clicked post's n-th newest click for n = 1..16, then the powers of two, as
 * SQLite keeps them (migration 26, ../sqlite/sqlite-click-levels.ts): a post has at least n clicks
 * in a window that ends now exactly when its n-th newest click is in it, so the posts with n or
 * more are one range of (level, clicked_at). The most popular posts over a window are then read
 * from the highest level down to the first whose range holds a page, L: no post outside the
 * ranges L.. can enter that page.
 *
 * Kept by a refresh, not by each click: moving a post's level rows on every click would add about
 * as much server work to /click as the click itself costs (bench/NOTES.md). The rows describe the
 * clicks up to `through_id` (refreshed_click_levels_state); a read adds the clicks after it, which
 * it reads by id, so it is exact however far the rows lag:
 * - a post outside the ranges had at most L - 1 clicks in the window at `through_id` and, if it
 *   was not clicked since, has no more now, while the L-th level's range already holds a page of
 *   posts with L or more: the page is among the ranges' posts and the posts clicked since;
 * - a post found in k ranges of L..16 and not at 16 had L - 1 + k clicks in the window; one at 16
 *   or above is counted from its clicks, and so is one clicked since that was outside the ranges,
 *   unless its L - 1 clicks at most and its clicks since cannot reach the ranges' limit-th count.
 * Every click up to `through_id` was committed before the refresh that set it read it
 * (`LOCK clicks IN SHARE MODE` waits for every transaction writing clicks), and the refresh writes
 * the rows and `through_id` in one transaction, so a statement reads rows and `through_id` of one
 * refresh and the clicks after it from one snapshot.
 *
 * What a refresh cannot see coming, a click deleted or moved to another post (a post deleted, a
 * story taking its copies' clicks) and a clicked post's category or date changed, marks the post
 * in refreshed_click_levels_dirty (statement triggers with transition tables, and a row trigger on
 * those two columns only); a read falls back to the other ways while any post is marked, and the
 * next refresh recomputes the marked posts. TRUNCATE empties the rows and sets `through_id` to 0.
 *
 * The refresh runs on the primary, by the store that wrote the clicks: after REFRESH_CLICKS of
 * its clicks, when it opens, and when a read found the rows unusable (too far behind, or marked).
 * Refreshes of several processes are serialised by an advisory lock; one that crashes rolls back
 * and leaves the rows of the last one, still exact with the clicks after it added.
 */
import type pg from "pg";
import { inTransaction, rows, type Sql } from "./postgres-connection.js";

/** Levels up to this one are consecutive; a post at it or above is counted from its clicks. */
export const CONSECUTIVE_LEVELS = 16;

/** The levels, ascending: 1..16, then 32, 64, ... up to 2^30 (posts.clicks is an integer). */
export const CLICK_LEVELS: readonly number[] = [
  ...Array.from({ length: CONSECUTIVE_LEVELS }, (_, i) => i + 1),
  ...Array.from({ length: 26 }, (_, i) => CONSECUTIVE_LEVELS * 2 ** (i + 1)),
];

/** The levels from the highest down: the order a read tries them in. */
const DESCENDING = [...CLICK_LEVELS].reverse();

/**
 * A store refreshes the levels after this many of its clicks. A read counts the clicks since the
 * refresh one by one, and each post clicked since from all its clicks in the window.
 */
export const REFRESH_CLICKS = 2_000;

/**
 * A read that finds more clicks than this after the refresh ranks another way (and asks for a
 * refresh): its own work grows with them, and past some multiple of REFRESH_CLICKS exceeds the
 * walk's (bench/NOTES.md).
 */
export const MAX_CLICKS_BEHIND = 4 * REFRESH_CLICKS;

/** Any fixed number: the advisory lock that serialises refreshes. */
const REFRESH_LOCK = 7_241_964_060;

/** Migration 60's tables (a probe makes them TEMPORARY beside a database without them). */
export const clickLevelsTables = `
CREATE TABLE IF NOT EXISTS refreshed_click_levels (
  post_id integer NOT NULL,
  level integer NOT NULL,
  clicked_at bigint NOT NULL,
  category_id integer,
  post_date bigint NOT NULL,
  PRIMARY KEY (post_id, level)
);
CREATE INDEX IF NOT EXISTS refreshed_click_levels_by_time
  ON refreshed_click_levels (level, clicked_at) INCLUDE (post_id, post_date);
CREATE INDEX IF NOT EXISTS refreshed_click_levels_by_category
  ON refreshed_click_levels (level, category_id, clicked_at) INCLUDE (post_id, post_date);
CREATE TABLE IF NOT EXISTS refreshed_click_levels_state (
  one boolean PRIMARY KEY DEFAULT true CHECK (one),
  through_id integer NOT NULL
);
INSERT INTO refreshed_click_levels_state (one, through_id) VALUES (true, 0) ON CONFLICT DO NOTHING;
CREATE TABLE IF NOT EXISTS refreshed_click_levels_dirty (post_id integer NOT NULL);
`;

/** Migration 60: its tables, and the triggers that mark what a refresh cannot see coming. */
export const clickLevelsSchema = `${clickLevelsTables}

CREATE OR REPLACE FUNCTION click_levels_mark_old() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO refreshed_click_levels_dirty (post_id) SELECT DISTINCT post_id FROM old_clicks;
  RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION click_levels_mark_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO refreshed_click_levels_dirty (post_id)
    SELECT post_id FROM old_clicks UNION SELECT post_id FROM new_clicks;
  RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION click_levels_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE refreshed_click_levels, refreshed_click_levels_dirty;
  -- The identity may restart: every click written after this is one the rows do not hold.
  UPDATE refreshed_click_levels_state SET through_id = 0;
  RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION click_levels_mark_post() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO refreshed_click_levels_dirty (post_id) VALUES (NEW.id);
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS clicks_mark_levels_deleted ON clicks;
CREATE TRIGGER clicks_mark_levels_deleted AFTER DELETE ON clicks REFERENCING OLD TABLE AS old_clicks
  FOR EACH STATEMENT EXECUTE FUNCTION click_levels_mark_old();
DROP TRIGGER IF EXISTS clicks_mark_levels_moved ON clicks;
CREATE TRIGGER clicks_mark_levels_moved AFTER UPDATE ON clicks
  REFERENCING OLD TABLE AS old_clicks NEW TABLE AS new_clicks
  FOR EACH STATEMENT EXECUTE FUNCTION click_levels_mark_moved();
DROP TRIGGER IF EXISTS clicks_levels_truncated ON clicks;
CREATE TRIGGER clicks_levels_truncated AFTER TRUNCATE ON clicks
  FOR EACH STATEMENT EXECUTE FUNCTION click_levels_truncated();
-- Only an update that names either column fires it (a click's UPDATE of posts.clicks does not).
DROP TRIGGER IF EXISTS posts_mark_levels ON posts;
CREATE TRIGGER posts_mark_levels AFTER UPDATE OF category_id, post_date ON posts
  FOR EACH ROW WHEN (NEW.clicks > 0 AND (OLD.category_id IS DISTINCT FROM NEW.category_id
    OR OLD.post_date IS DISTINCT FROM NEW.post_date))
  EXECUTE FUNCTION click_levels_mark_post();
`;

/** The level rows of the posts `$1` (all when null) from their clicks up to id `$2`. */
const fillLevels = (posts: string) => `
INSERT INTO refreshed_click_levels (post_id, level, clicked_at, category_id, post_date)
  SELECT k.post_id, k.n, k.clicked_at, p.category_id, p.post_date
  FROM (SELECT c.post_id, c.clicked_at, row_number() OVER (PARTITION BY c.post_id ORDER BY c.clicked_at DESC)::integer AS n
      FROM clicks c WHERE c.id <= $2${posts}) k
    JOIN clicked_posts p ON p.id = k.post_id
  WHERE k.n = ANY ($1::integer[])`;

/**
 * Every post's levels from every click, as one text without parameters (migrate-data's put-back,
 * whose transaction holds every click it loaded).
 */
export const fillAllClickLevels = `TRUNCATE refreshed_click_levels, refreshed_click_levels_dirty;
${fillLevels("")
  .replace("$1::integer[]", `'{${CLICK_LEVELS.join(",")}}'::integer[]`)
  .replace("$2", "(SELECT max(id) FROM clicks)")};
UPDATE refreshed_click_levels_state SET through_id = coalesce((SELECT max(id) FROM clicks), 0)`;

/**
 * Every post's levels from its clicks up to id `through`, in the caller's transaction; without
 * `through`, from every click, which the caller's transaction must see committed (the migration,
 * migrate-data's load).
 */
export async function fillClickLevels(sql: Sql, through?: number): Promise<void> {
  await sql.query("TRUNCATE refreshed_click_levels, refreshed_click_levels_dirty");
  let upTo = through;
  if (upTo === undefined) {
    const [top] = await rows<{ t: number }>(sql, "SELECT coalesce(max(id), 0) AS t FROM clicks");
    upTo = top!.t;
  }
  await sql.query(fillLevels(""), [CLICK_LEVELS, upTo]);
  await sql.query("UPDATE refreshed_click_levels_state SET through_id = $1", [upTo]);
}

/** Migration 60. */
export async function createClickLevels(sql: Sql): Promise<void> {
  await sql.query(clickLevelsSchema);
  // Every click transaction under way ends before the rows are read, and none starts until the
  // migration commits.
  await sql.query("LOCK TABLE clicks IN SHARE MODE");
  await fillClickLevels(sql);
}

export interface RefreshReport {
  /** Whether this call refreshed (false: another refresh held the lock, or the clicks' lock timed out). */
  refreshed: boolean;
  /** The posts whose rows were computed again. */
  posts: number;
  /** `through_id` after the refresh. */
  throughId: number;
}

/**
 * Brings the levels up to the clicks committed now: first the newest click id such that every
 * click up to it is committed (read under `LOCK clicks IN SHARE MODE`, held only for that read),
 * then, in one transaction, the rows of every post clicked since the last refresh and of every
 * marked post computed again from their clicks up to that id.
 */
export async function refreshClickLevels(pool: pg.Pool, lockTimeoutMs = 2_000): Promise<RefreshReport> {
  let committed: number;
  try {
    committed = await inTransaction(pool, async (sql) => {
      await sql.query(`SET LOCAL lock_timeout = ${Math.max(1, Math.floor(lockTimeoutMs))}`);
      await sql.query("LOCK TABLE clicks IN SHARE MODE");
      const [top] = await rows<{ t: number }>(sql, "SELECT coalesce(max(id), 0) AS t FROM clicks");
      return top!.t;
    });
  } catch (error) {
    if ((error as { code?: string }).code === "55P03" || /lock timeout/i.test(String(error)))
      return { refreshed: false, posts: 0, throughId: 0 };
    throw error;
  }
  return inTransaction(pool, async (sql) => {
    const [lock] = await rows<{ ok: boolean }>(sql, "SELECT pg_try_advisory_xact_lock($1) AS ok", [
      REFRESH_LOCK,
    ]);
    if (!lock!.ok) return { refreshed: false, posts: 0, throughId: 0 };
    const [state] = await rows<{ t: number }>(
      sql,
      "SELECT through_id AS t FROM refreshed_click_levels_state FOR UPDATE",
    );
    const last = state!.t;
    // A refresh that read its id before another committed a later one: every click up to the
    // later id is committed too.
    const through = Math.max(committed, last);
    if (last === 0 && through > 0) {
      await fillClickLevels(sql, through);
      const [n] = await rows<{ n: number }>(
        sql,
        "SELECT count(DISTINCT post_id) AS n FROM refreshed_click_levels",
      );
      return { refreshed: true, posts: n!.n, throughId: through };
    }
    const [changed] = await rows<{ ids: number[] }>(
      sql,
      `WITH marked AS (DELETE FROM refreshed_click_levels_dirty RETURNING post_id)
      SELECT coalesce(array_agg(DISTINCT post_id), '{}') AS ids FROM (
        SELECT post_id FROM marked UNION ALL SELECT post_id FROM clicks WHERE id > $1 AND id <= $2) x`,
      [last, through],
    );
    const ids = changed!.ids;
    if (ids.length > 0) {
      await sql.query("DELETE FROM refreshed_click_levels WHERE post_id = ANY ($1::integer[])", [ids]);
      await sql.query(fillLevels(" AND c.post_id = ANY ($3::integer[])"), [CLICK_LEVELS, through, ids]);
    }
    await sql.query("UPDATE refreshed_click_levels_state SET through_id = $1", [through]);
    return { refreshed: true, posts: ids.length, throughId: through };
  });
}

/**
 * Runs the refreshes of one store: one at a time, another once it ends when one was asked for
 * meanwhile; a failed refresh is forgotten (the reads rank another way until the next one).
 */
export class ClickLevelsRefresher {
  readonly #pool: pg.Pool;
  #clicks = 0;
  #running: Promise<void> | null = null;
  #again = false;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  /** `n` clicks stored by this store: a refresh after REFRESH_CLICKS of them. */
  clicked(n = 1): void {
    this.#clicks += n;
    if (this.#clicks >= REFRESH_CLICKS) this.request();
  }

  /** A refresh now, or after the one under way. */
  request(): void {
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#clicks = 0;
    this.#running = refreshClickLevels(this.#pool)
      .then(
        () => {},
        () => {},
      )
      .finally(() => {
        this.#running = null;
        if (this.#again) {
          this.#again = false;
          this.request();
        }
      });
  }

  /** Resolves once no refresh is under way: before the pool closes. */
  async drained(): Promise<void> {
    this.#again = false;
    while (this.#running) await this.#running;
  }
}

export interface LevelsRanked {
  id: number;
  period: number;
}

/**
 * The top `limit` of the window from `since` (by window clicks, then post_date, then id,
 * descending), from the levels and the clicks since their refresh, in one statement (one
 * snapshot); null when the rows are unusable: a post marked, or more than MAX_CLICKS_BEHIND
 * clicks after `through_id`. `countWithin`: a post counted from its clicks counts those in the
 * window, else its all-time count less those before it (whichever side holds fewer entries).
 */
export async function rankByClickLevels(
  sql: Sql,
  args: { since: number; limit: number; categoryId: number | null; countWithin: boolean },
): Promise<LevelsRanked[] | null> {
  const inCategory = args.categoryId === null ? "" : " AND v.category_id = $7";
  const clickedInCategory = args.categoryId === null ? "" : " AND p.category_id = $7";
  // The clicks since the refresh are read by id (clicked_at + 0: never through clicks_by_time,
  // which would read the whole window), at most MAX_CLICKS_BEHIND of them. A post clicked since is
  // outside the ranges when its row at L is (the ranges are nested: one seek, a scalar subquery so
  // that it stays one and does not become a hash of the range), and is looked up
  // only when it can reach the cut (OFFSET 0: no hash of every clicked post, or of the ranges).
  const exact = (id: string) => `CASE WHEN $6 THEN
      (SELECT count(*)::integer FROM clicks k WHERE k.post_id = ${id} AND k.clicked_at >= $1)
    ELSE (SELECT q.clicks FROM clicked_posts q WHERE q.id = ${id})
      - (SELECT count(*)::integer FROM clicks k WHERE k.post_id = ${id} AND k.clicked_at < $1) END`;
  const params: unknown[] = [
    args.since,
    args.limit,
    DESCENDING,
    CONSECUTIVE_LEVELS,
    MAX_CLICKS_BEHIND,
    args.countWithin,
  ];
  if (args.categoryId !== null) params.push(args.categoryId);
  const found = await rows<{ id: number; period: number }>(
    sql,
    `WITH s AS MATERIALIZED (
        SELECT st.through_id AS t,
          (SELECT count(*) FROM (SELECT 1 FROM clicks k WHERE k.id > st.through_id LIMIT $5 + 1) x) <= $5
            AND NOT EXISTS (SELECT 1 FROM refreshed_click_levels_dirty) AS ok
        FROM refreshed_click_levels_state st),
      lv AS MATERIALIZED (
        SELECT x.l, ARRAY(SELECT generate_series(x.l, greatest(x.l, $4))) AS levels FROM (
          SELECT coalesce((SELECT l FROM unnest($3::integer[]) AS l
            WHERE (SELECT count(*) FROM (SELECT 1 FROM refreshed_click_levels v
              WHERE v.level = l AND v.clicked_at >= $1${inCategory} LIMIT $2) y) >= $2 LIMIT 1), 1) AS l
          FROM s WHERE s.ok OFFSET 0) x),
      c AS MATERIALIZED (
        SELECT v.post_id AS id, max(v.post_date) AS post_date, count(*)::integer + lv.l - 1 AS n,
          bool_or(v.level >= $4) AS deep
        FROM lv JOIN refreshed_click_levels v ON v.level = ANY (lv.levels) AND v.clicked_at >= $1${inCategory}
        GROUP BY v.post_id, lv.l),
      d AS MATERIALIZED (
        SELECT k.post_id AS id, count(*)::integer AS n FROM clicks k
        WHERE k.id > (SELECT s.t FROM s WHERE s.ok) AND k.clicked_at + 0 >= $1 GROUP BY k.post_id),
      r1 AS MATERIALIZED (
        SELECT c.id, c.post_date, CASE WHEN c.deep THEN ${exact("c.id")} ELSE c.n + coalesce(d.n, 0) END AS period
          FROM c LEFT JOIN d ON d.id = c.id),
      cut AS (SELECT coalesce((SELECT period FROM r1 ORDER BY period DESC OFFSET $2 - 1 LIMIT 1), 0) AS n),
      r AS (
        SELECT * FROM r1
        UNION ALL
        SELECT e.id, p.post_date, ${exact("e.id")}
          FROM (SELECT d.id FROM lv, cut, d WHERE lv.l - 1 + d.n >= cut.n
              AND NOT coalesce((SELECT v.clicked_at >= $1${inCategory} FROM refreshed_click_levels v
                WHERE v.post_id = d.id AND v.level = lv.l), false)
              OFFSET 0) e
            CROSS JOIN LATERAL (SELECT p.post_date, p.category_id FROM clicked_posts p WHERE p.id = e.id OFFSET 0) p
          WHERE true${clickedInCategory})
    SELECT id, period FROM (SELECT id, period, post_date FROM r ORDER BY period DESC, post_date DESC, id DESC LIMIT $2) top
    UNION ALL
    SELECT 0, -1 FROM s WHERE NOT s.ok`,
    params,
  );
  return found.some((r) => r.period === -1) ? null : found;
}
