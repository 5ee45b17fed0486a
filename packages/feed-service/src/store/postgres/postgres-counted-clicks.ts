/**
 * Deep pages by clicks of the counted words (migration 50): the clicks order is the clicked
 * matches (clicks descending, ties by id descending) then the unclicked ones by id descending
 * (spec §4, "Ties, everywhere"), so a page past the clicked matches is a stretch of the unclicked
 * matches in id order. `counted_click_blocks` keeps, per counted word of one lexeme
 * (postgres-counted-words.ts), language (0: all; since migration 59 no such row, all languages
 * summed from the languages' rows) and block of COUNTED_BLOCK_IDS post ids, its
 * unclicked and its clicked matches: the clicked total says where the unclicked part starts, the
 * unclicked per block which block a page starts in, and the page then tests the posts of that
 * block (and the next, as the page needs) by id, never the matches before it.
 *
 * The clicked matches are read from clicked_posts, whose rows hold the counted lexemes of their
 * post (`words`, beside each key of the clicks order's index), from the nearer end of the word's
 * clicked matches (ascending for a page past their middle): at most half the clicked posts in
 * scope, each an index entry, never a probe of the post. Counting them per click count instead would move one row per counted word
 * the post holds at every click; these words move only with the post's own words.
 *
 * Upkeep: a post counts in its block by its own words (the triggers match a counted word on
 * `search_vector`, as the date counts do); a click moves a post's counts only when it is its first
 * (unclicked to clicked, or back), one row per counted word it holds and language, and its
 * clicked_posts row is inserted with its words then; later clicks do not fire these triggers. Inserts and deletes per statement (transition tables), a post's words
 * or language per row, TRUNCATE with the date counts. A counted search's blocks are counted when
 * it is (in the same transaction as its days) and marked in `counted_click_searches`; a search
 * counted by a build without these counts has no mark, and its pages take the exact slower path
 * until the next open counts it.
 *
 * Since migration 66 the blocks are two columns of the period rows of the same key
 * (postgres-click-count-rows.ts), `counted_click_blocks` a view of them, and one trigger per event
 * keeps both; the functions below up to migration 64's are those of the table before it.
 */
import type pg from "pg";
import { inTransaction, rows, type Sql } from "./postgres-connection.js";
import { countUnmarkedSearches } from "./postgres-counted-marks.js";
import { COUNTED_BLOCK_IDS } from "./postgres-plan-costs.js";
import type { SearchKey } from "./postgres-search-key.js";

const BLOCK = COUNTED_BLOCK_IDS;
/** The counted searches of one lexeme, each query cast once. */
const words = "SELECT id, index_query::tsquery AS q FROM counted_searches WHERE lexeme IS NOT NULL";

/** Counts of the posts of `source` (alias c) per counted word, language (0: all) and block. */
const perBlock = (source: string) => `
  WITH s AS MATERIALIZED (${words}),
    c AS MATERIALIZED (SELECT id, language_id, clicks, search_vector || ''::tsvector AS words FROM ${source})
  SELECT s.id, coalesce(c.language_id, 0) AS language_id, c.id / ${BLOCK} AS block,
      (count(*) FILTER (WHERE NOT c.clicks > 0))::int AS unclicked, (count(*) FILTER (WHERE c.clicks > 0))::int AS clicked
    FROM s JOIN c ON c.words @@ s.q
    GROUP BY GROUPING SETS ((s.id, c.language_id, c.id / ${BLOCK}), (s.id, c.id / ${BLOCK}))`;

/** One post's counts (`row`: OLD or NEW, its words in `vector`), signed. */
const perRow = (row: string, vector: string, sign: string) => `
  SELECT s.id, l.language_id, ${row}.id / ${BLOCK}, ${sign}(NOT ${row}.clicks > 0)::int, ${sign}(${row}.clicks > 0)::int
    FROM (${words}) s CROSS JOIN (VALUES (0), (${row}.language_id)) l (language_id) WHERE ${vector} @@ s.q`;

