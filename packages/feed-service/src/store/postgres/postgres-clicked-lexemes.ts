/**
 * Migration 67: every clicked post's lexemes as the operators' index holds them, with a GIN index
 * of their own (`clicked_lexemes`: each post of clicked_posts, its `search_vector` stripped of
 * positions and weights, and its ` pfx ` prefix and ` ttl ` title lexemes, operator_facets in
 * postgres-search-operators.ts). A search with operators by clicks whose words no statistic
 * counts (`pro* la`, `the* the`) walked the clicks order probing `posts` for each clicked post (its
 * row, `search_vector` out of TOAST): past the most clicked posts (migration 42's set) a deep page
 * read tens of thousands of them. The clicked matches come from this index instead, whole (one
 * posting list for a three-letter prefix), and are sorted on clicked_posts' clicks: the cost is
 * the clicked matches' ids, not a probe of each clicked post before the page (bench/NOTES.md,
 * pgpfx).
 *
 * Kept by triggers in the same transaction as what moves it: a post enters with its clicked_posts
 * row (its first click) and leaves with it; its lexemes follow changes of `search_vector`. A click
 * after the first writes nothing here. TRUNCATE of clicked_posts empties it; the bulk load's
 * put-back fills it in one statement (fillClickedLexemes). No foreign key, as clicked_words.
 */
import type { Sql } from "./postgres-connection.js";

/**
 * A post's lexemes in the set: the words without positions (the set answers presence only; a
 * weight or a phrase is checked elsewhere) and the operators' prefix and title lexemes as
 * operator_facets makes them (migration 16), without its feed lexeme (feeds are checked on
 * clicked_posts' row, so a feed change writes nothing here). Spelled out rather than called:
 * array_to_tsvector sorts and drops duplicates itself, so without operator_facets' DISTINCT it
 * costs a first click 40-50 µs instead of 100-120 (bench/NOTES.md, pgpfx); the test compares the two.
 */
const LEXEMES = (vector: string) =>
  `strip(${vector}) || array_to_tsvector(
    ARRAY(SELECT ' pfx ' || left(w, 3) FROM unnest(tsvector_to_array(${vector})) w WHERE length(w) >= 3)
    || ARRAY(SELECT ' ttl ' || w FROM unnest(tsvector_to_array(ts_filter(${vector}, '{a}'))) w
      WHERE octet_length(w) <= 2040))`;

/**
 * The bulk load's fill, after clicked_posts' (the put-back's): every clicked post, as the
 * migration fills it (1.4 s for 24,872 clicked posts at 200k, its GIN build 2.4 s after:
 * bench/NOTES.md, pgpfx).
 */
export const fillClickedLexemes = `
INSERT INTO clicked_lexemes (id, lexemes)
  SELECT p.id, ${LEXEMES("p.search_vector")} FROM clicked_posts k JOIN posts p ON p.id = k.id
    WHERE p.search_vector IS NOT NULL;
`;

/** The row trigger the bulk load turns off while it refills clicked_posts (fillClickedLexemes runs once after). */
export const CLICKED_LEXEMES_INSERT_TRIGGER = "clicked_lexemes_insert";

/** The set's GIN index, dropped and built again around the bulk load's fill. */
export const CLICKED_LEXEMES_INDEX =
  "CREATE INDEX IF NOT EXISTS clicked_lexemes_search ON clicked_lexemes USING gin (lexemes)";

/** Migration 67's SQL (idempotent: a test re-runs it). */
export const clickedLexemesSchema = `
LOCK TABLE posts, clicked_posts IN SHARE ROW EXCLUSIVE MODE;
CREATE TABLE IF NOT EXISTS clicked_lexemes (id integer PRIMARY KEY, lexemes tsvector NOT NULL);
-- Out of line, uncompressed, as clicked_words (migration 42): a search reads the rows for their
-- ids only (GIN settles the query), so the heap holds ids and TOAST pointers.
ALTER TABLE clicked_lexemes SET (toast_tuple_target = 128);
ALTER TABLE clicked_lexemes ALTER COLUMN lexemes SET STORAGE EXTERNAL;
DELETE FROM clicked_lexemes c WHERE NOT EXISTS (SELECT 1 FROM clicked_posts k WHERE k.id = c.id);
INSERT INTO clicked_lexemes (id, lexemes)
  SELECT p.id, ${LEXEMES("p.search_vector")} FROM clicked_posts k JOIN posts p ON p.id = k.id
    WHERE p.search_vector IS NOT NULL
  ON CONFLICT (id) DO UPDATE SET lexemes = excluded.lexemes;
SET LOCAL maintenance_work_mem = '64MB';
${CLICKED_LEXEMES_INDEX};

CREATE OR REPLACE FUNCTION clicked_lexemes_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO clicked_lexemes (id, lexemes)
      SELECT p.id, ${LEXEMES("p.search_vector")} FROM posts p
        WHERE p.id = NEW.id AND p.search_vector IS NOT NULL
      ON CONFLICT (id) DO UPDATE SET lexemes = excluded.lexemes;
  ELSE
    DELETE FROM clicked_lexemes WHERE id = OLD.id;
  END IF;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS ${CLICKED_LEXEMES_INSERT_TRIGGER} ON clicked_posts;
CREATE TRIGGER ${CLICKED_LEXEMES_INSERT_TRIGGER} AFTER INSERT ON clicked_posts
  FOR EACH ROW EXECUTE FUNCTION clicked_lexemes_track();
DROP TRIGGER IF EXISTS clicked_lexemes_delete ON clicked_posts;
CREATE TRIGGER clicked_lexemes_delete AFTER DELETE ON clicked_posts
  FOR EACH ROW EXECUTE FUNCTION clicked_lexemes_track();

CREATE OR REPLACE FUNCTION clicked_lexemes_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE clicked_lexemes;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS clicked_lexemes_truncate ON clicked_posts;
CREATE TRIGGER clicked_lexemes_truncate AFTER TRUNCATE ON clicked_posts
  FOR EACH STATEMENT EXECUTE FUNCTION clicked_lexemes_truncate();

-- A clicked post's words rewritten (a feed's refresh changed it). Membership is clicked_posts':
-- a post clicked in the same statement enters through its clicked_posts insert (posts_track_clicked
-- fires after this trigger) with the new words.
CREATE OR REPLACE FUNCTION clicked_lexemes_reword() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.search_vector IS NULL THEN
    DELETE FROM clicked_lexemes WHERE id = NEW.id;
  ELSE
    INSERT INTO clicked_lexemes (id, lexemes)
      SELECT NEW.id, ${LEXEMES("NEW.search_vector")}
        WHERE EXISTS (SELECT 1 FROM clicked_posts k WHERE k.id = NEW.id)
      ON CONFLICT (id) DO UPDATE SET lexemes = excluded.lexemes;
  END IF;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS clicked_lexemes_reword ON posts;
CREATE TRIGGER clicked_lexemes_reword AFTER UPDATE OF search_vector ON posts
  FOR EACH ROW WHEN (NEW.clicks > 0 AND OLD.search_vector IS DISTINCT FROM NEW.search_vector)
  EXECUTE FUNCTION clicked_lexemes_reword();

ANALYZE clicked_lexemes;
`;

export async function createClickedLexemes(sql: Sql): Promise<void> {
  await sql.query(clickedLexemesSchema);
}
