/**
 * Date-ranged deep pages by clicks of the counted words (migration 51): `after:`/`before:` with a
 * counted word, clicks order (clicks descending, ties by id descending, the unclicked matches
 * after the clicked ones by id descending: spec §4, "Ties, everywhere"). Posts are stored out of
 * date order, so a range's unclicked matches spread over every block of ids: migration 50's
 * blocks (postgres-counted-clicks.ts) cannot say where in a block a range's matches lie.
 *
 * `counted_click_periods` keeps, per counted word of one lexeme, language (0: all) and block of
 * COUNTED_BLOCK_IDS post ids, the block's unclicked matches per period of PERIOD_DAYS days (the
 * search facets' ` mo ` periods) as one array subscripted by the period. A range's unclicked
 * matches per block are the sums of its whole periods' entries, with the periods it cuts at its
 * ends counted from their posts (GIN with the days' facets, as the cut days of the date pages are):
 * the part of the period in the range, or the period's entry less the part outside it, whichever
 * holds fewer days (at most half a period of one word's matches). The range's matches are the
 * counted days' (postgres-counted-searches.ts); its clicked matches are those less the unclicked.
 * A page among the clicked matches reads clicked_posts from the nearer end of them, the range
 * checked on each index entry's post_date (the clicks order's index holds it beside the words):
 * at most half the clicked posts in scope, as migration 50's pages. A page past them lands on its
 * block by the running sum of the blocks' in-range counts and reads only that block's posts.
 *
 * Upkeep, in functions and triggers of their own: inserts and deletes per statement (transition
 * tables); per row, a post's first click (or clicks back to none) and a change of its date, words
 * or language while unclicked (a clicked post counts in no period); TRUNCATE of the posts forgets
 * them; migrate-data's put-back truncates them with the other counts; a word counted at open is
 * counted here in the same transaction, and a word counted by a build without periods has no
 * mark in `counted_period_searches`, so its ranged pages take the exact slower path until then.
 * Since migration 66 the rows also hold a language's block counts (postgres-click-count-rows.ts),
 * and its triggers keep both; the upkeep below up to migration 63's is that before it.
 */
import type pg from "pg";
import { inTransaction, rows, type Sql } from "./postgres-connection.js";
import { countUnmarkedSearches } from "./postgres-counted-marks.js";
import type { CountedRange } from "./postgres-counted-searches.js";
import { DAY_MS } from "./postgres-page-seek.js";
import { COUNTED_BLOCK_IDS } from "./postgres-plan-costs.js";
import type { SearchKey } from "./postgres-search-key.js";

const BLOCK = COUNTED_BLOCK_IDS;
/** The search facets' ` mo ` period (postgres-light-writes.ts): floor(day / 28). */
export const PERIOD_DAYS = 28;
const PERIOD_MS = PERIOD_DAYS * DAY_MS;
const INT_MIN = -2_147_483_648;
const INT_MAX = 2_147_483_647;

/** The counted searches of one lexeme, each query cast once. */
const words = "SELECT id, index_query::tsquery AS q FROM counted_searches WHERE lexeme IS NOT NULL";
/** A post date's period (floor, as the facets' and post_day's). */
const periodOf = (date: string) => `floor(post_day(${date}) / ${PERIOD_DAYS}.0)::integer`;

/**
 * Per word, language and block, the array of `sign` x the unclicked posts of `source` per period
 * (source: a transition table).
 */
const perPeriod = (source: string, sign: string) => `
  WITH s AS MATERIALIZED (${words}),
    c AS MATERIALIZED (SELECT id / ${BLOCK} AS block, language_id, ${periodOf("post_date")} AS period,
        search_vector || ''::tsvector AS words FROM ${source} WHERE NOT clicks > 0)
  SELECT search_id, language_id, block, counted_periods_of(array_agg(period), array_agg(n)) AS unclicked FROM (
    SELECT s.id AS search_id, coalesce(c.language_id, 0) AS language_id, c.block, c.period, ${sign}count(*)::int AS n
      FROM s JOIN c ON c.words @@ s.q
      GROUP BY GROUPING SETS ((s.id, c.language_id, c.block, c.period), (s.id, c.block, c.period))
  ) m GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`;