/** Counts of the posts of `source` (alias c) per counted word, language and block (migration 59: no all-languages rows). */
const perLanguageBlock = (source: string) => `
  WITH s AS MATERIALIZED (${words}),
    c AS MATERIALIZED (SELECT id, language_id, clicks, search_vector || ''::tsvector AS words FROM ${source})
  SELECT s.id, c.language_id, c.id / ${BLOCK} AS block,
      (count(*) FILTER (WHERE NOT c.clicks > 0))::int AS unclicked, (count(*) FILTER (WHERE c.clicks > 0))::int AS clicked
    FROM s JOIN c ON c.words @@ s.q
    GROUP BY s.id, c.language_id, c.id / ${BLOCK}`;

/** One post's counts in its language's rows (`row`: OLD or NEW, its words in `vector`), signed. */
const perLanguageRow = (row: string, vector: string, sign: string) => `
  SELECT s.id, ${row}.language_id, ${row}.id / ${BLOCK}, ${sign}(NOT ${row}.clicks > 0)::int, ${sign}(${row}.clicks > 0)::int
    FROM (${words}) s WHERE ${vector} @@ s.q`;

/** The ids of the counted lexemes that the words `vector` hold, in order. */
const heldBy = (vector: string) =>
  `ARRAY(SELECT s.id FROM (${words}) s WHERE ${vector} @@ s.q ORDER BY s.id)`;

const upsert = `INSERT INTO counted_click_blocks AS b (search_id, language_id, block, unclicked, clicked)`;
const adding = `ON CONFLICT (search_id, language_id, block) DO UPDATE
      SET unclicked = b.unclicked + excluded.unclicked, clicked = b.clicked + excluded.clicked`;

/** Migration 50's function that gives a clicked_posts row its counted words, each query cast at each insert. */
export const clickedPostsWordsByCast = `CREATE OR REPLACE FUNCTION clicked_posts_words() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM counted_searches WHERE lexeme IS NOT NULL) THEN
    NEW.words := ${heldBy("(SELECT p.search_vector || ''::tsvector FROM posts p WHERE p.id = NEW.id)")};
  END IF;
  RETURN NEW;
END $$;`;

/**
 * Migration 50's SQL, safe to take again (as the other migrations are). Rows are written in key order,
 * so two writers never lock them crosswise.
 */
