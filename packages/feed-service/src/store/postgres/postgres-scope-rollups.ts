/**
 * Roll-ups whose size does not grow with the number of feeds (migration 13). `post_days` keeps a
 * row per (feed, day, language, category): with thousands of feeds posting on different days it
 * nears one row per post, and every read that adds it up whole (the deep-page day seek, the
 * posts per day that size the search tiers, the language data) then costs what counting the posts
 * would. `scope_days` keeps posts and click sums per (category, language, day) only: at most
 * categories x languages x days rows whatever the feeds (spec §4 Latency: 1 to 10,000 feeds of
 * any size). `post_days` stayed for the reads scoped to one feed until migration 27
 * (postgres-running-sums.ts), which keeps those per feed as running sums instead.
 *
 * New posts reach both roll-ups by a statement trigger over the inserted rows (a transition
 * table, https://www.postgresql.org/docs/current/sql-createtrigger.html): one grouped upsert per
 * statement instead of one per post, so a refresh of 1,000 posts writes its roll-ups once.
 * Deletes and updates stay row triggers (rare: a feed removed, a click, a post re-filed).
 */
import type { Sql } from "./postgres-connection.js";

/** Fills the (empty) `scope_days` from the posts: on upgrade, and after migrate-data's load. */
export const fillScopeDays = `
INSERT INTO scope_days (category_id, language_id, day, posts, clicks)
  SELECT category_id, language_id, post_day(post_date), count(*), sum(clicks) FROM posts GROUP BY 1, 2, 3;
`;

export const scopeRollupSchema = `
LOCK TABLE posts, clicks, feeds IN SHARE ROW EXCLUSIVE MODE;

CREATE TABLE scope_days (
  category_id integer,
  language_id integer NOT NULL,
  day integer NOT NULL,
  posts integer NOT NULL,
  clicks bigint NOT NULL,
  CONSTRAINT scope_days_key UNIQUE NULLS NOT DISTINCT (category_id, language_id, day)
);
CREATE INDEX scope_days_by_day ON scope_days (day);
CREATE INDEX scope_days_by_language ON scope_days (language_id, day);

CREATE OR REPLACE FUNCTION post_days_remove(gone posts) RETURNS void LANGUAGE sql AS $$
  UPDATE post_days SET posts = posts - 1, clicks = clicks - gone.clicks
    WHERE feed_id = gone.feed_id AND day = post_day(gone.post_date) AND language_id = gone.language_id
      AND category_id IS NOT DISTINCT FROM gone.category_id;
  UPDATE scope_days SET posts = posts - 1, clicks = clicks - gone.clicks
    WHERE category_id IS NOT DISTINCT FROM gone.category_id AND language_id = gone.language_id
      AND day = post_day(gone.post_date);
$$;

CREATE OR REPLACE FUNCTION post_days_add(came posts) RETURNS void LANGUAGE sql AS $$
  INSERT INTO post_days AS d (feed_id, category_id, language_id, day, posts, clicks, min_id, max_id)
    VALUES (came.feed_id, came.category_id, came.language_id, post_day(came.post_date), 1, came.clicks, came.id, came.id)
    ON CONFLICT ON CONSTRAINT post_days_key DO UPDATE SET posts = d.posts + 1, clicks = d.clicks + excluded.clicks,
      min_id = least(d.min_id, excluded.min_id), max_id = greatest(d.max_id, excluded.max_id);
  INSERT INTO scope_days AS d (category_id, language_id, day, posts, clicks)
    VALUES (came.category_id, came.language_id, post_day(came.post_date), 1, came.clicks)
    ON CONFLICT ON CONSTRAINT scope_days_key DO UPDATE SET posts = d.posts + 1, clicks = d.clicks + excluded.clicks;
$$;

CREATE OR REPLACE FUNCTION posts_track_rollups() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.feed_id = NEW.feed_id AND OLD.language_id = NEW.language_id
      AND OLD.category_id IS NOT DISTINCT FROM NEW.category_id AND post_day(OLD.post_date) = post_day(NEW.post_date) THEN
    -- The common case (a click): same buckets, only the click sums move.
    UPDATE post_days SET clicks = clicks + (NEW.clicks - OLD.clicks)
      WHERE feed_id = NEW.feed_id AND day = post_day(NEW.post_date) AND language_id = NEW.language_id
        AND category_id IS NOT DISTINCT FROM NEW.category_id;
    UPDATE scope_days SET clicks = clicks + (NEW.clicks - OLD.clicks)
      WHERE category_id IS NOT DISTINCT FROM NEW.category_id AND language_id = NEW.language_id
        AND day = post_day(NEW.post_date);
    RETURN NULL;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN PERFORM post_days_remove(OLD); END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN PERFORM post_days_add(NEW); END IF;
  RETURN NULL;
END $$;

-- Grouped, and in key order, so that two refreshes upserting the same days lock them in one order.
CREATE FUNCTION posts_add_rollups() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO post_days AS d (feed_id, category_id, language_id, day, posts, clicks, min_id, max_id)
    SELECT feed_id, category_id, language_id, post_day(post_date), count(*), sum(clicks), min(id), max(id)
      FROM came GROUP BY 1, 2, 3, 4 ORDER BY 1, 4, 3, 2
    ON CONFLICT ON CONSTRAINT post_days_key DO UPDATE SET posts = d.posts + excluded.posts,
      clicks = d.clicks + excluded.clicks, min_id = least(d.min_id, excluded.min_id),
      max_id = greatest(d.max_id, excluded.max_id);
  INSERT INTO scope_days AS d (category_id, language_id, day, posts, clicks)
    SELECT category_id, language_id, post_day(post_date), count(*), sum(clicks)
      FROM came GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT ON CONSTRAINT scope_days_key DO UPDATE SET posts = d.posts + excluded.posts,
      clicks = d.clicks + excluded.clicks;
  RETURN NULL;
END $$;

DROP TRIGGER posts_track_rollups ON posts;
CREATE TRIGGER posts_track_rollups AFTER DELETE ON posts
  FOR EACH ROW EXECUTE FUNCTION posts_track_rollups();
CREATE TRIGGER posts_add_rollups AFTER INSERT ON posts REFERENCING NEW TABLE AS came
  FOR EACH STATEMENT EXECUTE FUNCTION posts_add_rollups();

CREATE OR REPLACE FUNCTION posts_truncate_rollups() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE post_days, click_days, scope_days;
  RETURN NULL;
END $$;

${fillScopeDays}
ANALYZE scope_days;
`;

export async function createScopeRollups(sql: Sql): Promise<void> {
  await sql.query(scopeRollupSchema);
}

/**
 * Migration 49: the day indexes of scope_days hold each row's posts too, so the newest days'
 * counts that size the search tiers (postsPerDay, postgres-search-plan.ts: every category and
 * language of up to a thousand days) are read from the index alone (an index-only scan) instead
 * of a heap page per row, the rows of a day lying wherever their first post put them
 * (https://www.postgresql.org/docs/current/indexes-index-only-scans.html). A click changes
 * `clicks` only, which no index holds, so its update stays HOT.
 */
export const coveringScopeDaysSchema = `
DROP INDEX IF EXISTS scope_days_by_day;
CREATE INDEX scope_days_by_day ON scope_days (day) INCLUDE (posts);
DROP INDEX IF EXISTS scope_days_by_language;
CREATE INDEX scope_days_by_language ON scope_days (language_id, day) INCLUDE (posts);
`;
