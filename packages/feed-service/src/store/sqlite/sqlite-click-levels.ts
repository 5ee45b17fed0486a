/**
 * Each clicked post's n-th newest click for n in `CLICK_LEVELS` (migration 26), indexed by
 * (level, category, time): a post has at least n clicks at or after `since` exactly when its
 * n-th newest click is at or after `since`, so the posts with at least n clicks in a window that
 * ends now are one range of that index. The most popular posts over such a window are then read
 * from the highest level down to the first level that holds a page of posts, whatever share of
 * all clicks the window holds (sqlite-popular-posts.ts).
 *
 * Levels run 1..CONSECUTIVE_LEVELS, then double: a post's window count is exact from its highest
 * level up to there, and past it lies between that level and the next (then counted); a click
 * moves one row per level its post has, about CONSECUTIVE_LEVELS + log2(clicks / CONSECUTIVE_LEVELS).
 *
 * Triggers keep the rows in step with `clicks` in the statement that writes a click:
 * - a click inserted moves each row on a click older than it to the next newer click (the n-th
 *   newest becomes the former (n-1)-th); rows for levels the post reaches are added when
 *   `posts.clicks` grows, the store's all-time counter written with every click;
 * - a click deleted moves each row on it or an older click to the next older click, and drops
 *   the rows left without one;
 * - a post's category, date and deletion follow the post.
 * The post's date is kept in the index beside the click's so that a page's order (window clicks,
 * then date) is read from the index alone, not from a seek into the posts per candidate.
 * Clicks are ordered by (clicked_at, id), so two clicks at the same instant have their own ranks.
 */
import type Database from "better-sqlite3";
import type { MigrationProgress } from "../migration-progress.js";

/**
 * A post with at least this many clicks moves this many rows per click; a post of a page with this
 * many clicks or more in the window costs a count of its clicks. Assumes the pages of long windows
 * are mostly posts with fewer (with 16, most of such a page was counted on the 1M shapes with
 * heavy-tailed clicks: bench/NOTES.md, sqlitepop31c).
 */
export const CONSECUTIVE_LEVELS = 32;

/** The levels, ascending: 1..32, then 64, 128, ... up to 2^41 clicks. */
export const CLICK_LEVELS: readonly number[] = [
  ...Array.from({ length: CONSECUTIVE_LEVELS }, (_, i) => i + 1),
  ...Array.from({ length: 36 }, (_, i) => CONSECUTIVE_LEVELS * 2 ** (i + 1)),
];

/** The next level above `level`. */
export function nextLevel(level: number): number {
  return level < CONSECUTIVE_LEVELS ? level + 1 : level * 2;
}

const levelList = JSON.stringify(CLICK_LEVELS);

const tables = `
CREATE TABLE post_click_levels (
  post_id INTEGER NOT NULL,
  level INTEGER NOT NULL,
  category_key INTEGER NOT NULL,
  post_date INTEGER NOT NULL,
  clicked_at INTEGER,
  click_id INTEGER,
  PRIMARY KEY (post_id, level)
) WITHOUT ROWID;
CREATE INDEX post_click_levels_by_time ON post_click_levels (level, category_key, clicked_at, post_date);
`;

// A post's category as kept in the rows: 0 for none, so that a window over every category is an
// IN list of keys that the index seeks each of.
const categoryKey = (post: string) => `coalesce(${post}.category_id, 0)`;