export const countedClicksSchema = `
CREATE TABLE IF NOT EXISTS counted_click_blocks (
  search_id integer NOT NULL REFERENCES counted_searches (id) ON DELETE CASCADE,
  language_id integer NOT NULL,
  block integer NOT NULL,
  unclicked integer NOT NULL,
  clicked integer NOT NULL,
  PRIMARY KEY (search_id, language_id, block)
);
-- The counted searches whose blocks and clicked posts' words are counted (all their posts, not
-- only those written since).
CREATE TABLE IF NOT EXISTS counted_click_searches (
  search_id integer PRIMARY KEY REFERENCES counted_searches (id) ON DELETE CASCADE
);

-- The counted lexemes a clicked post holds: its clicked matches in clicks order are then read from
-- clicked_posts alone, without a probe of the post's words. Set when the row is inserted (a first
-- click, a re-filed post, a bulk fill) and when the post's words change; a click leaves it.
ALTER TABLE clicked_posts ADD COLUMN IF NOT EXISTS words integer[] NOT NULL DEFAULT '{}';
${clickedPostsWordsByCast}
DROP TRIGGER IF EXISTS clicked_posts_words ON clicked_posts;
CREATE TRIGGER clicked_posts_words BEFORE INSERT ON clicked_posts
  FOR EACH ROW EXECUTE FUNCTION clicked_posts_words();

CREATE OR REPLACE FUNCTION posts_count_click_blocks() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM counted_searches WHERE lexeme IS NOT NULL) THEN
    ${upsert}
      SELECT * FROM (${perBlock("came")}) m ORDER BY 1, 2, 3
      ${adding};
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION posts_uncount_click_blocks() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM counted_searches WHERE lexeme IS NOT NULL) THEN
    ${upsert}
      SELECT id, language_id, block, -unclicked, -clicked FROM (${perBlock("gone")}) m ORDER BY 1, 2, 3
      ${adding};
  END IF;
  RETURN NULL;
END $$;

-- A post's old counts off and its new ones on, in one statement: a first click (or clicks back to
-- none) moves one count from unclicked to clicked in each of its rows; a change of words or
-- language moves it between words, languages or blocks. Each vector is read out of TOAST once.
CREATE OR REPLACE FUNCTION posts_move_click_blocks() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  old_words tsvector;
  new_words tsvector;
  moved integer;
BEGIN
  IF EXISTS (SELECT 1 FROM counted_searches WHERE lexeme IS NOT NULL) THEN
    old_words := OLD.search_vector || ''::tsvector;
    new_words := NEW.search_vector || ''::tsvector;
    IF OLD.language_id = NEW.language_id AND old_words = new_words THEN
      -- The clicked state alone moved (a first click): its rows exist (the post is counted in
      -- them), one UPDATE in key order moves one count each, the words matched once.
      moved := CASE WHEN NEW.clicks > 0 THEN 1 ELSE 0 END - CASE WHEN OLD.clicks > 0 THEN 1 ELSE 0 END;
      IF moved <> 0 THEN
        UPDATE counted_click_blocks SET unclicked = unclicked - moved, clicked = clicked + moved
          WHERE search_id = ANY(${heldBy("new_words")}) AND language_id IN (0, NEW.language_id)
            AND block = NEW.id / ${BLOCK};
      END IF;
    ELSE
      ${upsert}
        SELECT search_id, language_id, block, sum(unclicked), sum(clicked) FROM (
          ${perRow("OLD", "old_words", "-")}
          UNION ALL ${perRow("NEW", "new_words", "")}
        ) m (search_id, language_id, block, unclicked, clicked)
        GROUP BY 1, 2, 3 HAVING sum(unclicked) <> 0 OR sum(clicked) <> 0 ORDER BY 1, 2, 3
        ${adding};
    END IF;
    -- A clicked post re-worded: its row's words (a first click inserts the row with them).
    IF NEW.clicks > 0 AND OLD.clicks > 0 THEN
      UPDATE clicked_posts SET words = ${heldBy("new_words")} WHERE id = NEW.id;
    END IF;
  END IF;
  RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS posts_count_click_blocks ON posts;
CREATE TRIGGER posts_count_click_blocks AFTER INSERT ON posts REFERENCING NEW TABLE AS came
  FOR EACH STATEMENT EXECUTE FUNCTION posts_count_click_blocks();
DROP TRIGGER IF EXISTS posts_uncount_click_blocks ON posts;
CREATE TRIGGER posts_uncount_click_blocks AFTER DELETE ON posts REFERENCING OLD TABLE AS gone
  FOR EACH STATEMENT EXECUTE FUNCTION posts_uncount_click_blocks();
-- A click fires this only when it is a post's first (or takes its clicks back to none); the WHENs
-- are exclusive, so an update of both clicks and words moves the counts once.
DROP TRIGGER IF EXISTS posts_click_click_blocks ON posts;
CREATE TRIGGER posts_click_click_blocks AFTER UPDATE OF clicks ON posts
  FOR EACH ROW WHEN ((OLD.clicks > 0) IS DISTINCT FROM (NEW.clicks > 0))
  EXECUTE FUNCTION posts_move_click_blocks();
DROP TRIGGER IF EXISTS posts_move_click_blocks ON posts;
CREATE TRIGGER posts_move_click_blocks AFTER UPDATE OF search_vector, language_id ON posts
  FOR EACH ROW WHEN ((OLD.clicks > 0) IS NOT DISTINCT FROM (NEW.clicks > 0))
  EXECUTE FUNCTION posts_move_click_blocks();

-- A TRUNCATE of the posts forgets the blocks with the days (migration 19's function, widened).
CREATE OR REPLACE FUNCTION posts_forget_counted_searches() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE search_days, counted_click_blocks, counted_click_searches, counted_searches;
  RETURN NULL;
END $$;
`;

