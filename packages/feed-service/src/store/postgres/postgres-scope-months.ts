/**
 * `scope_days` summed per 28-day month (migration 19): posts per (category, language, month).
 * `scope_days` does not grow with the feeds, but it does with the days: twelve years of posts in
 * nine categories and eight languages make it about 235,000 rows, and a read that adds it up whole
 * (the deep-page day seek of all posts, the two sides of a prolific-feeds window) costs what
 * adding up that many rows costs. A seek first finds its month here (a 28th of the rows), then its
 * day among that month's days only: two bounded reads, however long the history (spec §4
 * Latency: the deepest offset, the widest window). The months are the search index's `mo` blocks
 * (postgres-search-facets.ts).
 *
 * Kept from `scope_days` itself, by triggers on it, so that every way `scope_days` is written
 * (the posts' triggers, migrate-data's fill, a TRUNCATE) keeps the months: inserted rows per
 * statement, a change of `posts` per row (`UPDATE OF posts`: a click, which changes only the
 * click sums, does not fire it), deleted rows per statement.
 */
import type { Sql } from "./postgres-connection.js";

/** Days per month: the search facets' `mo` block. */
export const MONTH_DAYS = 28;

/** The month of a day, in SQL. */
export const monthOf = (day: string) => `floor((${day}) / ${MONTH_DAYS}.0)::integer`;

export const scopeMonthSchema = `
CREATE TABLE scope_months (
  category_id integer,
  language_id integer NOT NULL,
  month integer NOT NULL,
  posts bigint NOT NULL,
  CONSTRAINT scope_months_key UNIQUE NULLS NOT DISTINCT (category_id, language_id, month)
);
CREATE INDEX scope_months_by_month ON scope_months (month);

-- In key order, so that two refreshes upserting the same months lock them in one order.
CREATE FUNCTION scope_days_add_months() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO scope_months AS m (category_id, language_id, month, posts)
    SELECT category_id, language_id, ${monthOf("day")}, sum(posts) FROM came GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT ON CONSTRAINT scope_months_key DO UPDATE SET posts = m.posts + excluded.posts;
  RETURN NULL;
END $$;

CREATE FUNCTION scope_days_remove_months() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE scope_months m SET posts = m.posts - g.posts
    FROM (SELECT category_id, language_id, ${monthOf("day")} AS month, sum(posts) AS posts FROM gone GROUP BY 1, 2, 3) g
    WHERE m.category_id IS NOT DISTINCT FROM g.category_id AND m.language_id = g.language_id AND m.month = g.month;
  RETURN NULL;
END $$;

CREATE FUNCTION scope_days_move_months() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.posts IS DISTINCT FROM OLD.posts THEN
    UPDATE scope_months SET posts = posts + (NEW.posts - OLD.posts)
      WHERE category_id IS NOT DISTINCT FROM NEW.category_id AND language_id = NEW.language_id
        AND month = ${monthOf("NEW.day")};
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION scope_days_truncate_months() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE scope_months;
  RETURN NULL;
END $$;

CREATE TRIGGER scope_days_add_months AFTER INSERT ON scope_days REFERENCING NEW TABLE AS came
  FOR EACH STATEMENT EXECUTE FUNCTION scope_days_add_months();
CREATE TRIGGER scope_days_remove_months AFTER DELETE ON scope_days REFERENCING OLD TABLE AS gone
  FOR EACH STATEMENT EXECUTE FUNCTION scope_days_remove_months();
CREATE TRIGGER scope_days_move_months AFTER UPDATE OF posts ON scope_days
  FOR EACH ROW EXECUTE FUNCTION scope_days_move_months();
CREATE TRIGGER scope_days_truncate_months AFTER TRUNCATE ON scope_days
  FOR EACH STATEMENT EXECUTE FUNCTION scope_days_truncate_months();

LOCK TABLE scope_days IN SHARE MODE;
INSERT INTO scope_months (category_id, language_id, month, posts)
  SELECT category_id, language_id, ${monthOf("day")}, sum(posts) FROM scope_days GROUP BY 1, 2, 3;
ANALYZE scope_months;
`;

export async function createScopeMonths(sql: Sql): Promise<void> {
  await sql.query(scopeMonthSchema);
}
