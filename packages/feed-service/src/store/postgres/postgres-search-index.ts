/**
 * One search index instead of two (migration 22). Until then `posts` had two GIN expression
 * indexes holding each post's words and facets twice: `posts_search_words` (words, facets, the
 * pairs of neighbouring words: postgres-phrase-pairs.ts) and `posts_search_operators` (words,
 * facets, the operators' lexemes: postgres-search-operators.ts). Every new post wrote its words
 * into both, every index build and ANALYZE read and sorted them twice, and a bulk load built two
 * GIN indexes one after the other (bench/NOTES.md). `posts_search_lexemes` holds each post's
 * words, facets, pairs and operators' lexemes once, and both kinds of search read it.
 *
 * Why the pairs were kept apart: a prefix (`'sour':*`) is read by GIN as the range of lexemes
 * starting with it, and unmarked pairs (`source code`) fall in that range, one more posting list
 * each. So the pairs are marked (PAIR_MARK, two spaces first: `  source code`), which sorts them
 * before every word, outside any prefix's range; the writer stores them so (`phrase_vector`) and
 * the phrase lookups spell them so. The answers are unchanged: the lexemes of the old two indexes
 * are all in the one, none of them equal to another (words hold no space, facets and operator
 * lexemes start with one space and a letter, pairs with two).
 *
 * The counted searches' triggers (postgres-counted-searches.ts) match each new post against each
 * smart category's query: they now build the post's words once and cast each query once, instead
 * of both for every (post, query) pair, and leave out the facets, which no counted query holds.
 */
import type { MigrationProgress } from "../migration-progress.js";
import { rows, type Sql } from "./postgres-connection.js";
import { SEARCH_EXPRESSION } from "./postgres-search-facets.js";
import { PAIR_MARK } from "./postgres-text-search.js";

/** The index's expression without the alias (CREATE INDEX spells the columns bare). */
const indexExpression = SEARCH_EXPRESSION.replace(/\bp\./g, "");

/** The post's words as a counted query reads them (`c`: the row's alias): words and marked pairs. */
const countedWords = (c: string) => `${c}.search_vector || ${c}.phrase_vector`;

/**
 * Matches of the posts of `source` per counted search, language (0: all) and day: each query cast
 * once, each post's words built once (MATERIALIZED), then only `@@` per pair.
 */
const perDay = (source: string) => `
  WITH s AS MATERIALIZED (
      SELECT id, index_query::tsquery AS q, verify_query::tsquery AS v FROM counted_searches),
    c AS MATERIALIZED (
      SELECT language_id, post_day(post_date) AS day, search_vector, ${countedWords(source)} AS words FROM ${source})
  SELECT s.id, coalesce(c.language_id, 0) AS language_id, c.day, count(*)::int AS n
    FROM s JOIN c ON c.words @@ s.q AND (s.v IS NULL OR c.search_vector @@ s.v)
    GROUP BY GROUPING SETS ((s.id, c.language_id, c.day), (s.id, c.day))`;

/** Whether a post (`c`) matches a counted search (`s`), for the per-row trigger. */
const matches = (c: string) =>
  `(${countedWords(c)}) @@ s.index_query::tsquery
    AND (s.verify_query IS NULL OR ${c}.search_vector @@ s.verify_query::tsquery)`;

export const oneSearchIndexSchema = `
LOCK TABLE posts IN SHARE ROW EXCLUSIVE MODE;
SELECT set_config('maintenance_work_mem', greatest(setting::bigint, 262144) || 'kB', true)
  FROM pg_settings WHERE name = 'maintenance_work_mem';

DROP INDEX IF EXISTS posts_search_words;
DROP INDEX IF EXISTS posts_search_operators;

-- A vector of pairs with each lexeme marked (once: a marked one stays as it is), leaving out any
-- that the mark would take past PostgreSQL's lexeme limit (the writer leaves those out too).
CREATE OR REPLACE FUNCTION mark_pairs(pairs tsvector) RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN array_to_tsvector(ARRAY(
    SELECT CASE WHEN left(l, 2) = '${PAIR_MARK}' THEN l ELSE '${PAIR_MARK}' || l END
      FROM unnest(tsvector_to_array(pairs)) l
      WHERE left(l, 2) = '${PAIR_MARK}' OR octet_length(l) + 2 <= 2046));

-- A writer that sets search_vector alone still gets its pairs, marked.
CREATE OR REPLACE FUNCTION posts_rank_columns() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.rank_vector := ts_filter(NEW.search_vector, '{a,b}');
  NEW.body_length := length(ts_filter(NEW.search_vector, '{d}'));
  IF NEW.phrase_vector IS NULL OR (TG_OP = 'UPDATE' AND NEW.phrase_vector = OLD.phrase_vector
      AND NEW.search_vector <> OLD.search_vector) THEN
    NEW.phrase_vector := mark_pairs(phrase_pairs(NEW.search_vector));
  END IF;
  RETURN NEW;
END $$;

-- The counted queries spell pairs the old way: forgotten, they are counted again (marked) when
-- the store next opens (syncCountedSearches).
TRUNCATE search_days, counted_searches;

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

CREATE OR REPLACE FUNCTION posts_recount_searches() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE search_days d SET posts = d.posts - 1 FROM counted_searches s
    WHERE d.search_id = s.id AND d.language_id IN (0, OLD.language_id) AND d.day = post_day(OLD.post_date)
      AND ${matches("OLD")};
  INSERT INTO search_days AS d (search_id, language_id, day, posts)
    SELECT s.id, l.language_id, post_day(NEW.post_date), 1
      FROM counted_searches s CROSS JOIN (VALUES (0), (NEW.language_id)) l (language_id)
      WHERE ${matches("NEW")} ORDER BY 1, 2
    ON CONFLICT (search_id, language_id, day) DO UPDATE SET posts = d.posts + 1;
  RETURN NULL;
END $$;

-- The stored pairs marked; nothing counted changes (no counted search is left), so the per-row
-- recount stays off meanwhile. Rows already marked (a migration run again) are left alone.
ALTER TABLE posts DISABLE TRIGGER posts_recount_searches;
UPDATE posts SET phrase_vector = mark_pairs(phrase_vector)
  WHERE left((tsvector_to_array(phrase_vector))[1], 2) <> '${PAIR_MARK}';
ALTER TABLE posts ENABLE TRIGGER posts_recount_searches;

CREATE INDEX IF NOT EXISTS posts_search_lexemes ON posts USING GIN ((${indexExpression}));
ANALYZE posts;
`;

export async function createOneSearchIndex(sql: Sql, progress: MigrationProgress): Promise<void> {
  const [count] = await rows<{ n: number }>(sql, "SELECT count(*) AS n FROM posts");
  const step = "marking the stored word pairs and building one search index (schema 22)";
  progress(step, 0, count!.n);
  await sql.query(oneSearchIndexSchema);
  progress(step, count!.n, count!.n);
}