/**
 * Migration 54: a post's first click matches its words against the counted words once, not twice.
 * Its clicked_posts row is inserted (by posts_track_clicked) with the counted lexemes the post
 * holds (clicked_posts_words, BEFORE INSERT), and those are the rows a first click moves: the
 * trigger that moves them now fires after posts_track_clicked (AFTER triggers of one event fire in
 * name order, https://www.postgresql.org/docs/current/trigger-definition.html) and reads them from
 * that row by its key. Clicks back to none (the row deleted), a row not there (posts_track_clicked
 * set aside by a bulk load), and every change of words or language match the words as before.
 * The words are compared without copying both vectors out of TOAST first: a click leaves
 * search_vector as it was.
 */
export const firstClickWordsSchema = `
CREATE OR REPLACE FUNCTION posts_move_click_blocks() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  old_words tsvector;
  new_words tsvector;
  held integer[];
  moved integer;
BEGIN
  IF EXISTS (SELECT 1 FROM counted_searches WHERE lexeme IS NOT NULL) THEN
    IF OLD.language_id = NEW.language_id AND OLD.search_vector = NEW.search_vector THEN
      -- The clicked state alone moved (a first click): its rows exist (the post is counted in
      -- them), one UPDATE in key order moves one count each.
      moved := CASE WHEN NEW.clicks > 0 THEN 1 ELSE 0 END - CASE WHEN OLD.clicks > 0 THEN 1 ELSE 0 END;
      IF moved <> 0 THEN
        IF NEW.clicks > 0 THEN
          SELECT k.words INTO held FROM clicked_posts k WHERE k.id = NEW.id;
        END IF;
        IF held IS NULL THEN
          held := ${heldBy("(NEW.search_vector || ''::tsvector)")};
        END IF;
        UPDATE counted_click_blocks SET unclicked = unclicked - moved, clicked = clicked + moved
          WHERE search_id = ANY(held) AND language_id IN (0, NEW.language_id) AND block = NEW.id / ${BLOCK};
      END IF;
    ELSE
      old_words := OLD.search_vector || ''::tsvector;
      new_words := NEW.search_vector || ''::tsvector;
      ${upsert}
        SELECT search_id, language_id, block, sum(unclicked), sum(clicked) FROM (
          ${perRow("OLD", "old_words", "-")}
          UNION ALL ${perRow("NEW", "new_words", "")}
        ) m (search_id, language_id, block, unclicked, clicked)
        GROUP BY 1, 2, 3 HAVING sum(unclicked) <> 0 OR sum(clicked) <> 0 ORDER BY 1, 2, 3
        ${adding};
      -- A clicked post re-worded: its row's words (a first click inserts the row with them).
      IF NEW.clicks > 0 AND OLD.clicks > 0 THEN
        UPDATE clicked_posts SET words = ${heldBy("new_words")} WHERE id = NEW.id;
      END IF;
    END IF;
  END IF;
  RETURN NULL;
END $$;
-- After posts_track_clicked (name order), so a first click finds its clicked_posts row's words.
DROP TRIGGER IF EXISTS posts_click_click_blocks ON posts;
DROP TRIGGER IF EXISTS posts_track_clicked_blocks ON posts;
CREATE TRIGGER posts_track_clicked_blocks AFTER UPDATE OF clicks ON posts
  FOR EACH ROW WHEN ((OLD.clicks > 0) IS DISTINCT FROM (NEW.clicks > 0))
  EXECUTE FUNCTION posts_move_click_blocks();
`;

