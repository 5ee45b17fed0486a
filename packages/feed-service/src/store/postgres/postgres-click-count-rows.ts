/**
 * Migration 66: a counted word's click blocks (migration 50, per language since 59) kept as two
 * columns of its period row of the same key (migration 51: search, language, block), so a post's
 * first click moves one row per counted word and language instead of two, and the all-languages
 * period row beside it: one UPDATE of the rows it holds, where it made two (the blocks', then the
 * periods'). The block's and the period row's keys are the same for a language (the period rows
 * of language 0, "all languages", keep no block counts: the readers sum a block's language rows
 * since migration 59), and each first click moved both.
 *
 * `counted_click_blocks` is a view of those columns over the language rows of the counted
 * searches, so its readers (postgres-counted-clicks.ts) read what the table held. The upkeep writes
 * both kinds of count in one statement per event, rows in key order (two writers never lock them
 * crosswise): the posts' inserts and deletes per statement, a post's clicked state and its date,
 * words or language per row. A word's block columns and its period arrays are counted apart
 * (countClickBlocks, countClickPeriods), each leaving the other's columns as they were.
 */
import { COUNTED_BLOCK_IDS } from "./postgres-plan-costs.js";

const BLOCK = COUNTED_BLOCK_IDS;
/** The search facets' ` mo ` period (postgres-counted-click-ranges.ts' PERIOD_DAYS). */
const periodOf = (date: string) => `floor(post_day(${date}) / 28.0)::integer`;
const words = "SELECT id, query AS q FROM counted_searches WHERE lexeme IS NOT NULL";

/**
 * Rows (search_id, language_id, block, period, n, k), summed per (search_id, language_id, block)
 * into one row of the table: the period array of the n (unclicked posts) and, in a language's row,
 * the block's unclicked (the n summed) and clicked (the k) posts.
 */
const intoRows = (deltas: string) => `
  INSERT INTO counted_click_periods AS b (search_id, language_id, block, unclicked, block_unclicked, block_clicked)
    SELECT search_id, language_id, block,
        counted_periods_of(coalesce(array_agg(period) FILTER (WHERE n <> 0), '{}'), coalesce(array_agg(n) FILTER (WHERE n <> 0), '{}')),
        CASE WHEN language_id = 0 THEN 0 ELSE sum(n) END, CASE WHEN language_id = 0 THEN 0 ELSE sum(k) END
      FROM (
        SELECT search_id, language_id, block, period, sum(n)::int AS n, sum(k)::int AS k
          FROM (${deltas}) m (search_id, language_id, block, period, n, k) GROUP BY 1, 2, 3, 4
      ) d GROUP BY 1, 2, 3 HAVING bool_or(n <> 0 OR (language_id <> 0 AND k <> 0)) ORDER BY 1, 2, 3
    ON CONFLICT (search_id, language_id, block) DO UPDATE
      SET unclicked = counted_periods_add(b.unclicked, excluded.unclicked),
        block_unclicked = b.block_unclicked + excluded.block_unclicked, block_clicked = b.block_clicked + excluded.block_clicked;`;

/** The posts of a transition table `source`, signed: per word, language (0: all), block and period. */
const perStatement = (source: string, sign: string) => `
  WITH s AS MATERIALIZED (${words}),
    c AS MATERIALIZED (SELECT id / ${BLOCK} AS block, language_id, clicks > 0 AS clicked, ${periodOf("post_date")} AS period,
        search_vector || ''::tsvector AS words FROM ${source})
  SELECT s.id, coalesce(c.language_id, 0), c.block, c.period,
      ${sign}(count(*) FILTER (WHERE NOT c.clicked)), ${sign}(count(*) FILTER (WHERE c.clicked))
    FROM s JOIN c ON c.words @@ s.q
    GROUP BY GROUPING SETS ((s.id, c.language_id, c.block, c.period), (s.id, c.block, c.period))`;