/** One post's unclicked counts (`row`: OLD or NEW, its words in `vector`, null when clicked), signed. */
const perRow = (row: string, vector: string, sign: string) => `
  SELECT s.id, l.language_id, ${row}.id / ${BLOCK}, ${periodOf(`${row}.post_date`)}, ${sign}1
    FROM (${words}) s CROSS JOIN (VALUES (0), (${row}.language_id)) l (language_id) WHERE ${vector} @@ s.q`;

const upsert = "INSERT INTO counted_click_periods AS b (search_id, language_id, block, unclicked)";
const adding = `ON CONFLICT (search_id, language_id, block) DO UPDATE
      SET unclicked = counted_periods_add(b.unclicked, excluded.unclicked)`;

/**
 * Migration 51's SQL, safe to take again. Rows are written in key order, so two writers never
 * lock them crosswise. No foreign key to counted_searches: migration 50's TRUNCATE of those would
 * have to name this table; a search's rows go when it is counted again, and reads join its mark.
 */
export const countedClickRangesSchema = `
CREATE TABLE IF NOT EXISTS counted_click_periods (
  search_id integer NOT NULL,
  language_id integer NOT NULL,
  block integer NOT NULL,
  -- Subscript: the period (floor(post_day / ${PERIOD_DAYS})); an entry per period from the block's first to last.
  unclicked integer[] NOT NULL,
  PRIMARY KEY (search_id, language_id, block)
);
CREATE TABLE IF NOT EXISTS counted_period_searches (search_id integer PRIMARY KEY);

-- The array of (period, n) pairs: n summed into the entry subscripted by the period.
CREATE OR REPLACE FUNCTION counted_periods_of(periods integer[], ns integer[]) RETURNS integer[]
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  a integer[] := '{}';
BEGIN
  FOR i IN 1..coalesce(array_length(periods, 1), 0) LOOP
    a[periods[i]] := coalesce(a[periods[i]], 0) + ns[i];
  END LOOP;
  RETURN a;
END $$;

-- a + b entry by entry, by subscript (a grows to b's periods).
CREATE OR REPLACE FUNCTION counted_periods_add(a integer[], b integer[]) RETURNS integer[]
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF cardinality(b) > 0 THEN
    FOR i IN array_lower(b, 1)..array_upper(b, 1) LOOP
      IF b[i] <> 0 THEN
        a[i] := coalesce(a[i], 0) + b[i];
      END IF;
    END LOOP;
  END IF;
  RETURN a;
END $$;

CREATE OR REPLACE FUNCTION posts_count_click_periods() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM counted_searches WHERE lexeme IS NOT NULL) THEN
    ${upsert} ${perPeriod("came", "")} ${adding};
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION posts_uncount_click_periods() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM counted_searches WHERE lexeme IS NOT NULL) THEN
    ${upsert} ${perPeriod("gone", "-")} ${adding};
  END IF;
  RETURN NULL;
END $$;

-- A post's old unclicked counts off and its new ones on, in one statement: a first click takes
-- them off, clicks back to none put them on, a change of date, words or language moves them.
-- Each vector is read out of TOAST once, and only while its post is unclicked.
CREATE OR REPLACE FUNCTION posts_move_click_periods() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  old_words tsvector;
  new_words tsvector;
BEGIN
  IF EXISTS (SELECT 1 FROM counted_searches WHERE lexeme IS NOT NULL) THEN
    IF NOT OLD.clicks > 0 THEN old_words := OLD.search_vector || ''::tsvector; END IF;
    IF NOT NEW.clicks > 0 THEN new_words := NEW.search_vector || ''::tsvector; END IF;
    IF NEW.clicks > 0 AND OLD.language_id = NEW.language_id AND OLD.post_date = NEW.post_date
        AND old_words = (NEW.search_vector || ''::tsvector) THEN
      -- A first click alone: its entries exist (the post is counted in them), one UPDATE in key
      -- order takes one off each, the words matched once.
      UPDATE counted_click_periods SET unclicked[${periodOf("OLD.post_date")}] = unclicked[${periodOf("OLD.post_date")}] - 1
        WHERE search_id = ANY(ARRAY(SELECT s.id FROM (${words}) s WHERE old_words @@ s.q))
          AND language_id IN (0, OLD.language_id) AND block = OLD.id / ${BLOCK};
      RETURN NULL;
    END IF;
    ${upsert}
      SELECT search_id, language_id, block, counted_periods_of(array_agg(period), array_agg(n)) FROM (
        SELECT search_id, language_id, block, period, sum(n)::int AS n FROM (
          ${perRow("OLD", "old_words", "-")}
          UNION ALL ${perRow("NEW", "new_words", "")}
        ) m (search_id, language_id, block, period, n)
        GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0
      ) d GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
      ${adding};
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION posts_forget_click_periods() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE counted_click_periods, counted_period_searches;
  RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS posts_count_click_periods ON posts;
CREATE TRIGGER posts_count_click_periods AFTER INSERT ON posts REFERENCING NEW TABLE AS came
  FOR EACH STATEMENT EXECUTE FUNCTION posts_count_click_periods();
DROP TRIGGER IF EXISTS posts_uncount_click_periods ON posts;
CREATE TRIGGER posts_uncount_click_periods AFTER DELETE ON posts REFERENCING OLD TABLE AS gone
  FOR EACH STATEMENT EXECUTE FUNCTION posts_uncount_click_periods();
-- A click fires this only when it is a post's first (or takes its clicks back to none); the WHENs
-- are exclusive, so an update of clicks and date together moves the counts once, and a clicked
-- post's change of date, words or language fires nothing (it counts in no period).
DROP TRIGGER IF EXISTS posts_click_click_periods ON posts;
CREATE TRIGGER posts_click_click_periods AFTER UPDATE OF clicks ON posts
  FOR EACH ROW WHEN ((OLD.clicks > 0) IS DISTINCT FROM (NEW.clicks > 0))
  EXECUTE FUNCTION posts_move_click_periods();
DROP TRIGGER IF EXISTS posts_move_click_periods ON posts;
CREATE TRIGGER posts_move_click_periods AFTER UPDATE OF post_date, search_vector, language_id ON posts
  FOR EACH ROW WHEN ((OLD.clicks > 0) IS NOT DISTINCT FROM (NEW.clicks > 0) AND NOT NEW.clicks > 0)
  EXECUTE FUNCTION posts_move_click_periods();
DROP TRIGGER IF EXISTS posts_forget_click_periods ON posts;
CREATE TRIGGER posts_forget_click_periods AFTER TRUNCATE ON posts
  FOR EACH STATEMENT EXECUTE FUNCTION posts_forget_click_periods();
`;