/**
 * Migration 59: the blocks keep each word's counts per language only; "all languages" is the sum
 * of a block's language rows (the readers sum them). The all-languages row doubled the rows a
 * post's first click moves, one per counted word it holds; the readers' sums over a word's
 * language rows stay within their bounds (bench/postgres-click-languages.mjs). The period counts
 * (postgres-counted-click-ranges.ts) keep their all-languages rows: a ranged page sums a slice of
 * every row's period array, and summing the languages' rows there costs that many arrays. Same
 * first-click path as migration 54's, in the post's language's rows alone.
 */
export const perLanguageBlocksSchema = `
DELETE FROM counted_click_blocks WHERE language_id = 0;

CREATE OR REPLACE FUNCTION posts_count_click_blocks() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM counted_searches WHERE lexeme IS NOT NULL) THEN
    ${upsert}
      SELECT * FROM (${perLanguageBlock("came")}) m ORDER BY 1, 2, 3
      ${adding};
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION posts_uncount_click_blocks() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM counted_searches WHERE lexeme IS NOT NULL) THEN
    ${upsert}
      SELECT id, language_id, block, -unclicked, -clicked FROM (${perLanguageBlock("gone")}) m ORDER BY 1, 2, 3
      ${adding};
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION posts_move_click_blocks() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  old_words tsvector;
  new_words tsvector;
  held integer[];
  moved integer;
BEGIN
  IF EXISTS (SELECT 1 FROM counted_searches WHERE lexeme IS NOT NULL) THEN
    IF OLD.language_id = NEW.language_id AND OLD.search_vector = NEW.search_vector THEN
      -- The clicked state alone moved (a first click): its rows exist (the post is counted in
      -- them), one UPDATE in key order moves one count each.
      moved := CASE WHEN NEW.clicks > 0 THEN 1 ELSE 0 END - CASE WHEN OLD.clicks > 0 THEN 1 ELSE 0 END;
      IF moved <> 0 THEN
        IF NEW.clicks > 0 THEN
          SELECT k.words INTO held FROM clicked_posts k WHERE k.id = NEW.id;
        END IF;
        IF held IS NULL THEN
          held := ${heldBy("(NEW.search_vector || ''::tsvector)")};
        END IF;
        UPDATE counted_click_blocks SET unclicked = unclicked - moved, clicked = clicked + moved
          WHERE search_id = ANY(held) AND language_id = NEW.language_id AND block = NEW.id / ${BLOCK};
      END IF;
    ELSE
      old_words := OLD.search_vector || ''::tsvector;
      new_words := NEW.search_vector || ''::tsvector;
      ${upsert}
        SELECT search_id, language_id, block, sum(unclicked), sum(clicked) FROM (
          ${perLanguageRow("OLD", "old_words", "-")}
          UNION ALL ${perLanguageRow("NEW", "new_words", "")}
        ) m (search_id, language_id, block, unclicked, clicked)
        GROUP BY 1, 2, 3 HAVING sum(unclicked) <> 0 OR sum(clicked) <> 0 ORDER BY 1, 2, 3
        ${adding};
      -- A clicked post re-worded: its row's words (a first click inserts the row with them).
      IF NEW.clicks > 0 AND OLD.clicks > 0 THEN
        UPDATE clicked_posts SET words = ${heldBy("new_words")} WHERE id = NEW.id;
      END IF;
    END IF;
  END IF;
  RETURN NULL;
END $$;
`;

/**
 * Migration 63's pieces of migration 59's block upkeep, for the one trigger that moves a post's
 * counts when its clicked state changes (postgres-clicked-state-counts.ts): the words a post holds,
 * the move of its rows by `held` (its clicked state alone changed: its rows exist), and the
 * general move of its old rows off and its new ones on (`oldWords`, `newWords`: its vectors).
 */