/** One post (`row`: OLD or NEW, its words in `vector`), signed: its language's rows and language 0's. */
const perRow = (row: string, vector: string, sign: string) => `
  SELECT s.id, l.language_id, ${row}.id / ${BLOCK}, ${periodOf(`${row}.post_date`)},
      ${sign}(NOT ${row}.clicks > 0)::int, ${sign}(${row}.clicks > 0 AND l.language_id <> 0)::int
    FROM (${words}) s CROSS JOIN (VALUES (0), (${row}.language_id)) l (language_id) WHERE ${vector} @@ s.q`;

/** A post's old counts off and its new ones on (its words: `oldWords`, `newWords`), in one statement. */
const moveRow = (oldWords: string, newWords: string) =>
  intoRows(`${perRow("OLD", oldWords, "-")} UNION ALL ${perRow("NEW", newWords, "")}`);

/** The ids of the counted lexemes that the words `vector` hold, in order. */
const heldBy = (vector: string) =>
  `ARRAY(SELECT s.id FROM (${words}) s WHERE ${vector} @@ s.q ORDER BY s.id)`;

/** Migration 66's SQL, safe to take again (the table's rows are moved only while it is a table). */
export const clickCountRowsSchema = `
ALTER TABLE counted_click_periods
  ADD COLUMN IF NOT EXISTS block_unclicked integer NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS block_clicked integer NOT NULL DEFAULT 0;
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_class WHERE oid = to_regclass('counted_click_blocks') AND relkind = 'r') THEN
    UPDATE counted_click_periods SET block_unclicked = 0, block_clicked = 0
      WHERE block_unclicked <> 0 OR block_clicked <> 0;
    INSERT INTO counted_click_periods AS p (search_id, language_id, block, unclicked, block_unclicked, block_clicked)
      SELECT search_id, language_id, block, '{}', unclicked, clicked FROM counted_click_blocks
        WHERE language_id <> 0 ORDER BY 1, 2, 3
      ON CONFLICT (search_id, language_id, block) DO UPDATE
        SET block_unclicked = excluded.block_unclicked, block_clicked = excluded.block_clicked;
    DROP TABLE counted_click_blocks;
  END IF;
END $$;
-- The blocks as the table kept them: a language's rows, of the searches still counted (the table's
-- rows went with their search; the period rows stay until the search's words are counted again).
CREATE OR REPLACE VIEW counted_click_blocks AS
  SELECT search_id, language_id, block, block_unclicked AS unclicked, block_clicked AS clicked
    FROM counted_click_periods WHERE language_id <> 0 AND search_id IN (SELECT id FROM counted_searches);

CREATE OR REPLACE FUNCTION posts_count_click_counts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM counted_searches WHERE lexeme IS NOT NULL) THEN
    ${intoRows(perStatement("came", ""))}
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION posts_uncount_click_counts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM counted_searches WHERE lexeme IS NOT NULL) THEN
    ${intoRows(perStatement("gone", "-"))}
  END IF;
  RETURN NULL;
END $$;

-- A post's clicked state changed (the WHEN): a first click alone takes one off its period entry
-- and moves one from unclicked to clicked in its blocks, by the counted words its clicked_posts
-- row was given at its insert (posts_track_clicked, before this in name order); anything else
-- (clicks back to none, a click that also changes the date, words or language) moves the post's
-- old counts off and its new ones on.
CREATE OR REPLACE FUNCTION posts_track_clicked_counts() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  held integer[];
BEGIN
  IF NOT EXISTS (SELECT 1 FROM counted_searches WHERE lexeme IS NOT NULL) THEN RETURN NULL; END IF;
  -- The words compared without copying both vectors out of TOAST first (a click leaves them).
  IF NEW.clicks > 0 AND NOT OLD.clicks > 0 AND OLD.language_id = NEW.language_id
      AND OLD.post_date = NEW.post_date AND OLD.search_vector = NEW.search_vector THEN
    SELECT k.words INTO held FROM clicked_posts k WHERE k.id = NEW.id;
    IF held IS NULL THEN
      held := ${heldBy("(NEW.search_vector || ''::tsvector)")};
    END IF;
    -- Its rows exist (it is counted in them while unclicked); one UPDATE in key order.
    UPDATE counted_click_periods SET unclicked[${periodOf("OLD.post_date")}] = unclicked[${periodOf("OLD.post_date")}] - 1,
        block_unclicked = block_unclicked - CASE WHEN language_id = 0 THEN 0 ELSE 1 END,
        block_clicked = block_clicked + CASE WHEN language_id = 0 THEN 0 ELSE 1 END
      WHERE search_id = ANY(held) AND language_id IN (0, OLD.language_id) AND block = OLD.id / ${BLOCK};
    RETURN NULL;
  END IF;
  ${moveRow("(OLD.search_vector || ''::tsvector)", "(NEW.search_vector || ''::tsvector)")}
  RETURN NULL;
END $$;

-- A post's date, words or language changed, its clicked state not (the WHEN). A clicked post counts
-- in no period, so its date alone moves nothing. A clicked post re-worded or re-filed also has its
-- clicked_posts row's words set again (a first click inserts the row with them).
CREATE OR REPLACE FUNCTION posts_move_click_counts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM counted_searches WHERE lexeme IS NOT NULL) THEN RETURN NULL; END IF;
  IF OLD.language_id = NEW.language_id AND OLD.search_vector = NEW.search_vector
      AND (NEW.clicks > 0 OR OLD.post_date = NEW.post_date) THEN
    RETURN NULL;
  END IF;
  ${moveRow("(OLD.search_vector || ''::tsvector)", "(NEW.search_vector || ''::tsvector)")}
  IF NEW.clicks > 0 THEN
    UPDATE clicked_posts SET words = ${heldBy("(NEW.search_vector || ''::tsvector)")} WHERE id = NEW.id;
  END IF;
  RETURN NULL;
END $$;

-- A TRUNCATE of the posts: the blocks go with the period rows (posts_forget_click_periods).
CREATE OR REPLACE FUNCTION posts_forget_counted_searches() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE search_days, counted_click_searches, counted_searches;
  RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS posts_count_click_blocks ON posts;
DROP TRIGGER IF EXISTS posts_count_click_periods ON posts;
DROP TRIGGER IF EXISTS posts_count_click_counts ON posts;
CREATE TRIGGER posts_count_click_counts AFTER INSERT ON posts REFERENCING NEW TABLE AS came
  FOR EACH STATEMENT EXECUTE FUNCTION posts_count_click_counts();
DROP TRIGGER IF EXISTS posts_uncount_click_blocks ON posts;
DROP TRIGGER IF EXISTS posts_uncount_click_periods ON posts;
DROP TRIGGER IF EXISTS posts_uncount_click_counts ON posts;
CREATE TRIGGER posts_uncount_click_counts AFTER DELETE ON posts REFERENCING OLD TABLE AS gone
  FOR EACH STATEMENT EXECUTE FUNCTION posts_uncount_click_counts();
DROP TRIGGER IF EXISTS posts_track_clicked_counts ON posts;
CREATE TRIGGER posts_track_clicked_counts AFTER UPDATE OF clicks ON posts
  FOR EACH ROW WHEN ((OLD.clicks > 0) IS DISTINCT FROM (NEW.clicks > 0))
  EXECUTE FUNCTION posts_track_clicked_counts();
DROP TRIGGER IF EXISTS posts_move_click_blocks ON posts;
DROP TRIGGER IF EXISTS posts_move_click_periods ON posts;
DROP TRIGGER IF EXISTS posts_move_click_counts ON posts;
-- The first-click triggers of migrations 50-59, gone since 63 (their functions go below).
DROP TRIGGER IF EXISTS posts_click_click_blocks ON posts;
DROP TRIGGER IF EXISTS posts_click_click_periods ON posts;
DROP TRIGGER IF EXISTS posts_track_clicked_blocks ON posts;
DROP TRIGGER IF EXISTS posts_track_clicked_periods ON posts;
CREATE TRIGGER posts_move_click_counts AFTER UPDATE OF post_date, search_vector, language_id ON posts
  FOR EACH ROW WHEN ((OLD.clicks > 0) IS NOT DISTINCT FROM (NEW.clicks > 0))
  EXECUTE FUNCTION posts_move_click_counts();
DROP FUNCTION IF EXISTS posts_count_click_blocks(), posts_uncount_click_blocks(), posts_move_click_blocks(),
  posts_count_click_periods(), posts_uncount_click_periods(), posts_move_click_periods();
`;
