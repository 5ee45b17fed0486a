/**
 * Migration 33: each clicked post's language and title vector on `clicked_posts`, with an index
 * of the language in clicks order, so that a search by clicks
 * - within a language (`lang:de`, a page's languages) reads that language's clicked posts in order
 *   instead of walking every clicked post and dropping the others: a page of a language with a
 *   twentieth of the clicked posts read twenty times the posts (bench/NOTES.md, pgops34c);
 * - of `title:` words alone (with languages and dates at most) checks each walked post on its
 *   clicked_posts row, never probing `posts` (its primary key, its wide row).
 * The cost is one more B-tree entry per click (the row's clicks change, so its update is never
 * heap-only) and the title vector copied into the row's new version; measured in bench/NOTES.md,
 * pgclicks34d.
 *
 * The click trigger sends both with the row it writes; a row written without them (the roll-up
 * trigger of posts that arrive with clicks, the running sums' rebuild) gets them from its post, so
 * every writer of `clicked_posts` stays correct without knowing of the columns. A post re-filed
 * under another language (postgres-language-refiling.ts) or whose title or feed name changes (its
 * `rank_vector`, set from `search_vector` by posts_rank_columns) moves its row with it.
 */
import type { Sql } from "./postgres-connection.js";

/**
 * Fills the (empty) `clicked_posts` from the posts, with migration 33's and 34's columns (bulk
 * load, migrate-data; postgres-clicked-feeds.ts).
 */
export const fillClickedPostsWithLanguages = `
INSERT INTO clicked_posts (id, clicks, post_date, category_id, language_id, rank_vector, feed_id)
  SELECT id, clicks, post_date, category_id, language_id, rank_vector, feed_id FROM posts WHERE clicks > 0;
`;

/** Migration 33's SQL (also applied by bench/postgres-click-keys.bench.mjs --keys migration33). */
export const clickedLanguagesSchema = `
LOCK TABLE posts, clicked_posts IN SHARE ROW EXCLUSIVE MODE;
ALTER TABLE clicked_posts ADD COLUMN IF NOT EXISTS language_id integer,
  ADD COLUMN IF NOT EXISTS rank_vector tsvector;
UPDATE clicked_posts k SET language_id = p.language_id, rank_vector = p.rank_vector FROM posts p
  WHERE p.id = k.id AND (k.language_id IS DISTINCT FROM p.language_id OR k.rank_vector IS DISTINCT FROM p.rank_vector);
ALTER TABLE clicked_posts ALTER COLUMN language_id SET NOT NULL;
CREATE INDEX IF NOT EXISTS clicked_posts_by_language ON clicked_posts (language_id, clicks, id);

CREATE OR REPLACE FUNCTION clicked_posts_language() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT p.language_id, p.rank_vector INTO NEW.language_id, NEW.rank_vector FROM posts p WHERE p.id = NEW.id;
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS clicked_posts_language ON clicked_posts;
CREATE TRIGGER clicked_posts_language BEFORE INSERT ON clicked_posts
  FOR EACH ROW WHEN (NEW.language_id IS NULL) EXECUTE FUNCTION clicked_posts_language();

CREATE OR REPLACE FUNCTION posts_track_clicked() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.clicks > 0 THEN
    INSERT INTO clicked_posts AS k (id, clicks, post_date, category_id, language_id, rank_vector)
      VALUES (NEW.id, NEW.clicks, NEW.post_date, NEW.category_id, NEW.language_id, NEW.rank_vector)
      ON CONFLICT (id) DO UPDATE SET clicks = excluded.clicks, post_date = excluded.post_date,
        category_id = excluded.category_id, language_id = excluded.language_id,
        rank_vector = excluded.rank_vector;
  ELSE
    DELETE FROM clicked_posts WHERE id = NEW.id;
  END IF;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS posts_track_clicked ON posts;
-- rank_vector is set by a BEFORE trigger from search_vector, which is what an UPDATE names.
CREATE TRIGGER posts_track_clicked
  AFTER UPDATE OF clicks, post_date, category_id, language_id, search_vector, rank_vector ON posts
  FOR EACH ROW WHEN (OLD.clicks IS DISTINCT FROM NEW.clicks OR (NEW.clicks > 0 AND
    (OLD.post_date IS DISTINCT FROM NEW.post_date OR OLD.category_id IS DISTINCT FROM NEW.category_id
      OR OLD.language_id IS DISTINCT FROM NEW.language_id OR OLD.rank_vector IS DISTINCT FROM NEW.rank_vector)))
  EXECUTE FUNCTION posts_track_clicked();

ANALYZE clicked_posts;
`;

export async function createClickedLanguages(sql: Sql): Promise<void> {
  await sql.query(clickedLanguagesSchema);
}