/**
 * Migration 59: a post's first click takes its unclicked counts off the periods by the counted
 * lexemes its clicked_posts row was just given (clicked_posts_words, BEFORE INSERT, as migration
 * 54's blocks read them), instead of matching the post's words against every counted word again.
 * The first-click trigger is renamed to sort after posts_track_clicked, which inserts that row:
 * AFTER row triggers of one event fire in name order
 * (https://www.postgresql.org/docs/current/trigger-definition.html). A row not there
 * (posts_track_clicked set aside by a bulk load), clicks back to none and every change of date,
 * words or language match the words as before. The words are compared without copying both
 * vectors out of TOAST first (a click leaves search_vector as it was).
 */
export const firstClickPeriodsSchema = `
CREATE OR REPLACE FUNCTION posts_move_click_periods() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  old_words tsvector;
  new_words tsvector;
  held integer[];
BEGIN
  IF EXISTS (SELECT 1 FROM counted_searches WHERE lexeme IS NOT NULL) THEN
    IF NEW.clicks > 0 AND NOT OLD.clicks > 0 AND OLD.language_id = NEW.language_id
        AND OLD.post_date = NEW.post_date AND OLD.search_vector = NEW.search_vector THEN
      -- A first click alone: its entries exist (the post is counted in them), one UPDATE in key
      -- order takes one off each.
      SELECT k.words INTO held FROM clicked_posts k WHERE k.id = NEW.id;
      IF held IS NULL THEN
        held := ARRAY(SELECT s.id FROM (${words}) s WHERE (OLD.search_vector || ''::tsvector) @@ s.q);
      END IF;
      UPDATE counted_click_periods SET unclicked[${periodOf("OLD.post_date")}] = unclicked[${periodOf("OLD.post_date")}] - 1
        WHERE search_id = ANY(held) AND language_id IN (0, OLD.language_id) AND block = OLD.id / ${BLOCK};
      RETURN NULL;
    END IF;
    IF NOT OLD.clicks > 0 THEN old_words := OLD.search_vector || ''::tsvector; END IF;
    IF NOT NEW.clicks > 0 THEN new_words := NEW.search_vector || ''::tsvector; END IF;
    ${upsert}
      SELECT search_id, language_id, block, counted_periods_of(array_agg(period), array_agg(n)) FROM (
        SELECT search_id, language_id, block, period, sum(n)::int AS n FROM (
          ${perRow("OLD", "old_words", "-")}
          UNION ALL ${perRow("NEW", "new_words", "")}
        ) m (search_id, language_id, block, period, n)
        GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0
      ) d GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
      ${adding};
  END IF;
  RETURN NULL;
END $$;
-- After posts_track_clicked (name order), so a first click finds its clicked_posts row's words.
DROP TRIGGER IF EXISTS posts_click_click_periods ON posts;
DROP TRIGGER IF EXISTS posts_track_clicked_periods ON posts;
CREATE TRIGGER posts_track_clicked_periods AFTER UPDATE OF clicks ON posts
  FOR EACH ROW WHEN ((OLD.clicks > 0) IS DISTINCT FROM (NEW.clicks > 0))
  EXECUTE FUNCTION posts_move_click_periods();
`;

