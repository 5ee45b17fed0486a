/**
 * Roll-ups that bound the cost of the long-window and deep-page reads (migration 6), kept in step
 * by triggers so that every writer (the store, `migrate-data`, a feed removal's cascade, a
 * category removal's SET NULL) keeps them right without knowing they exist:
 *
 * - `post_days`: posts per (feed, category, language, UTC day of post_date), with the sum of their
 *   all-time `clicks` and bounds of their ids (min_id <= every id <= max_id; a delete leaves the
 *   bounds wide, never wrong). Deep pages find the day their offset lands on from it; prolific
 *   feeds and language data add it up instead of counting posts.
 * - `click_days`: clicks per (feed, UTC day of clicked_at). Popular feeds add up the whole days of
 *   a window and count only the partial first day from `clicks`.
 *
 * A day is `floor(epoch ms / 86,400,000)`: `post_day()`.
 *
 * Migration 27 (postgres-running-sums.ts) replaced both tables, whose rows near one per post with
 * thousands of feeds, by running sums per feed, and dropped them; this is what upgrades still run.
 */
import type { Sql } from "./postgres-connection.js";

/** Fills the (empty) roll-up tables from the posts and clicks: on upgrade, and after migrate-data's load. */
export const fillRollups = `
INSERT INTO post_days (feed_id, category_id, language_id, day, posts, clicks, min_id, max_id)
  SELECT feed_id, category_id, language_id, post_day(post_date), count(*), sum(clicks), min(id), max(id)
    FROM posts GROUP BY 1, 2, 3, 4;
INSERT INTO click_days (feed_id, day, clicks)
  SELECT p.feed_id, post_day(k.clicked_at), count(*) FROM clicks k JOIN posts p ON p.id = k.post_id GROUP BY 1, 2;
`;

