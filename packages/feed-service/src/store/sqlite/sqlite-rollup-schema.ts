/**
 * Migration 8: small tables that let the reads stop early instead of reading every row (design.md,
 * "Costs are bounded by design"), each kept in step by triggers so that every writer (ingest, the
 * demo loader, admin commands, another process) maintains them without knowing of them, and
 * filled from the existing rows when an older database is upgraded.
 *
 * - `post_id_blocks`: per block of 1024 post ids, the lowest and highest post_date stored there.
 *   Date-ordered searches walked the hits by id with these bounds until schema 14 keyed the index
 *   by date (sqlite-date-keys.ts); no read used them since, and schema 19 drops them
 *   (`dropIdBlocks`): their triggers were work on every write for nothing.
 * - `post_days`: posts per UTC day per (feed, language, category; 0 = none), with the lowest and
 *   highest id among them (bounds in the same sense). A deep page finds the day where its offset
 *   lands by adding day counts, and skips only within that day (sqlite-day-seek.ts).
 * - `feed_click_days`: clicks per feed per UTC day of the click, for click rankings over long
 *   windows (whole days from here, the partial first day from the clicks themselves).
 *   Schema 21 drops both: with many feeds they near a row per post or click, and what read them
 *   reads running sums and day counts instead (sqlite-running-sums-schema.ts).
 * - `posts_by_clicks`, `posts_by_category_clicks`: clicked posts by all-time clicks, newest first
 *   within equal counts, for the most popular posts walk (sqlite-popular-posts.ts) until schema 26,
 *   which reads each post's newest clicks instead (sqlite-click-levels.ts);
 *   `posts_clicked_by_id`: the same posts by clicks then id, the order of a search sorted by clicks
 *   (sqlite-clicked-hits.ts). Partial (clicks > 0): ingest never writes them.
 *
 * Rows of a removed feed go with it (ON DELETE CASCADE): a click's trigger cannot find the feed of
 * a post that the same cascade has already deleted.
 */

/** floor(x / 1 day) for epoch milliseconds, before 1970 too (SQLite's `/` truncates toward zero). */
const day = (x: string) => `(${x} / 86400000 - (${x} % 86400000 < 0))`;

const postDayUp = (row: "new") => `
  INSERT INTO post_days (day, feed_id, language_id, category_id, posts, min_id, max_id)
  VALUES (${day(`${row}.post_date`)}, ${row}.feed_id, ${row}.language_id, coalesce(${row}.category_id, 0), 1, ${row}.id, ${row}.id)
  ON CONFLICT (day, feed_id, language_id, category_id) DO UPDATE SET
    posts = posts + 1, min_id = min(min_id, excluded.min_id), max_id = max(max_id, excluded.max_id);`;

/** Schema 8's id blocks, kept by its triggers until schema 19. */
const idBlockUp = (row: "new") => `
  INSERT INTO post_id_blocks (block, min_date, max_date) VALUES (${row}.id >> 10, ${row}.post_date, ${row}.post_date)
  ON CONFLICT (block) DO UPDATE SET
    min_date = min(min_date, excluded.min_date), max_date = max(max_date, excluded.max_date);`;

const postDayDown = (row: "old") => {
  const key = `day = ${day(`${row}.post_date`)} AND feed_id = ${row}.feed_id AND language_id = ${row}.language_id
    AND category_id = coalesce(${row}.category_id, 0)`;
  return `
  UPDATE post_days SET posts = posts - 1 WHERE ${key};
  DELETE FROM post_days WHERE ${key} AND posts <= 0;`;
};

/** The triggers that keep `post_days` on insert and update; schema 8's also kept the id blocks. */
const postDayTriggers = (idBlocks: boolean) => `
CREATE TRIGGER posts_rollup_insert AFTER INSERT ON posts BEGIN ${postDayUp("new")} ${idBlocks ? idBlockUp("new") : ""}
END;
CREATE TRIGGER posts_rollup_update AFTER UPDATE OF post_date, feed_id, language_id, category_id ON posts
WHEN old.post_date IS NOT new.post_date OR old.feed_id IS NOT new.feed_id
  OR old.language_id IS NOT new.language_id OR old.category_id IS NOT new.category_id
BEGIN ${postDayDown("old")} ${postDayUp("new")} ${idBlocks ? idBlockUp("new") : ""}
END;`;

