/**
 * Migration 14: writes that no longer rebuild a post's search index entries.
 *
 * - Clicks leave the search index: its facets keep a post's day and language only (no click
 *   tier), and no index of `posts` holds `clicks`, so a click's `UPDATE posts SET clicks` is a
 *   heap-only tuple update (HOT: no index entry written at all,
 *   https://www.postgresql.org/docs/current/storage-hot.html); `fillfactor` leaves each new page
 *   room for it. The orders by clicks (popular posts, search by clicks) walk `clicked_posts`
 *   instead: a narrow row per clicked post (its clicks, date and category, what those orders
 *   need), kept by triggers on `posts` like the roll-ups.
 * - A post's pairs of neighbouring words (postgres-phrase-pairs.ts) are stored in
 *   `phrase_vector`, computed by the writer (`postVectors`), instead of by SQL inside the index
 *   expression: that SQL ran again at each write of the row, at each index build and at each
 *   ANALYZE. A row written with its search vector alone still gets them from SQL, once.
 */
import type { MigrationProgress } from "../migration-progress.js";
import { rows, type Sql } from "./postgres-connection.js";

/** Fills the (empty) `clicked_posts` from the posts: on upgrade, and after migrate-data's load. */
export const fillClickedPosts = `
INSERT INTO clicked_posts (id, clicks, post_date, category_id)
  SELECT id, clicks, post_date, category_id FROM posts WHERE clicks > 0;
`;

/**
 * Migration 14's trigger keeping clicked_posts, as released (migration 33 replaces it): also what
 * bench/postgres-click-keys.bench.mjs puts back to measure schema 31's click path.
 */
export const trackClickedSchema14 = `CREATE FUNCTION posts_track_clicked() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.clicks > 0 THEN
    INSERT INTO clicked_posts AS k (id, clicks, post_date, category_id)
      VALUES (NEW.id, NEW.clicks, NEW.post_date, NEW.category_id)
      ON CONFLICT (id) DO UPDATE SET clicks = excluded.clicks, post_date = excluded.post_date,
        category_id = excluded.category_id;
  ELSE
    DELETE FROM clicked_posts WHERE id = NEW.id;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER posts_track_clicked AFTER UPDATE OF clicks, post_date, category_id ON posts
  FOR EACH ROW WHEN (OLD.clicks IS DISTINCT FROM NEW.clicks OR (NEW.clicks > 0 AND
    (OLD.post_date IS DISTINCT FROM NEW.post_date OR OLD.category_id IS DISTINCT FROM NEW.category_id)))
  EXECUTE FUNCTION posts_track_clicked();`;

const schema = `
LOCK TABLE posts, clicks IN SHARE ROW EXCLUSIVE MODE;
SET LOCAL maintenance_work_mem = '256MB';

DROP INDEX IF EXISTS posts_search_phrases;
DROP INDEX IF EXISTS posts_clicked_by_language;
DROP INDEX IF EXISTS posts_by_clicks;
DROP INDEX IF EXISTS posts_by_category_clicks;
DROP INDEX IF EXISTS posts_by_clicks_then_id;

-- Before the rewrite below, so that every row's new version lands on a page with room to spare.
ALTER TABLE posts SET (fillfactor = 85);
ALTER TABLE posts ADD COLUMN phrase_vector tsvector;
UPDATE posts SET phrase_vector = phrase_pairs(search_vector);
ALTER TABLE posts ALTER COLUMN phrase_vector SET NOT NULL;
-- A writer that sets search_vector alone (SQL by hand, an older writer) still gets its pairs,
-- computed here as before; the store's writers send them and skip this.
CREATE OR REPLACE FUNCTION posts_rank_columns() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.rank_vector := ts_filter(NEW.search_vector, '{a,b}');
  NEW.body_length := length(ts_filter(NEW.search_vector, '{d}'));
  IF NEW.phrase_vector IS NULL OR (TG_OP = 'UPDATE' AND NEW.phrase_vector = OLD.phrase_vector
      AND NEW.search_vector <> OLD.search_vector) THEN
    NEW.phrase_vector := phrase_pairs(NEW.search_vector);
  END IF;
  RETURN NEW;
END $$;

CREATE FUNCTION post_facets(post_date bigint, language_id integer) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN array_to_tsvector(ARRAY[' day ' || post_day(post_date), ' wk ' || floor(post_day(post_date) / 7.0)::integer,
    ' mo ' || floor(post_day(post_date) / 28.0)::integer, ' yr ' || floor(post_day(post_date) / 364.0)::integer,
    ' lang ' || language_id]);
CREATE INDEX posts_search_words ON posts USING GIN
  ((search_vector || post_facets(post_date, language_id) || phrase_vector));

CREATE TABLE clicked_posts (
  id integer PRIMARY KEY REFERENCES posts (id) ON DELETE CASCADE,
  clicks integer NOT NULL,
  post_date bigint NOT NULL,
  category_id integer
);
${fillClickedPosts}
CREATE INDEX clicked_posts_by_clicks ON clicked_posts (clicks, post_date, id);
CREATE INDEX clicked_posts_by_category ON clicked_posts (category_id, clicks, post_date, id);
CREATE INDEX clicked_posts_by_clicks_then_id ON clicked_posts (clicks, id);

${trackClickedSchema14}

-- Posts that arrive with clicks (a copy): the statement trigger of the roll-ups adds them too.
CREATE OR REPLACE FUNCTION posts_add_rollups() RETURNS trigger LANGUAGE plpgsql AS $$
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
  INSERT INTO clicked_posts (id, clicks, post_date, category_id)
    SELECT id, clicks, post_date, category_id FROM came WHERE clicks > 0;
  RETURN NULL;
END $$;

-- No TRUNCATE trigger: clicked_posts refers to posts, so PostgreSQL has it truncated with them.

ANALYZE posts;
ANALYZE clicked_posts;
`;

export async function createLightWrites(sql: Sql, progress: MigrationProgress): Promise<void> {
  const [count] = await rows<{ n: number }>(sql, "SELECT count(*) AS n FROM posts");
  const step = "storing phrase pairs and moving click counts out of the search index (schema 14)";
  progress(step, 0, count!.n);
  await sql.query(schema);
  progress(step, count!.n, count!.n);
}
