/**
 * Migration 34: each clicked post's feed on `clicked_posts`, with an index of the feed in clicks
 * order (feed_id, clicks, id), so that a search by clicks within a `feed:` scope reads those
 * feeds' clicked posts in order (postgres-clicked-order.ts) instead of walking every clicked post
 * and probing `posts` to drop the others: a page of a feed holding a twentieth of the posts read
 * twenty times the page (bench/NOTES.md, pgclick34). Like migration 33's language, the feed is on
 * the row, so the walk of every clicked post checks it there before any probe of `posts`.
 * The cost is one more B-tree entry per click (a click already writes a new version of the row and
 * an entry in each of its indexes: clicks is in their keys); measured in bench/NOTES.md, pgclick34.
 * A post never changes feed (postgres-feed-writer.ts updates its content only), so the row's feed
 * is set when it is written and never moved.
 *
 * Writers of `clicked_posts` that do not name the feed (the roll-up trigger of posts that arrive
 * with clicks, the running sums' rebuild, migration 33's click trigger should its SQL run again)
 * get it from its post in a BEFORE INSERT trigger of its own, beside migration 33's: neither
 * migration's SQL undoes the other's when run again.
 */
import type { Sql } from "./postgres-connection.js";

/** Migration 34's SQL (idempotent: a test re-runs the later migrations). */
export const clickedFeedsSchema = `
LOCK TABLE posts, clicked_posts IN SHARE ROW EXCLUSIVE MODE;
ALTER TABLE clicked_posts ADD COLUMN IF NOT EXISTS feed_id integer;
UPDATE clicked_posts k SET feed_id = p.feed_id FROM posts p
  WHERE p.id = k.id AND k.feed_id IS DISTINCT FROM p.feed_id;
ALTER TABLE clicked_posts ALTER COLUMN feed_id SET NOT NULL;
CREATE INDEX IF NOT EXISTS clicked_posts_by_feed ON clicked_posts (feed_id, clicks, id);

CREATE OR REPLACE FUNCTION clicked_posts_feed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT p.feed_id INTO NEW.feed_id FROM posts p WHERE p.id = NEW.id;
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS clicked_posts_feed ON clicked_posts;
CREATE TRIGGER clicked_posts_feed BEFORE INSERT ON clicked_posts
  FOR EACH ROW WHEN (NEW.feed_id IS NULL) EXECUTE FUNCTION clicked_posts_feed();

-- Migration 33's click trigger with the feed: set on insert only (a post's feed never changes).
CREATE OR REPLACE FUNCTION posts_track_clicked() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.clicks > 0 THEN
    INSERT INTO clicked_posts AS k (id, clicks, post_date, category_id, language_id, rank_vector, feed_id)
      VALUES (NEW.id, NEW.clicks, NEW.post_date, NEW.category_id, NEW.language_id, NEW.rank_vector, NEW.feed_id)
      ON CONFLICT (id) DO UPDATE SET clicks = excluded.clicks, post_date = excluded.post_date,
        category_id = excluded.category_id, language_id = excluded.language_id,
        rank_vector = excluded.rank_vector;
  ELSE
    DELETE FROM clicked_posts WHERE id = NEW.id;
  END IF;
  RETURN NULL;
END $$;

ANALYZE clicked_posts;
`;

export async function createClickedFeeds(sql: Sql): Promise<void> {
  await sql.query(clickedFeedsSchema);
}
