/**
 * Migration 63: one trigger moves a post's counted-word counts when its clicked state changes (a
 * first click, or clicks back to none): the click blocks (migration 50, per language since 59)
 * and the unclicked period counts (migration 51, first clicks by the row's words since 59).
 *
 * Migrations 54 and 59 gave each its own trigger on the same event and condition, so a first click
 * called two PL/pgSQL functions, each of which checked for counted words, compared the post's old
 * and new search_vector (reading both out of TOAST) and read the words of the post's clicked_posts
 * row. The one function does each of those once, then writes the same rows as before, in the same
 * order (the blocks, then the periods: the order two writers take them in). Every other case
 * (clicks back to none, a click that also changes the words, language or date, a clicked_posts row
 * not there) takes each table's path of migration 59 unchanged. posts_move_click_blocks and
 * posts_move_click_periods stay the functions of the triggers for words, language and date.
 *
 * The trigger is named to sort after posts_track_clicked, which inserts the clicked_posts row it
 * reads: AFTER row triggers of one event fire in name order
 * (https://www.postgresql.org/docs/current/trigger-definition.html).
 */
import { periodUpkeep } from "./postgres-counted-click-ranges.js";
import { blockUpkeep } from "./postgres-counted-clicks.js";

/** Migration 63's SQL, safe to take again. */
export const clickedStateCountsSchema = `
CREATE OR REPLACE FUNCTION posts_track_clicked_counts() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  same boolean;
  held integer[];
  moved integer;
  old_words tsvector;
  new_words tsvector;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM counted_searches WHERE lexeme IS NOT NULL) THEN RETURN NULL; END IF;
  -- The words compared once, without copying both vectors out of TOAST first (a click leaves them).
  same := coalesce(OLD.language_id = NEW.language_id AND OLD.search_vector = NEW.search_vector, false);
  IF same THEN
    -- The counted words it holds: its clicked_posts row's, given them at this click's insert.
    IF NEW.clicks > 0 THEN
      SELECT k.words INTO held FROM clicked_posts k WHERE k.id = NEW.id;
    END IF;
    IF held IS NULL THEN
      held := ${blockUpkeep.heldBy("(NEW.search_vector || ''::tsvector)")};
    END IF;
    -- The clicked state alone moved: its block rows exist (the post is counted in them).
    moved := CASE WHEN NEW.clicks > 0 THEN 1 ELSE 0 END - CASE WHEN OLD.clicks > 0 THEN 1 ELSE 0 END;
    ${blockUpkeep.move("held", "moved")}
  ELSE
    old_words := OLD.search_vector || ''::tsvector;
    new_words := NEW.search_vector || ''::tsvector;
    ${blockUpkeep.moveRows("old_words", "new_words")}
  END IF;
  IF same AND NEW.clicks > 0 AND NOT OLD.clicks > 0 AND OLD.post_date = NEW.post_date THEN
    -- A first click alone: its period entries exist (it is counted in them while unclicked).
    ${periodUpkeep.firstClick("held")}
  ELSE
    -- A clicked post counts in no period: only its unclicked side's words count.
    old_words := CASE WHEN NOT OLD.clicks > 0 THEN OLD.search_vector || ''::tsvector END;
    new_words := CASE WHEN NOT NEW.clicks > 0 THEN NEW.search_vector || ''::tsvector END;
    ${periodUpkeep.moveRows("old_words", "new_words")}
  END IF;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS posts_track_clicked_blocks ON posts;
DROP TRIGGER IF EXISTS posts_track_clicked_periods ON posts;
DROP TRIGGER IF EXISTS posts_track_clicked_counts ON posts;
CREATE TRIGGER posts_track_clicked_counts AFTER UPDATE OF clicks ON posts
  FOR EACH ROW WHEN ((OLD.clicks > 0) IS DISTINCT FROM (NEW.clicks > 0))
  EXECUTE FUNCTION posts_track_clicked_counts();
`;