export const blockUpkeep = {
  heldBy,
  move: (held: string, moved: string) =>
    `UPDATE counted_click_blocks SET unclicked = unclicked - ${moved}, clicked = clicked + ${moved}
          WHERE search_id = ANY(${held}) AND language_id = NEW.language_id AND block = NEW.id / ${BLOCK};`,
  moveRows: (oldWords: string, newWords: string) => `${upsert}
        SELECT search_id, language_id, block, sum(unclicked), sum(clicked) FROM (
          ${perLanguageRow("OLD", oldWords, "-")}
          UNION ALL ${perLanguageRow("NEW", newWords, "")}
        ) m (search_id, language_id, block, unclicked, clicked)
        GROUP BY 1, 2, 3 HAVING sum(unclicked) <> 0 OR sum(clicked) <> 0 ORDER BY 1, 2, 3
        ${adding};`,
};

/**
 * Migration 64: each counted search's tsquery kept parsed, in a generated column of its own, for
 * the trigger that gives a clicked_posts row its counted words on every insert (a post's first
 * click). It matched the post's words against every counted lexeme through `index_query::tsquery`,
 * the text parsed again for each counted search at each first click; `@@` against the stored
 * query is then the one binary search of the post's sorted lexemes. A generated column
 * (https://www.postgresql.org/docs/current/ddl-generated-columns.html) follows every write of
 * index_query, so no writer of counted_searches has to set it. Safe to take again.
 */
export const storedQueriesSchema = `
ALTER TABLE counted_searches ADD COLUMN IF NOT EXISTS query tsquery GENERATED ALWAYS AS (index_query::tsquery) STORED;
-- No check for counted lexemes first: with none the array is empty, the row's words then, and the
-- post's words are read only when a counted lexeme is there to match (an initplan, run at first use).
CREATE OR REPLACE FUNCTION clicked_posts_words() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.words := ARRAY(SELECT s.id FROM counted_searches s
    WHERE s.lexeme IS NOT NULL AND (SELECT p.search_vector || ''::tsvector FROM posts p WHERE p.id = NEW.id) @@ s.query
    ORDER BY s.id);
  RETURN NEW;
END $$;
`;

/**
 * Counts the blocks of the counted searches `ids` (lexemes) from the posts, in one pass over the
 * posts' own words, per language (migration 59's rows; a database between migrations 50 and 59
 * has its all-languages rows deleted by 59), and marks them counted. The caller holds off writes of posts (a SHARE lock)
 * within its transaction, so no post is written between the count and its triggers.
 */