const triggers = `
CREATE TRIGGER clicks_levels_insert AFTER INSERT ON clicks BEGIN
  UPDATE post_click_levels SET (clicked_at, click_id) = (
    SELECT k.clicked_at, k.id FROM clicks k INDEXED BY clicks_by_post_time
    WHERE k.post_id = new.post_id
      AND (k.clicked_at, k.id) > (post_click_levels.clicked_at, post_click_levels.click_id)
    ORDER BY k.clicked_at, k.id LIMIT 1)
  WHERE post_id = new.post_id AND (clicked_at, click_id) < (new.clicked_at, new.id);
END;
CREATE TRIGGER clicks_levels_delete AFTER DELETE ON clicks BEGIN
  UPDATE post_click_levels SET (clicked_at, click_id) = (
    SELECT k.clicked_at, k.id FROM clicks k INDEXED BY clicks_by_post_time
    WHERE k.post_id = old.post_id
      AND (k.clicked_at, k.id) < (post_click_levels.clicked_at, post_click_levels.click_id)
    ORDER BY k.clicked_at DESC, k.id DESC LIMIT 1)
  WHERE post_id = old.post_id AND (clicked_at, click_id) <= (old.clicked_at, old.id);
  DELETE FROM post_click_levels WHERE post_id = old.post_id AND click_id IS NULL;
END;
-- A level is reached when the count passes one. One click more (a click as the store records
-- it) reaches at most the level equal to the new count (1..CONSECUTIVE_LEVELS, then the powers of
-- two), whose row is the post's oldest click: one seek.
CREATE TRIGGER posts_levels_grow_one AFTER UPDATE OF clicks ON posts
WHEN new.clicks = old.clicks + 1
  AND (new.clicks <= ${CONSECUTIVE_LEVELS} OR (new.clicks & (new.clicks - 1)) = 0)
BEGIN
  INSERT OR REPLACE INTO post_click_levels (post_id, level, category_key, post_date, clicked_at, click_id)
  SELECT new.id, new.clicks, ${categoryKey("new")}, new.post_date, k.clicked_at, k.id
  FROM clicks k INDEXED BY clicks_by_post_time WHERE k.post_id = new.id
  ORDER BY k.clicked_at, k.id LIMIT 1;
END;
-- Several clicks at once (a story taking its copies' clicks) may pass several levels: below
-- CONSECUTIVE_LEVELS every count is one, past it the counts whose highest bit is above the old
-- count's (xor as or less and). Their rows are read by ranking the post's clicks.
CREATE TRIGGER posts_levels_grow_many AFTER UPDATE OF clicks ON posts
WHEN new.clicks > old.clicks + 1
  AND (old.clicks < ${CONSECUTIVE_LEVELS} OR ((new.clicks | old.clicks) - (new.clicks & old.clicks)) > old.clicks)
BEGIN
  INSERT OR REPLACE INTO post_click_levels (post_id, level, category_key, post_date, clicked_at, click_id)
  SELECT new.id, r.n, ${categoryKey("new")}, new.post_date, r.clicked_at, r.id
  FROM (SELECT clicked_at, id, row_number() OVER (ORDER BY clicked_at DESC, id DESC) AS n
    FROM clicks INDEXED BY clicks_by_post_time WHERE post_id = new.id) r
  WHERE r.n > old.clicks AND r.n <= new.clicks AND r.n IN (SELECT value FROM json_each('${levelList}'));
END;
CREATE TRIGGER posts_levels_keys AFTER UPDATE OF category_id, post_date ON posts
WHEN new.clicks > 0 AND (${categoryKey("new")} <> ${categoryKey("old")} OR new.post_date <> old.post_date) BEGIN
  UPDATE post_click_levels SET category_key = ${categoryKey("new")}, post_date = new.post_date
  WHERE post_id = new.id;
END;
CREATE TRIGGER posts_levels_delete AFTER DELETE ON posts BEGIN
  DELETE FROM post_click_levels WHERE post_id = old.id;
END;
`;

const STEP = "ranking each post's clicks newest first (schema 26)";
const CHUNKS = 20;

/**
 * Runs `fill` over the clicks a range of post ids at a time (CHUNKS ranges, so one statement never
 * holds every click), reporting `step`'s progress in clicks: `fill` returns how many its range held.
 */
export function byClickPostRanges(
  db: Database.Database,
  step: string,
  progress: MigrationProgress,
  fill: (from: number, to: number) => number,
): void {
  const total = db.prepare("SELECT count(*) FROM clicks").pluck().get() as number;
  const maxPost = (db.prepare("SELECT max(post_id) FROM clicks").pluck().get() as number | null) ?? 0;
  const width = Math.ceil((maxPost + 1) / CHUNKS);
  let done = 0;
  progress(step, 0, total);
  for (let from = 0; from <= maxPost; from += width) {
    done += fill(from, from + width);
    progress(step, done, total);
  }
}

/** Fills the rows from `clicks`, a range of post ids at a time, reporting progress in clicks read. */
export function fillClickLevels(db: Database.Database, progress: MigrationProgress): void {
  const fill =
    db.prepare(`INSERT INTO post_click_levels (post_id, level, category_key, post_date, clicked_at, click_id)
    SELECT r.post_id, r.n, ${categoryKey("p")}, p.post_date, r.clicked_at, r.id
    FROM (SELECT post_id, clicked_at, id,
            row_number() OVER (PARTITION BY post_id ORDER BY clicked_at DESC, id DESC) AS n
          FROM clicks INDEXED BY clicks_by_post_time WHERE post_id >= ? AND post_id < ?) r
    JOIN posts p ON p.id = r.post_id
    WHERE r.n IN (SELECT value FROM json_each('${levelList}'))`);
  const counted = db.prepare(
    "SELECT count(*) FROM clicks INDEXED BY clicks_by_post_time WHERE post_id >= ? AND post_id < ?",
  );
  byClickPostRanges(db, STEP, progress, (from, to) => {
    fill.run(from, to);
    return counted.pluck().get(from, to) as number;
  });
}

/** The triggers' names, for dropping them. */
const triggerNames = [...triggers.matchAll(/CREATE TRIGGER (\w+)/g)].map((m) => m[1]!);

/**
 * Migration 26. Taken again on a database put back to an older version (its migration rows
 * deleted, as every migration here allows), it builds the rows afresh from the clicks.
 */
export function addClickLevels(db: Database.Database, progress: MigrationProgress): void {
  for (const name of triggerNames) db.exec(`DROP TRIGGER IF EXISTS ${name}`);
  db.exec("DROP TABLE IF EXISTS post_click_levels");
  db.exec(tables);
  fillClickLevels(db, progress);
  db.exec(triggers);
}
