/**
 * Migration 42: the words of the most clicked posts, with a GIN index of their own
 * (`clicked_words`: each post with at least CLICKED_WORDS_LEAST clicks and its `search_vector`).
 * A search by clicks of a common word walked the clicks order and probed `posts` for each walked
 * post (its primary key, its row, `search_vector` out of TOAST: 7.5 buffers a probe), about need /
 * share probes a page; this set answers the same page from its own posting list instead: the
 * set's matches sorted by clicks are the page whenever they fill it, since every post outside the
 * set has fewer clicks (bench/NOTES.md, pgclk34, 2026-11-29 afternoon).
 *
 * Kept by triggers, in the same transaction as what moves it: a post enters when its clicked_posts
 * row reaches the bound and leaves when it drops below it or is deleted; its words follow changes
 * of `search_vector`. No index of the posts or of clicked_posts holds the words, so a click stays
 * what it was (a heap-only update of `posts`, one new version of its clicked_posts row) except the
 * one click that takes a post across the bound: a post's words are written at most once per
 * CLICKED_WORDS_LEAST clicks it receives. TRUNCATE of clicked_posts (the bulk load's put-back,
 * the copy endpoint) empties the set; the put-back's refill of clicked_posts fills it row by row.
 * No foreign key: TRUNCATE lists name the tables they empty, and one more referring table would
 * make theirs fail.
 */
import { rows, type Sql } from "./postgres-connection.js";
import type { Match } from "./postgres-search-plan.js";

/**
 * The clicks a post needs to be in the set: a power of two, one of the click tiers
 * (postgres-plan-costs.ts CLICK_TIERS). Most clicked posts have 1 to 3 clicks; past the first
 * three tiers a crossing is rare (at most one write of a post's words per this many clicks).
 */
export const CLICKED_WORDS_LEAST = 8;

/** Migration 42's SQL (idempotent: a test re-runs the later migrations). */
export const clickedWordsSchema = `
LOCK TABLE posts, clicked_posts IN SHARE ROW EXCLUSIVE MODE;
CREATE TABLE IF NOT EXISTS clicked_words (id integer PRIMARY KEY, words tsvector NOT NULL);
-- Every vector out of line, uncompressed (pglz never shortens them: migration 39): a search reads
-- the set's rows for their ids only (GIN settles a query without phrases or weights), so the
-- table's own pages hold ids and TOAST pointers, a few dozen bytes a row.
ALTER TABLE clicked_words SET (toast_tuple_target = 128);
ALTER TABLE clicked_words ALTER COLUMN words SET STORAGE EXTERNAL;
DELETE FROM clicked_words w WHERE NOT EXISTS
  (SELECT 1 FROM clicked_posts k WHERE k.id = w.id AND k.clicks >= ${CLICKED_WORDS_LEAST});
INSERT INTO clicked_words (id, words)
  SELECT p.id, p.search_vector FROM clicked_posts k JOIN posts p ON p.id = k.id
    WHERE k.clicks >= ${CLICKED_WORDS_LEAST} AND p.search_vector IS NOT NULL
  ON CONFLICT (id) DO UPDATE SET words = excluded.words;
CREATE INDEX IF NOT EXISTS clicked_words_search ON clicked_words USING gin (words);

CREATE OR REPLACE FUNCTION clicked_words_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'DELETE' AND NEW.clicks >= ${CLICKED_WORDS_LEAST} THEN
    INSERT INTO clicked_words (id, words)
      SELECT p.id, p.search_vector FROM posts p WHERE p.id = NEW.id AND p.search_vector IS NOT NULL
      ON CONFLICT (id) DO UPDATE SET words = excluded.words;
  ELSE
    DELETE FROM clicked_words WHERE id = OLD.id;
  END IF;
  RETURN NULL;
END $$;
-- Fired only when a row crosses the bound: an ordinary click runs no SQL here.
DROP TRIGGER IF EXISTS clicked_words_insert ON clicked_posts;
CREATE TRIGGER clicked_words_insert AFTER INSERT ON clicked_posts
  FOR EACH ROW WHEN (NEW.clicks >= ${CLICKED_WORDS_LEAST}) EXECUTE FUNCTION clicked_words_track();
DROP TRIGGER IF EXISTS clicked_words_update ON clicked_posts;
CREATE TRIGGER clicked_words_update AFTER UPDATE OF clicks ON clicked_posts
  FOR EACH ROW WHEN ((OLD.clicks >= ${CLICKED_WORDS_LEAST}) <> (NEW.clicks >= ${CLICKED_WORDS_LEAST}))
  EXECUTE FUNCTION clicked_words_track();
DROP TRIGGER IF EXISTS clicked_words_delete ON clicked_posts;
CREATE TRIGGER clicked_words_delete AFTER DELETE ON clicked_posts
  FOR EACH ROW WHEN (OLD.clicks >= ${CLICKED_WORDS_LEAST}) EXECUTE FUNCTION clicked_words_track();

CREATE OR REPLACE FUNCTION clicked_words_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE clicked_words;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS clicked_words_truncate ON clicked_posts;
CREATE TRIGGER clicked_words_truncate AFTER TRUNCATE ON clicked_posts
  FOR EACH STATEMENT EXECUTE FUNCTION clicked_words_truncate();

-- A post's words rewritten (a feed's refresh changed it) while it is in the set. Membership is
-- clicked_posts' (an update moving clicks too reaches it through posts_track_clicked, which fires
-- after this trigger and sends the new vector when the post crosses the bound).
CREATE OR REPLACE FUNCTION clicked_words_reword() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.search_vector IS NULL THEN
    DELETE FROM clicked_words WHERE id = NEW.id;
  ELSE
    INSERT INTO clicked_words (id, words)
      SELECT NEW.id, NEW.search_vector WHERE EXISTS
        (SELECT 1 FROM clicked_posts k WHERE k.id = NEW.id AND k.clicks >= ${CLICKED_WORDS_LEAST})
      ON CONFLICT (id) DO UPDATE SET words = excluded.words;
  END IF;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS clicked_words_reword ON posts;
CREATE TRIGGER clicked_words_reword AFTER UPDATE OF search_vector ON posts
  FOR EACH ROW WHEN (NEW.clicks >= ${CLICKED_WORDS_LEAST} AND OLD.search_vector IS DISTINCT FROM NEW.search_vector)
  EXECUTE FUNCTION clicked_words_reword();

ANALYZE clicked_words;
`;