export async function countClickBlocks(sql: Sql, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  const counts = `SELECT s.id, p.language_id, p.id / ${BLOCK},
          (count(*) FILTER (WHERE NOT p.clicks > 0))::int, (count(*) FILTER (WHERE p.clicks > 0))::int
        FROM posts p CROSS JOIN LATERAL unnest(tsvector_to_array(p.search_vector)) w (lexeme)
        JOIN counted_searches s ON s.lexeme = w.lexeme AND s.id = ANY($1::int[])
        GROUP BY s.id, p.language_id, p.id / ${BLOCK}`;
  // A table until migration 66 (migration 50 counts into it), since then the period rows' columns
  // (postgres-click-count-rows.ts), whose period arrays stay as they are.
  const [blocks] = await rows<{ kind: string }>(
    sql,
    "SELECT relkind::text AS kind FROM pg_class WHERE oid = to_regclass('counted_click_blocks')",
  );
  if (blocks?.kind === "r") {
    await sql.query("DELETE FROM counted_click_blocks WHERE search_id = ANY($1::int[])", [ids]);
    await sql.query(
      `INSERT INTO counted_click_blocks (search_id, language_id, block, unclicked, clicked) ${counts}`,
      [ids],
    );
  } else {
    await sql.query(
      `UPDATE counted_click_periods SET block_unclicked = 0, block_clicked = 0
        WHERE search_id = ANY($1::int[]) AND (block_unclicked <> 0 OR block_clicked <> 0)`,
      [ids],
    );
    await sql.query(
      `INSERT INTO counted_click_periods AS b (search_id, language_id, block, block_unclicked, block_clicked, unclicked)
        SELECT *, '{}'::int[] FROM (${counts}) m ORDER BY 1, 2, 3
        ON CONFLICT (search_id, language_id, block) DO UPDATE
          SET block_unclicked = excluded.block_unclicked, block_clicked = excluded.block_clicked`,
      [ids],
    );
  }
  // Every clicked post's words again: the lexemes counted now, and none no longer counted.
  await sql.query(
    `UPDATE clicked_posts k SET words = coalesce(m.held, '{}') FROM clicked_posts c LEFT JOIN (
        SELECT p.id, array_agg(s.id ORDER BY s.id) AS held
          FROM clicked_posts x JOIN posts p ON p.id = x.id
          CROSS JOIN LATERAL unnest(tsvector_to_array(p.search_vector)) w (lexeme)
          JOIN counted_searches s ON s.lexeme = w.lexeme GROUP BY p.id) m ON m.id = c.id
      WHERE k.id = c.id AND k.words IS DISTINCT FROM coalesce(m.held, '{}')`,
  );
  await sql.query(
    `INSERT INTO counted_click_searches (search_id) SELECT unnest($1::int[]) ON CONFLICT DO NOTHING`,
    [ids],
  );
}

/**
 * The clicks order's index with the words and language beside each key, so a walk of a word's
 * clicked matches reads the index alone (an index-only scan) instead of each row's heap page.
 */
const wordsBesideClicks = `DROP INDEX IF EXISTS clicked_posts_by_clicks_then_id;
CREATE INDEX clicked_posts_by_clicks_then_id ON clicked_posts (clicks, id) INCLUDE (language_id, words);`;

/** Migration 50: the tables and triggers, the blocks and clicked posts' words of every counted lexeme. */
export async function createCountedClicks(sql: Sql): Promise<void> {
  await sql.query(countedClicksSchema);
  await countUnmarked(sql);
  // Built after the words are set (one build, not an entry written per row updated).
  await sql.query(wordsBesideClicks);
}

/** Counts the blocks of the counted lexemes without them (within `sql`'s transaction). */
function countUnmarked(sql: Sql): Promise<number> {
  return countUnmarkedSearches(sql, "counted_click_searches", countClickBlocks);
}

/**
 * Counts the blocks of the counted lexemes that have none (counted by a build without them, or a
 * smart category's word counted since the store opened); returns how many.
 */
export function syncClickBlocks(pool: pg.Pool): Promise<number> {
  return inTransaction(pool, countUnmarked);
}

/** A block of the unclicked matches in scope, newest first, with the unclicked matches up to its end. */
interface CountedBlock {
  block: number;
  n: number;
  running: number;
}

interface ClicksPage {
  offset: number;
  limit: number;
}

/**
 * The ids of one clicks-ordered page of a counted lexeme, null when the word's blocks are not
 * counted, or when the posts held other than the counts said (a write between the reads: the
 * caller's exact paths answer then).
 */
