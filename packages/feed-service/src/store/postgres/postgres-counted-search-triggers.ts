/**
 * The counted searches' triggers, cheaper (migration 22). Every statement that writes posts has
 * its new posts matched against each smart category's query (postgres-counted-searches.ts). As
 * migration 19 wrote them, the match built the post's whole indexed vector (words, facets, pairs)
 * and cast the query's text for every (post, query) pair. Now each post's vector is built once,
 * each query cast once, and the facets are left out: a counted query is a plain search's (no
 * operators), whose lexemes are words and pairs only, so the facets could never match it. The
 * counts are the same, for less of each insert's time (bench/NOTES.md).
 */
import type { Sql } from "./postgres-connection.js";
import { recountSearchesFunction } from "./postgres-counted-searches.js";

/** A post's words and pairs (`c`: the row's alias): what a counted query can match. */
const countedWords = (c: string) => `${c}.search_vector || ${c}.phrase_vector`;

/**
 * Matches of the posts of `source` per counted search, language (0: all) and day: each query cast
 * once, each post's vector built once (MATERIALIZED), then only `@@` per pair. `which` narrows the
 * counted searches read (a WHERE clause; migration 48 counts its one-word searches apart).
 */
export const perDay = (source: string, which = "") => `
  WITH s AS MATERIALIZED (
      SELECT id, index_query::tsquery AS q, verify_query::tsquery AS v FROM counted_searches${which}),
    c AS MATERIALIZED (
      SELECT language_id, post_day(post_date) AS day, search_vector, ${countedWords(source)} AS words FROM ${source})
  SELECT s.id, coalesce(c.language_id, 0) AS language_id, c.day, count(*)::int AS n
    FROM s JOIN c ON c.words @@ s.q AND (s.v IS NULL OR c.search_vector @@ s.v)
    GROUP BY GROUPING SETS ((s.id, c.language_id, c.day), (s.id, c.day))`;

/** Whether a post (`c`) matches a counted search (`s`), for the per-row trigger. */
const matches = (c: string) =>
  `(${countedWords(c)}) @@ s.index_query::tsquery
    AND (s.verify_query IS NULL OR ${c}.search_vector @@ s.verify_query::tsquery)`;

export const countedSearchTriggerSchema = `
CREATE OR REPLACE FUNCTION posts_count_searches() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM counted_searches) THEN
    INSERT INTO search_days AS d (search_id, language_id, day, posts)
      SELECT * FROM (${perDay("came")}) m ORDER BY 1, 2, 3
      ON CONFLICT (search_id, language_id, day) DO UPDATE SET posts = d.posts + excluded.posts;
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION posts_uncount_searches() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM counted_searches) THEN
    UPDATE search_days d SET posts = d.posts - m.n FROM (${perDay("gone")}) m
      WHERE d.search_id = m.id AND d.language_id = m.language_id AND d.day = m.day;
  END IF;
  RETURN NULL;
END $$;

${recountSearchesFunction("CREATE OR REPLACE", matches)}
`;

export async function replaceCountedSearchTriggers(sql: Sql): Promise<void> {
  await sql.query(countedSearchTriggerSchema);
}