/**
 * Migration 63's pieces of migration 59's period upkeep (postgres-clicked-state-counts.ts): a
 * first click's entries taken off by `held`, and the general move (`oldWords`, `newWords`: the
 * vectors of the post's unclicked states, null where it is clicked).
 */
export const periodUpkeep = {
  firstClick: (held: string) =>
    `UPDATE counted_click_periods SET unclicked[${periodOf("OLD.post_date")}] = unclicked[${periodOf("OLD.post_date")}] - 1
        WHERE search_id = ANY(${held}) AND language_id IN (0, OLD.language_id) AND block = OLD.id / ${BLOCK};`,
  moveRows: (oldWords: string, newWords: string) => `${upsert}
      SELECT search_id, language_id, block, counted_periods_of(array_agg(period), array_agg(n)) FROM (
        SELECT search_id, language_id, block, period, sum(n)::int AS n FROM (
          ${perRow("OLD", oldWords, "-")}
          UNION ALL ${perRow("NEW", newWords, "")}
        ) m (search_id, language_id, block, period, n)
        GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0
      ) d GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
      ${adding};`,
};

/**
 * Counts the periods of the counted searches `ids` (lexemes) from the posts, in one pass over the
 * posts' own words, and marks them counted; rows of searches no longer counted go. The caller
 * holds off writes of posts (a SHARE lock) within its transaction.
 */
export async function countClickPeriods(sql: Sql, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  // The rows of `ids` keep their block counts (migration 66's columns): their arrays are emptied
  // and counted again, not the rows deleted.
  await sql.query(
    "DELETE FROM counted_click_periods WHERE search_id NOT IN (SELECT id FROM counted_searches)",
  );
  await sql.query(
    "UPDATE counted_click_periods SET unclicked = '{}' WHERE search_id = ANY($1::int[]) AND unclicked <> '{}'",
    [ids],
  );
  await sql.query(
    "DELETE FROM counted_period_searches WHERE search_id NOT IN (SELECT id FROM counted_searches)",
  );
  await sql.query(
    `INSERT INTO counted_click_periods AS b (search_id, language_id, block, unclicked)
      SELECT search_id, language_id, block, counted_periods_of(array_agg(period), array_agg(n)) FROM (
        SELECT s.id AS search_id, coalesce(p.language_id, 0) AS language_id, p.id / ${BLOCK} AS block,
            ${periodOf("p.post_date")} AS period, count(*)::int AS n
          FROM posts p CROSS JOIN LATERAL unnest(tsvector_to_array(p.search_vector)) w (lexeme)
          JOIN counted_searches s ON s.lexeme = w.lexeme AND s.id = ANY($1::int[])
          WHERE NOT p.clicks > 0
          GROUP BY GROUPING SETS ((s.id, p.language_id, p.id / ${BLOCK}, 4), (s.id, p.id / ${BLOCK}, 4))
      ) m GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
      ON CONFLICT (search_id, language_id, block) DO UPDATE SET unclicked = excluded.unclicked`,
    [ids],
  );
  await sql.query(
    "INSERT INTO counted_period_searches (search_id) SELECT unnest($1::int[]) ON CONFLICT DO NOTHING",
    [ids],
  );
}

/** Counts the periods of the counted lexemes without them (within `sql`'s transaction). */
function countUnmarked(sql: Sql): Promise<number> {
  return countUnmarkedSearches(sql, "counted_period_searches", countClickPeriods);
}

/**
 * The clicks order's index with the post's date beside the words and language too, so a walk of
 * a word's clicked matches within a date range reads the index alone.
 */
