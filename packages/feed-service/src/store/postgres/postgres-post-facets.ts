/**
 * Migration 40, second part: `post_facets(post_date, language_id)` (migration 14), the day, week,
 * month, year and language keys of the two search indexes' expressions, rewritten in PL/pgSQL with
 * the same value. The SQL function is not inlined (its `text || integer` is a stable operator in
 * an immutable function), so every call ran the SQL function executor: each inserted row calls it
 * once per search index and once more in the counted searches' trigger, each index build and
 * ANALYZE once per row, a search's recheck once per candidate. A PL/pgSQL simple expression skips
 * that executor (figures in bench/NOTES.md, pgingest31). The planner sees the same thing as
 * before: a call it does not inline, of the same cost, volatility and parallel safety.
 *
 * Built-in functions and operators only, no post_day(): a PL/pgSQL body resolves names when it
 * runs, and PostgreSQL 17 and later run ANALYZE, index builds and REINDEX with search_path pg_catalog,
 * pg_temp; the day is post_day's expression (postgres-rollups.ts) written out.
 */
export const postFacetsSchema = `
CREATE OR REPLACE FUNCTION post_facets(post_date bigint, language_id integer) RETURNS tsvector
  LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE COST 100 AS $$
DECLARE
  d integer := floor(post_date / 86400000.0)::integer;
BEGIN
  RETURN array_to_tsvector(ARRAY[' day ' || d::text, ' wk ' || floor(d / 7.0)::integer::text,
    ' mo ' || floor(d / 28.0)::integer::text, ' yr ' || floor(d / 364.0)::integer::text,
    ' lang ' || language_id::text]);
END $$;
`;