export async function createClickedWords(sql: Sql): Promise<void> {
  await sql.query(clickedWordsSchema);
}

/**
 * The first `need` matches of `match` in clicks order (most clicked first, ties by id descending:
 * spec §4) when the set holds that many, else null. Exact when it answers: the set is every post
 * with CLICKED_WORDS_LEAST clicks or more, so each match outside it has fewer clicks than the
 * least of the page. When it falls short it has read fewer matches than the page needs. Only for
 * queries GIN settles without a check (`match.verify` null) that exclude nothing: GIN's `!word`
 * is not exact while an index's pending list moves (postgres-excluded-words.ts), and the set's
 * index has a pending list of its own. Languages are checked on clicked_posts.
 */
export async function clickedWordsPage(sql: Sql, match: Match, need: number): Promise<number[] | null> {
  if (match.verify !== null || match.titleImplies !== true || match.subtract || match.gate) return null;
  const language = match.languageIds ? "AND k.language_id = ANY($4::int[])" : "";
  // The set's matches first (GIN and the set's narrow rows), then their clicks from the clicks
  // index's range of the set: a hash join, no probe per post.
  const found = await rows<{ id: number }>(
    sql,
    `WITH hits AS MATERIALIZED (SELECT w.id FROM clicked_words w WHERE w.words @@ $1::tsquery)
      SELECT k.id FROM hits JOIN clicked_posts k ON k.id = hits.id
      WHERE k.clicks >= $3 ${language} ORDER BY k.clicks DESC, k.id DESC LIMIT $2`,
    [match.words, need, CLICKED_WORDS_LEAST, ...(match.languageIds ? [match.languageIds] : [])],
  );
  return found.length === need ? found.map((r) => r.id) : null;
}

/**
 * Whether the set holds at least `posts` posts: counted on clicked_posts' clicks index (the set is
 * its posts from CLICKED_WORDS_LEAST clicks up), at most `posts` entries read, as clickTier counts
 * a tier (the table's own statistics lag behind a set that grows with the clicks). A search reads
 * the set only when it should hold the page: the page's matches over their expected share.
 */
export async function clickedWordsHold(sql: Sql, posts: number): Promise<boolean> {
  if (!Number.isFinite(posts)) return false;
  const wanted = Math.max(1, Math.ceil(posts));
  const [row] = await rows<{ n: number }>(
    sql,
    "SELECT count(*)::int AS n FROM (SELECT 1 FROM clicked_posts WHERE clicks >= $1 LIMIT $2) k",
    [CLICKED_WORDS_LEAST, wanted],
  );
  return row!.n >= wanted;
}