const datesBesideClicks = `DROP INDEX IF EXISTS clicked_posts_by_clicks_then_id;
CREATE INDEX clicked_posts_by_clicks_then_id ON clicked_posts (clicks, id) INCLUDE (language_id, words, post_date);`;

/** Migration 51: the tables and triggers, the periods of every counted lexeme, the index. */
export async function createCountedClickRanges(sql: Sql): Promise<void> {
  await sql.query(countedClickRangesSchema);
  await countUnmarked(sql);
  await sql.query(datesBesideClicks);
}

/** Counts the periods of the counted lexemes that have none; returns how many. */
export function syncClickPeriods(pool: pg.Pool): Promise<number> {
  return inTransaction(pool, countUnmarked);
}

/** A date range (epoch ms, `from` inclusive, `until` exclusive; null: unbounded). */
export interface ClickRange {
  from: number | null;
  until: number | null;
}

/** What the caller counts for a range page: from the counted days and the posts' own index. */
export interface RangeCounts {
  /** The range's days as the counted days keep them (null: a range without a day). */
  days(): Promise<CountedRange | null>;
  /** The unclicked matches dated in [from, until) per block (a stretch within one period). */
  unclickedPerBlock(from: number, until: number): Promise<Array<{ block: number; n: number }>>;
}

/**
 * The periods whose entries a range's counts sum (`low` to `high`), and the stretches of the
 * periods it cuts, each counted from the posts: added (the part in the range) or taken off (the
 * part outside it, its period's entry summed), whichever holds fewer days.
 */
export function rangePeriods(range: ClickRange): {
  low: number;
  high: number;
  stretches: Array<{ from: number; until: number; sign: 1 | -1 }>;
} {
  const stretches: Array<{ from: number; until: number; sign: 1 | -1 }> = [];
  const first = range.from === null ? null : Math.floor(range.from / PERIOD_MS);
  const last = range.until === null ? null : Math.floor((range.until - 1) / PERIOD_MS);
  const cut = new Set<number>();
  if (first !== null && range.from! > first * PERIOD_MS) cut.add(first);
  if (last !== null && range.until! < (last + 1) * PERIOD_MS) cut.add(last);
  // The whole periods (none when one period is cut at both ends).
  let low = first === null ? INT_MIN : cut.has(first) ? first + 1 : first;
  let high = last === null ? INT_MAX : cut.has(last) ? last - 1 : last;
  for (const period of cut) {
    const start = period * PERIOD_MS;
    const end = start + PERIOD_MS;
    const inside = { from: Math.max(start, range.from ?? start), until: Math.min(end, range.until ?? end) };
    if (inside.until - inside.from <= PERIOD_MS / 2) {
      stretches.push({ ...inside, sign: 1 });
      continue;
    }
    // The period's entry summed, less what lies outside the range (before it, after it, or both).
    if (inside.from > start) stretches.push({ from: start, until: inside.from, sign: -1 });
    if (inside.until < end) stretches.push({ from: inside.until, until: end, sign: -1 });
    low = Math.min(low, period);
    high = Math.max(high, period);
  }
  return { low, high, stretches };
}

interface ClicksPage {
  offset: number;
  limit: number;
}

/**
 * The ids of one clicks-ordered page of a counted lexeme within `range`, null when the word's
 * periods are not counted, or when the posts held other than the counts said (a write between
 * the reads: the caller's exact paths answer then).
 */
