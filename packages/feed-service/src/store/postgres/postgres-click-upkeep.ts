/**
 * Migration 45: a click's roll-up rows each written once, by a plain UPDATE where the row exists,
 * from one trigger on posts instead of two.
 *
 * A click moves one count in each roll-up row it reaches, and each of those rows exists but for
 * a post's first click and its feed's first click of a block or of a day. The triggers wrote them
 * as `INSERT ... ON CONFLICT DO UPDATE` (clicked_posts, the feeds' running sums) or as a
 * subtraction and an addition on one row (language_totals). An upsert that meets its row probes
 * the key, locks the row (a WAL record of its own), builds the row it would have inserted and then
 * updates (https://www.postgresql.org/docs/current/sql-insert.html#SQL-ON-CONFLICT); two UPDATEs of
 * one row write two versions of it. And a click fired two row triggers on posts, each loading the
 * post's old and new rows into a PL/pgSQL call: posts_track_rollups_update (its scope_days row)
 * and posts_track_clicked (its clicked_posts row). Now posts_track_clicked moves both when only the
 * count changed, and posts_track_rollups_update fires only for a post whose feed, category,
 * language or date changes (moving its clicks with the rest, as before). The upserts (or the two
 * updates) stay the path of every other case: a row that is missing, a post re-filed, a click dated
 * before its feed's last day. Same rows and values; the rows that clicks on different posts share
 * (scope_days, language_totals, the feed's running sums) are taken in the same order as before
 * (record_clicks' lock order, postgres-click-schema.ts).
 */
import type { Sql } from "./postgres-connection.js";
import { STRIPES } from "./postgres-language-totals.js";
import { SUM_BLOCK_DAYS, sumsAddOne, sumsAddOneUpserts } from "./postgres-running-sums.js";

const stripe = (day: string) => `((${day} % ${STRIPES}) + ${STRIPES}) % ${STRIPES}`;
const key = (row: string) => `${row}.language_id, coalesce(${row}.category_id, 0), ${stripe(`${row}.day`)}`;

const block = (day: string) => `floor((${day}) / ${SUM_BLOCK_DAYS}.0)::integer`;
const [sumsUpsert, daysUpsert] = sumsAddOneUpserts("click", "feed", "NEW.clicked_at");

/** Migration 45's SQL: four trigger functions and the condition of posts_track_rollups_update. */
export const clickUpkeepSchema = `
-- A scope_days row whose counts move within its key (a click, a post added or removed) moves its
-- language_totals row by the difference, in one UPDATE.
CREATE OR REPLACE FUNCTION scope_days_move_languages() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.posts IS DISTINCT FROM OLD.posts OR NEW.clicks IS DISTINCT FROM OLD.clicks THEN
    IF NEW.language_id = OLD.language_id AND NEW.category_id IS NOT DISTINCT FROM OLD.category_id
        AND ${stripe("NEW.day")} = ${stripe("OLD.day")} THEN
      UPDATE language_totals SET posts = posts + (NEW.posts - OLD.posts), clicks = clicks + (NEW.clicks - OLD.clicks)
        WHERE (language_id, category_key, stripe) = (${key("NEW")});
    ELSE
      UPDATE language_totals SET posts = posts - OLD.posts, clicks = clicks - OLD.clicks
        WHERE (language_id, category_key, stripe) = (${key("OLD")});
      UPDATE language_totals SET posts = posts + NEW.posts, clicks = clicks + NEW.clicks
        WHERE (language_id, category_key, stripe) = (${key("NEW")});
    END IF;
  END IF;
  RETURN NULL;
END $$;

-- A click moves a post's count alone: its scope_days row and its clicked_posts row then move here,
-- in the one trigger a click fires on posts (posts_track_rollups_update no longer fires for clicks
-- alone; an update that also moves the post's feed, category, language or date fires it, and it
-- moves the clicks with the rest). A post already clicked has its clicked_posts row updated; a
-- first click, and any other change, goes through migration 34's upsert.
-- enable_seqscan off as on posts_track_rollups, whose scope_days update this is (a plan made while
-- the table was new and small stays the session's).
CREATE OR REPLACE FUNCTION posts_track_clicked() RETURNS trigger LANGUAGE plpgsql SET enable_seqscan = off AS $$
BEGIN
  -- The negation of posts_track_rollups_update's condition.
  IF OLD.feed_id IS NOT DISTINCT FROM NEW.feed_id AND OLD.category_id IS NOT DISTINCT FROM NEW.category_id
      AND OLD.language_id IS NOT DISTINCT FROM NEW.language_id AND OLD.post_date IS NOT DISTINCT FROM NEW.post_date THEN
    IF NEW.clicks IS DISTINCT FROM OLD.clicks THEN
      UPDATE scope_days SET clicks = clicks + (NEW.clicks - OLD.clicks)
        WHERE category_id IS NOT DISTINCT FROM NEW.category_id AND language_id = NEW.language_id
          AND day = post_day(NEW.post_date);
    END IF;
    IF OLD.clicks > 0 AND NEW.clicks > 0 AND OLD.rank_vector IS NOT DISTINCT FROM NEW.rank_vector THEN
      UPDATE clicked_posts SET clicks = NEW.clicks WHERE id = NEW.id;
      IF FOUND THEN RETURN NULL; END IF;
    END IF;
  END IF;
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
-- Migration 6's roll-up trigger on updates, without clicks (posts_track_clicked moves them).
DROP TRIGGER IF EXISTS posts_track_rollups_update ON posts;
CREATE TRIGGER posts_track_rollups_update AFTER UPDATE OF feed_id, category_id, language_id, post_date ON posts
  FOR EACH ROW WHEN (OLD.feed_id IS DISTINCT FROM NEW.feed_id OR OLD.category_id IS DISTINCT FROM NEW.category_id
    OR OLD.language_id IS DISTINCT FROM NEW.language_id OR OLD.post_date IS DISTINCT FROM NEW.post_date)
  EXECUTE FUNCTION posts_track_rollups();

-- Migration 42's click trigger. A new click dated in its feed's last block, and on the last day of
-- that block's row (the clicks of /click, in time order), adds one to the last element of each
-- row; any other click, and a row not there yet, goes through migration 42's upserts. The total
-- row first, then the day row, as before (record_clicks' lock order).
CREATE OR REPLACE FUNCTION clicks_track_rollups() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  feed integer;
  click_day integer;
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    SELECT p.feed_id INTO feed FROM posts p WHERE p.id = OLD.post_id;
    IF feed IS NOT NULL THEN
      ${sumsAddOne("click", "feed", "OLD.clicked_at", -1)}
    END IF;
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    SELECT p.feed_id INTO feed FROM posts p WHERE p.id = NEW.post_id;
    IF feed IS NOT NULL THEN
      click_day := post_day(NEW.clicked_at);
      UPDATE feed_click_sums SET through[cardinality(through)] = through[cardinality(through)] + 1
        WHERE feed_id = feed AND first_block + cardinality(through) - 1 = ${block("click_day")};
      IF NOT FOUND THEN
        ${sumsUpsert}
      END IF;
      UPDATE feed_click_days SET through[cardinality(through)] = through[cardinality(through)] + 1
        WHERE block = ${block("click_day")} AND feed_id = feed
          AND cardinality(through) = click_day - ${block("click_day")} * ${SUM_BLOCK_DAYS} + 1;
      IF NOT FOUND THEN
        ${daysUpsert}
      END IF;
    END IF;
  END IF;
  RETURN NULL;
END $$;
`;

export async function createClickUpkeep(sql: Sql): Promise<void> {
  await sql.query(clickUpkeepSchema);
}
