/**
 * Schema version 15: posts per UTC day per language and category (`post_day_counts`), kept by
 * triggers like the other roll-ups (sqlite-rollup-schema.ts). `post_days` also splits each day by
 * feed, so with thousands of feeds it nears a row per post, and a deep page's day seek summed it
 * whole; this table grows with days × languages × categories only, whatever the number of feeds,
 * and the seeks of lists not restricted to one feed read it instead (sqlite-day-seek.ts).
 * `feed_click_totals`: all-time clicks per feed, so that popular feeds over a window that leaves
 * few clicks before it count those instead of summing `feed_click_days`; schema 21 drops it, its
 * running sums (sqlite-running-sums-schema.ts) holding the same totals.
 */

/** floor(x / 1 day) for epoch milliseconds, before 1970 too (SQLite's `/` truncates toward zero). */
const day = (x: string) => `(${x} / 86400000 - (${x} % 86400000 < 0))`;

const up = (row: "new") => `
  INSERT INTO post_day_counts (day, language_id, category_id, posts)
  VALUES (${day(`${row}.post_date`)}, ${row}.language_id, coalesce(${row}.category_id, 0), 1)
  ON CONFLICT (day, language_id, category_id) DO UPDATE SET posts = posts + 1;`;

const down = (row: "old") => {
  const key = `day = ${day(`${row}.post_date`)} AND language_id = ${row}.language_id
    AND category_id = coalesce(${row}.category_id, 0)`;
  return `
  UPDATE post_day_counts SET posts = posts - 1 WHERE ${key};
  DELETE FROM post_day_counts WHERE ${key} AND posts <= 0;`;
};

/** Fills the (empty) day counts from the posts: on upgrade, and after migrate-data's copy. */
export const fillPostDayCounts = `
INSERT INTO post_day_counts (day, language_id, category_id, posts)
  SELECT ${day("post_date")}, language_id, coalesce(category_id, 0), count(*) FROM posts GROUP BY 1, 2, 3;`;

/** Fills the (empty) tables from the posts and clicks, as schema 15 made them. */
const fillDayCounts = `${fillPostDayCounts}
INSERT INTO feed_click_totals (feed_id, clicks)
  SELECT p.feed_id, count(*) FROM clicks k JOIN posts p ON p.id = k.post_id GROUP BY 1;`;

export const dayCountTables = `
-- Run again (a test re-running earlier migrations), it starts afresh.
DROP TRIGGER IF EXISTS posts_day_counts_insert;
DROP TRIGGER IF EXISTS posts_day_counts_update;
DROP TRIGGER IF EXISTS posts_day_counts_delete;
DROP TRIGGER IF EXISTS clicks_feed_totals_insert;
DROP TRIGGER IF EXISTS clicks_feed_totals_delete;
DROP TABLE IF EXISTS post_day_counts;
DROP TABLE IF EXISTS feed_click_totals;
CREATE TABLE feed_click_totals (
  feed_id INTEGER PRIMARY KEY REFERENCES feeds (id) ON DELETE CASCADE,
  clicks INTEGER NOT NULL
);
CREATE TABLE post_day_counts (
  day INTEGER NOT NULL,
  language_id INTEGER NOT NULL,
  category_id INTEGER NOT NULL,
  posts INTEGER NOT NULL,
  PRIMARY KEY (day, language_id, category_id)
) WITHOUT ROWID;
CREATE INDEX post_day_counts_by_category ON post_day_counts (category_id, day);
${fillDayCounts}
CREATE TRIGGER posts_day_counts_insert AFTER INSERT ON posts BEGIN ${up("new")}
END;
CREATE TRIGGER posts_day_counts_update AFTER UPDATE OF post_date, language_id, category_id ON posts
WHEN old.post_date IS NOT new.post_date OR old.language_id IS NOT new.language_id
  OR old.category_id IS NOT new.category_id
BEGIN ${down("old")} ${up("new")}
END;
CREATE TRIGGER posts_day_counts_delete AFTER DELETE ON posts BEGIN ${down("old")}
END;
CREATE TRIGGER clicks_feed_totals_insert AFTER INSERT ON clicks BEGIN
  INSERT INTO feed_click_totals (feed_id, clicks) SELECT feed_id, 1 FROM posts WHERE id = new.post_id
  ON CONFLICT (feed_id) DO UPDATE SET clicks = clicks + 1;
END;
CREATE TRIGGER clicks_feed_totals_delete AFTER DELETE ON clicks BEGIN
  UPDATE feed_click_totals SET clicks = clicks - 1
    WHERE feed_id = (SELECT feed_id FROM posts WHERE id = old.post_id);
END;
`;