export async function countedRangeClicksPage(
  sql: Sql,
  key: SearchKey,
  languageIds: readonly number[] | null,
  range: ClickRange,
  page: ClicksPage,
  counts: RangeCounts,
): Promise<number[] | null> {
  const days = await counts.days();
  const { low, high, stretches } = rangePeriods(range);
  // In one statement: the counted search (block -2, its id), the range's matches (its whole days'
  // counts; block -1) and its unclicked ones per block in the whole periods (their entries summed).
  const summed = await rows<{ block: number; n: number }>(
    sql,
    `WITH s AS (SELECT s.id FROM counted_searches s
          JOIN counted_period_searches k ON k.search_id = s.id JOIN counted_click_searches c ON c.search_id = s.id
          WHERE s.index_query = $1 AND s.verify_query IS NOT DISTINCT FROM $2 AND s.lexeme IS NOT NULL)
      SELECT -2 AS block, id::float8 AS n FROM s
      UNION ALL SELECT block, sum((SELECT coalesce(sum(x), 0) FROM unnest(unclicked[$4:$5]) x))::float8
        FROM counted_click_periods WHERE search_id = (SELECT id FROM s) AND language_id = ANY($3::int[]) GROUP BY block
      UNION ALL SELECT -1, coalesce(sum(posts), 0)::float8 FROM search_days
        WHERE search_id = (SELECT id FROM s) AND language_id = ANY($3::int[]) AND day >= $6 AND day <= $7`,
    [key.index, key.verify, languageIds ?? [0], low, high, days?.first ?? 0, days?.last ?? -1],
  );
  const searchId = summed.find((b) => b.block === -2)?.n;
  if (searchId === undefined) return null;
  if (days === null) return [];
  const total = days.cut.reduce((sum, c) => sum + c.n, summed.find((b) => b.block === -1)?.n ?? 0);
  const end = Math.min(page.offset + page.limit, total);
  if (end <= page.offset) return [];
  const perBlock = new Map(summed.filter((b) => b.block >= 0).map((b) => [b.block, b.n]));
  for (const stretch of stretches) {
    for (const b of await counts.unclickedPerBlock(stretch.from, stretch.until))
      perBlock.set(b.block, (perBlock.get(b.block) ?? 0) + stretch.sign * b.n);
  }
  let unclicked = 0;
  for (const n of perBlock.values()) {
    if (n < 0) return null;
    unclicked += n;
  }
  const clicked = total - unclicked;
  if (clicked < 0) return null;
  const dates = [range.from ?? Number.MIN_SAFE_INTEGER, range.until ?? Number.MAX_SAFE_INTEGER];
  // The clicked part of the page from the nearer end of the range's clicked matches, the word,
  // date and language on each index entry.
  const fromClicked = Math.max(0, Math.min(end, clicked) - page.offset);
  let ids: number[] = [];
  if (fromClicked > 0) {
    const fromEnd = clicked - page.offset - fromClicked;
    const [order, skip] =
      fromEnd < page.offset ? ["k.clicks, k.id", fromEnd] : ["k.clicks DESC, k.id DESC", page.offset];
    const language = languageIds ? "AND k.language_id = ANY($6::int[])" : "";
    const found = await rows<{ id: number }>(
      sql,
      `SELECT k.id FROM clicked_posts k
        WHERE $1::int = ANY(k.words) AND k.post_date >= $4::bigint AND k.post_date < $5::bigint ${language}
        ORDER BY ${order} LIMIT $2 OFFSET $3`,
      [searchId, fromClicked, skip, ...dates, ...(languageIds ? [languageIds] : [])],
    );
    if (found.length !== fromClicked) return null;
    ids = found.map((r) => r.id);
    if (fromEnd < page.offset) ids.reverse();
  }
  const fromUnclicked = end - page.offset - fromClicked;
  if (fromUnclicked === 0) return ids;
  // The blocks the unclicked part spans, newest first, by the running sum of their counts.
  const first = Math.max(0, page.offset - clicked);
  const last = first + fromUnclicked;
  const blocks = [...perBlock].filter(([, n]) => n > 0).sort((a, b) => b[0] - a[0]);
  let running = 0;
  let newest: number | null = null;
  let oldest: number | null = null;
  let skip = 0;
  for (const [block, n] of blocks) {
    if (running + n > first && newest === null) {
      newest = block;
      skip = first - running;
    }
    running += n;
    if (newest !== null) {
      oldest = block;
      if (running >= last) break;
    }
  }
  if (newest === null || oldest === null) return null;
  const language = languageIds ? "AND p.language_id = ANY($8::int[])" : "";
  // The blocks' posts by the primary key, newest first: at most the blocks the page spans. The
  // date before the words: a post outside the range never has its vector read out of TOAST.
  const found = await rows<{ id: number }>(
    sql,
    `SELECT p.id FROM posts p
      WHERE p.id >= $2 AND p.id < $3 AND NOT p.clicks > 0
        AND p.post_date >= $6::bigint AND p.post_date < $7::bigint AND p.search_vector @@ $1::tsquery ${language}
      ORDER BY p.id DESC LIMIT $4 OFFSET $5`,
    [
      key.index,
      oldest * BLOCK,
      (newest + 1) * BLOCK,
      fromUnclicked,
      skip,
      ...dates,
      ...(languageIds ? [languageIds] : []),
    ],
  );
  return found.length === fromUnclicked ? ids.concat(found.map((r) => r.id)) : null;
}