/** Fills the (empty) roll-up tables from the posts and clicks, on upgrade to schema 8. */
export const fillRollups = `
INSERT INTO post_days (day, feed_id, language_id, category_id, posts, min_id, max_id)
  SELECT ${day("post_date")}, feed_id, language_id, coalesce(category_id, 0), count(*), min(id), max(id)
  FROM posts GROUP BY 1, 2, 3, 4;
INSERT INTO feed_click_days (feed_id, day, clicks)
  SELECT p.feed_id, ${day("k.clicked_at")}, count(*) FROM clicks k JOIN posts p ON p.id = k.post_id GROUP BY 1, 2;
`;

/** Schema 8 as released (schema 19 takes the id blocks away again). */
export const rollupTables = `
CREATE TABLE post_id_blocks (
  block INTEGER PRIMARY KEY,
  min_date INTEGER NOT NULL,
  max_date INTEGER NOT NULL
);
INSERT INTO post_id_blocks (block, min_date, max_date)
  SELECT id >> 10, min(post_date), max(post_date) FROM posts GROUP BY id >> 10;

CREATE TABLE post_days (
  day INTEGER NOT NULL,
  feed_id INTEGER NOT NULL REFERENCES feeds (id) ON DELETE CASCADE,
  language_id INTEGER NOT NULL,
  category_id INTEGER NOT NULL,
  posts INTEGER NOT NULL,
  min_id INTEGER NOT NULL,
  max_id INTEGER NOT NULL,
  PRIMARY KEY (day, feed_id, language_id, category_id)
) WITHOUT ROWID;
CREATE INDEX post_days_by_feed ON post_days (feed_id, day);
CREATE INDEX post_days_by_category ON post_days (category_id, day);

CREATE TABLE feed_click_days (
  feed_id INTEGER NOT NULL REFERENCES feeds (id) ON DELETE CASCADE,
  day INTEGER NOT NULL,
  clicks INTEGER NOT NULL,
  PRIMARY KEY (feed_id, day)
) WITHOUT ROWID;
CREATE INDEX feed_click_days_by_day ON feed_click_days (day);

${fillRollups}
CREATE INDEX posts_by_clicks ON posts (clicks, post_date, id) WHERE clicks > 0;
CREATE INDEX posts_clicked_by_id ON posts (clicks, id, language_id) WHERE clicks > 0;
CREATE INDEX posts_by_category_clicks ON posts (category_id, clicks, post_date, id) WHERE clicks > 0;

${postDayTriggers(true)}
CREATE TRIGGER posts_rollup_delete AFTER DELETE ON posts BEGIN ${postDayDown("old")}
END;

CREATE TRIGGER clicks_rollup_insert AFTER INSERT ON clicks BEGIN
  INSERT INTO feed_click_days (feed_id, day, clicks)
    SELECT feed_id, ${day("new.clicked_at")}, 1 FROM posts WHERE id = new.post_id
  ON CONFLICT (feed_id, day) DO UPDATE SET clicks = clicks + 1;
END;
CREATE TRIGGER clicks_rollup_delete AFTER DELETE ON clicks BEGIN
  UPDATE feed_click_days SET clicks = clicks - 1
    WHERE feed_id = (SELECT feed_id FROM posts WHERE id = old.post_id) AND day = ${day("old.clicked_at")};
END;
`;

/**
 * Schema 19: the id blocks go, table and upkeep: the post triggers are made again without them.
 * Run again (a test re-running migrations), it finds nothing left to drop.
 */
export const dropIdBlocks = `
DROP TRIGGER IF EXISTS posts_rollup_insert;
DROP TRIGGER IF EXISTS posts_rollup_update;
${postDayTriggers(false)}
DROP TABLE IF EXISTS post_id_blocks;
`;
