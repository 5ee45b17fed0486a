/**
 * Posts and clicks per language (migration 25), what getAggregateLanguageData reports (spec §4:
 * operation 14). Adding them up from `scope_days` read every row of it, a number that grows with
 * the days of history (categories x languages x days); here each language has at most
 * categories x STRIPES rows, whatever the history.
 *
 * A row per (language, category, day modulo STRIPES), not one per language: a click adds to its
 * post's row here as it does to its `scope_days` row, so two clicks wait for each other here only
 * when they would there, or when their posts' days are a multiple of STRIPES apart (one row per
 * language would make every click of a language wait for the one before it to commit).
 *
 * Kept from `scope_days` by triggers on it, like `scope_months` (postgres-scope-months.ts), so that
 * every writer of `scope_days` (the posts' triggers, migrate-data's fill, a TRUNCATE) keeps it.
 */
import { rows, type Sql } from "./postgres-connection.js";

/** Rows per language and category (see above). */
export const STRIPES = 32;

const key = (row: string) =>
  `${row}.language_id, coalesce(${row}.category_id, 0), ((${row}.day % ${STRIPES}) + ${STRIPES}) % ${STRIPES}`;

/** Idempotent: a re-filing test runs later migrations again. */
export const languageTotalsSchema = `
CREATE TABLE IF NOT EXISTS language_totals (
  language_id integer NOT NULL,
  category_key integer NOT NULL,
  stripe integer NOT NULL,
  posts bigint NOT NULL,
  clicks bigint NOT NULL,
  PRIMARY KEY (language_id, category_key, stripe)
);

-- In key order, so that two refreshes upserting the same rows lock them in one order.
CREATE OR REPLACE FUNCTION scope_days_add_languages() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO language_totals AS t (language_id, category_key, stripe, posts, clicks)
    SELECT ${key("c")}, sum(c.posts), sum(c.clicks) FROM came c GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (language_id, category_key, stripe) DO UPDATE SET posts = t.posts + excluded.posts,
      clicks = t.clicks + excluded.clicks;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION scope_days_remove_languages() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE language_totals t SET posts = t.posts - g.posts, clicks = t.clicks - g.clicks
    FROM (SELECT ${key("o")}, sum(o.posts), sum(o.clicks) FROM gone o GROUP BY 1, 2, 3) AS g (l, c, s, posts, clicks)
    WHERE (t.language_id, t.category_key, t.stripe) = (g.l, g.c, g.s);
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION scope_days_move_languages() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.posts IS DISTINCT FROM OLD.posts OR NEW.clicks IS DISTINCT FROM OLD.clicks THEN
    UPDATE language_totals SET posts = posts - OLD.posts, clicks = clicks - OLD.clicks
      WHERE (language_id, category_key, stripe) = (${key("OLD")});
    UPDATE language_totals SET posts = posts + NEW.posts, clicks = clicks + NEW.clicks
      WHERE (language_id, category_key, stripe) = (${key("NEW")});
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION scope_days_truncate_languages() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE language_totals;
  RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS scope_days_add_languages ON scope_days;
DROP TRIGGER IF EXISTS scope_days_remove_languages ON scope_days;
DROP TRIGGER IF EXISTS scope_days_move_languages ON scope_days;
DROP TRIGGER IF EXISTS scope_days_truncate_languages ON scope_days;
CREATE TRIGGER scope_days_add_languages AFTER INSERT ON scope_days REFERENCING NEW TABLE AS came
  FOR EACH STATEMENT EXECUTE FUNCTION scope_days_add_languages();
CREATE TRIGGER scope_days_remove_languages AFTER DELETE ON scope_days REFERENCING OLD TABLE AS gone
  FOR EACH STATEMENT EXECUTE FUNCTION scope_days_remove_languages();
CREATE TRIGGER scope_days_move_languages AFTER UPDATE OF posts, clicks ON scope_days
  FOR EACH ROW EXECUTE FUNCTION scope_days_move_languages();
CREATE TRIGGER scope_days_truncate_languages AFTER TRUNCATE ON scope_days
  FOR EACH STATEMENT EXECUTE FUNCTION scope_days_truncate_languages();

LOCK TABLE scope_days IN SHARE MODE;
TRUNCATE language_totals;
INSERT INTO language_totals (language_id, category_key, stripe, posts, clicks)
  SELECT ${key("s")}, sum(s.posts), sum(s.clicks) FROM scope_days s GROUP BY 1, 2, 3;
ANALYZE language_totals;
`;

export async function createLanguageTotals(sql: Sql): Promise<void> {
  await sql.query(languageTotalsSchema);
}

/** How many posts the languages hold, from their totals (a few hundred rows per language at most). */
export async function postsInLanguages(sql: Sql, languageIds: readonly number[]): Promise<number> {
  const [row] = await rows<{ n: number }>(
    sql,
    "SELECT coalesce(sum(posts), 0)::float8 AS n FROM language_totals WHERE language_id = ANY($1::int[])",
    [languageIds],
  );
  return row!.n;
}