export const rollupSchema = `
LOCK TABLE posts, clicks, feeds IN SHARE ROW EXCLUSIVE MODE;

CREATE FUNCTION post_day(at bigint) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN floor(at / 86400000.0)::integer;

CREATE TABLE post_days (
  feed_id integer NOT NULL,
  category_id integer,
  language_id integer NOT NULL,
  day integer NOT NULL,
  posts integer NOT NULL,
  clicks bigint NOT NULL,
  min_id integer NOT NULL,
  max_id integer NOT NULL,
  CONSTRAINT post_days_key UNIQUE NULLS NOT DISTINCT (feed_id, day, language_id, category_id)
);
CREATE INDEX post_days_by_day ON post_days (day);

CREATE TABLE click_days (
  feed_id integer NOT NULL,
  day integer NOT NULL,
  clicks integer NOT NULL,
  PRIMARY KEY (feed_id, day)
);

CREATE FUNCTION post_days_remove(gone posts) RETURNS void LANGUAGE sql AS $$
  UPDATE post_days SET posts = posts - 1, clicks = clicks - gone.clicks
    WHERE feed_id = gone.feed_id AND day = post_day(gone.post_date) AND language_id = gone.language_id
      AND category_id IS NOT DISTINCT FROM gone.category_id;
$$;

CREATE FUNCTION post_days_add(came posts) RETURNS void LANGUAGE sql AS $$
  INSERT INTO post_days AS d (feed_id, category_id, language_id, day, posts, clicks, min_id, max_id)
    VALUES (came.feed_id, came.category_id, came.language_id, post_day(came.post_date), 1, came.clicks, came.id, came.id)
    ON CONFLICT ON CONSTRAINT post_days_key DO UPDATE SET posts = d.posts + 1, clicks = d.clicks + excluded.clicks,
      min_id = least(d.min_id, excluded.min_id), max_id = greatest(d.max_id, excluded.max_id);
$$;

CREATE FUNCTION posts_track_rollups() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.feed_id = NEW.feed_id AND OLD.language_id = NEW.language_id
      AND OLD.category_id IS NOT DISTINCT FROM NEW.category_id AND post_day(OLD.post_date) = post_day(NEW.post_date) THEN
    -- The common case (a click): same bucket, only the click sum moves.
    UPDATE post_days SET clicks = clicks + (NEW.clicks - OLD.clicks)
      WHERE feed_id = NEW.feed_id AND day = post_day(NEW.post_date) AND language_id = NEW.language_id
        AND category_id IS NOT DISTINCT FROM NEW.category_id;
    RETURN NULL;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN PERFORM post_days_remove(OLD); END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN PERFORM post_days_add(NEW); END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER posts_track_rollups AFTER INSERT OR DELETE ON posts
  FOR EACH ROW EXECUTE FUNCTION posts_track_rollups();
CREATE TRIGGER posts_track_rollups_update AFTER UPDATE OF feed_id, category_id, language_id, post_date, clicks ON posts
  FOR EACH ROW WHEN (OLD.feed_id IS DISTINCT FROM NEW.feed_id OR OLD.category_id IS DISTINCT FROM NEW.category_id
    OR OLD.language_id IS DISTINCT FROM NEW.language_id OR OLD.post_date IS DISTINCT FROM NEW.post_date
    OR OLD.clicks IS DISTINCT FROM NEW.clicks)
  EXECUTE FUNCTION posts_track_rollups();

-- A post's clicks leave click_days before the post goes: the cascade that then deletes them
-- finds no post, so no feed, and changes nothing.
CREATE FUNCTION posts_forget_clicks() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE click_days d SET clicks = d.clicks - c.n
    FROM (SELECT post_day(clicked_at) AS day, count(*) AS n FROM clicks WHERE post_id = OLD.id GROUP BY 1) c
    WHERE d.feed_id = OLD.feed_id AND d.day = c.day;
  RETURN OLD;
END $$;
CREATE TRIGGER posts_forget_clicks BEFORE DELETE ON posts
  FOR EACH ROW EXECUTE FUNCTION posts_forget_clicks();

CREATE FUNCTION clicks_track_rollups() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    UPDATE click_days d SET clicks = d.clicks - 1 FROM posts p
      WHERE p.id = OLD.post_id AND d.feed_id = p.feed_id AND d.day = post_day(OLD.clicked_at);
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    INSERT INTO click_days AS d (feed_id, day, clicks)
      SELECT p.feed_id, post_day(NEW.clicked_at), 1 FROM posts p WHERE p.id = NEW.post_id
      ON CONFLICT (feed_id, day) DO UPDATE SET clicks = d.clicks + 1;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER clicks_track_rollups AFTER INSERT OR DELETE OR UPDATE OF post_id, clicked_at ON clicks
  FOR EACH ROW EXECUTE FUNCTION clicks_track_rollups();

-- TRUNCATE fires no row triggers (migrate-data --force empties the tables with it).
CREATE FUNCTION posts_truncate_rollups() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE post_days, click_days;
  RETURN NULL;
END $$;
CREATE TRIGGER posts_truncate_rollups AFTER TRUNCATE ON posts
  FOR EACH STATEMENT EXECUTE FUNCTION posts_truncate_rollups();
CREATE FUNCTION clicks_truncate_rollups() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE click_days;
  RETURN NULL;
END $$;
CREATE TRIGGER clicks_truncate_rollups AFTER TRUNCATE ON clicks
  FOR EACH STATEMENT EXECUTE FUNCTION clicks_truncate_rollups();

${fillRollups}`;

/**
 * Indexes for top-k walks (migration 6): posts by all-time clicks (popular posts over a long
 * window, search by clicks) and a post's clicks by time (the window's correction per post).
 */
export const rankingIndexes = `
CREATE INDEX posts_by_clicks ON posts (clicks, post_date, id) WHERE clicks > 0;
CREATE INDEX posts_by_category_clicks ON posts (category_id, clicks, post_date, id) WHERE clicks > 0;
CREATE INDEX posts_by_clicks_then_id ON posts (clicks, id);
CREATE INDEX clicks_by_post_time ON clicks (post_id, clicked_at);
ANALYZE post_days;
ANALYZE click_days;
`;

export async function createRollups(sql: Sql): Promise<void> {
  await sql.query(rollupSchema);
  await sql.query(rankingIndexes);
}