export async function countedClicksPage(
  sql: Sql,
  key: SearchKey,
  languageIds: readonly number[] | null,
  page: ClicksPage,
): Promise<number[] | null> {
  const [search] = await rows<{ id: number; q: string }>(
    sql,
    `SELECT s.id, s.index_query AS q FROM counted_searches s JOIN counted_click_searches k ON k.search_id = s.id
      WHERE s.index_query = $1 AND s.verify_query IS NOT DISTINCT FROM $2 AND s.lexeme IS NOT NULL`,
    [key.index, key.verify],
  );
  if (!search) return null;
  // All languages: the sum of the word's language rows (migration 59).
  const [totals] = await rows<{ clicked: number; unclicked: number }>(
    sql,
    `SELECT coalesce(sum(clicked), 0)::float8 AS clicked, coalesce(sum(unclicked), 0)::float8 AS unclicked
      FROM counted_click_blocks WHERE search_id = $1 ${languageIds ? "AND language_id = ANY($2::int[])" : ""}`,
    [search.id, ...(languageIds ? [languageIds] : [])],
  );
  const { clicked, unclicked } = totals!;
  const end = Math.min(page.offset + page.limit, clicked + unclicked);
  if (end <= page.offset) return [];
  // The clicked part of the page from clicked_posts' words, read from the nearer end of the
  // clicked matches: at most half of the clicked posts in scope walked, the words in the row.
  const fromClicked = Math.max(0, Math.min(end, clicked) - page.offset);
  let ids: number[] = [];
  if (fromClicked > 0) {
    const fromEnd = clicked - page.offset - fromClicked;
    const [order, skip] =
      fromEnd < page.offset ? ["k.clicks, k.id", fromEnd] : ["k.clicks DESC, k.id DESC", page.offset];
    const language = languageIds ? "AND k.language_id = ANY($4::int[])" : "";
    const found = await rows<{ id: number }>(
      sql,
      `SELECT k.id FROM clicked_posts k WHERE $1::int = ANY(k.words) ${language}
        ORDER BY ${order} LIMIT $2 OFFSET $3`,
      [search.id, fromClicked, skip, ...(languageIds ? [languageIds] : [])],
    );
    if (found.length !== fromClicked) return null;
    ids = found.map((r) => r.id);
    if (fromEnd < page.offset) ids.reverse();
  }
  const fromUnclicked = end - page.offset - fromClicked;
  if (fromUnclicked > 0) {
    const first = Math.max(0, page.offset - clicked);
    const found = await unclickedPage(sql, search, languageIds, first, fromUnclicked);
    if (found === null) return null;
    ids = ids.concat(found);
  }
  return ids;
}

/** The unclicked matches at positions `first` to `first + count - 1` (by id descending), or null. */
async function unclickedPage(
  sql: Sql,
  search: { id: number; q: string },
  languageIds: readonly number[] | null,
  first: number,
  count: number,
): Promise<number[] | null> {
  const blocks = await rows<CountedBlock>(
    sql,
    `SELECT block, n, running FROM (
        SELECT block, n, sum(n) OVER (ORDER BY block DESC)::float8 AS running FROM (
          SELECT block, sum(unclicked)::float8 AS n FROM counted_click_blocks
            WHERE search_id = $1 AND ($2::int[] IS NULL OR language_id = ANY($2::int[])) AND unclicked > 0 GROUP BY block) per_block
      ) s WHERE running > $3 AND running - n < $4 ORDER BY block DESC`,
    [search.id, languageIds, first, first + count],
  );
  if (blocks.length === 0) return null;
  const newest = blocks[0]!;
  const oldest = blocks[blocks.length - 1]!;
  const skip = first - (newest.running - newest.n);
  const language = languageIds ? "AND p.language_id = ANY($6::int[])" : "";
  // The blocks' posts by the primary key, newest first: at most the blocks the page spans.
  const found = await rows<{ id: number }>(
    sql,
    `SELECT p.id FROM posts p
      WHERE p.id >= $2 AND p.id < $3 AND NOT p.clicks > 0 AND p.search_vector @@ $1::tsquery ${language}
      ORDER BY p.id DESC LIMIT $4 OFFSET $5`,
    [
      search.q,
      oldest.block * BLOCK,
      (newest.block + 1) * BLOCK,
      count,
      skip,
      ...(languageIds ? [languageIds] : []),
    ],
  );
  return found.length === count ? found.map((r) => r.id) : null;
}
