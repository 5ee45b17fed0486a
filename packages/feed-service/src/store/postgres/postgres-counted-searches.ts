/**
 * Matches per day of the smart categories' queries (migration 19), so that any page of a smart
 * category, the last one included, starts at its day as the post lists' deep pages do
 * (postgres-page-seek.ts), instead of reading every match before it: a smart category of a common
 * word holds most of the posts, and its last page cost what all its matches cost (spec §4
 * Latency: the deepest offset in 50 ms, on data of any shape).
 *
 * `counted_searches` holds the queries counted, as the search index reads them (the tsquery of
 * its lexemes and, for phrases GIN cannot settle, the query checked on `search_vector`), so that a
 * search finds its counts by its own text and a query whose text changed (a smart category edited,
 * another parser) simply has none. `search_days` keeps their matches per (language, UTC day), plus
 * a row per day over all languages (language 0): at most languages x days rows per query, whatever
 * the feeds. Triggers keep them exact: new posts per statement (a transition table, as
 * postgres-scope-rollups.ts does), deleted posts per statement, a post whose words, date or
 * language change per row (`UPDATE OF` those columns only: a click does not fire it), and a
 * TRUNCATE of the posts forgets every count (the queries are counted again when the store opens).
 */
import type pg from "pg";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { usesOperators } from "../../search/search-query.js";
import { rows, type Sql } from "./postgres-connection.js";
import { SEARCH_EXPRESSION } from "./postgres-search-facets.js";
import { lexemeOf, type SearchKey, searchKey } from "./postgres-search-key.js";

/** Whether a post (`c`) matches a counted search (`s`): the search's own condition. */
const matches = (c: string) =>
  `(${c}.search_vector || post_facets(${c}.post_date, ${c}.language_id) || ${c}.phrase_vector) @@ s.index_query::tsquery
    AND (s.verify_query IS NULL OR ${c}.search_vector @@ s.verify_query::tsquery)`;

/** Matches of the posts of `source` (alias c) per counted search, language (0: all) and day. */
const perDay = (source: string) => `
  SELECT s.id, coalesce(c.language_id, 0) AS language_id, post_day(c.post_date) AS day, count(*)::int AS n
    FROM counted_searches s JOIN ${source} c ON ${matches("c")}
    GROUP BY GROUPING SETS ((s.id, c.language_id, post_day(c.post_date)), (s.id, post_day(c.post_date)))`;

/**
 * The per-row trigger's function: a post whose words, date or language changed leaves its old
 * day's counts and joins its new day's. Migration 19 creates it; 22 replaces it with a cheaper
 * `matches` (postgres-counted-search-triggers.ts). Both migrations' text must stay as released.
 */
export const recountSearchesFunction = (
  create: "CREATE" | "CREATE OR REPLACE",
  matches: (c: string) => string,
) =>
  `${create} FUNCTION posts_recount_searches() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;`;

export const countedSearchSchema = `
CREATE TABLE counted_searches (
  id serial PRIMARY KEY,
  index_query text NOT NULL,
  verify_query text,
  CONSTRAINT counted_searches_key UNIQUE NULLS NOT DISTINCT (index_query, verify_query)
);
CREATE TABLE search_days (
  search_id integer NOT NULL REFERENCES counted_searches (id) ON DELETE CASCADE,
  language_id integer NOT NULL,
  day integer NOT NULL,
  posts integer NOT NULL,
  PRIMARY KEY (search_id, language_id, day)
);

-- In key order, so that two refreshes upserting the same days lock them in one order.
CREATE FUNCTION posts_count_searches() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO search_days AS d (search_id, language_id, day, posts)
    SELECT * FROM (${perDay("came")}) m ORDER BY 1, 2, 3
    ON CONFLICT (search_id, language_id, day) DO UPDATE SET posts = d.posts + excluded.posts;
  RETURN NULL;
END $$;

CREATE FUNCTION posts_uncount_searches() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE search_days d SET posts = d.posts - m.n FROM (${perDay("gone")}) m
    WHERE d.search_id = m.id AND d.language_id = m.language_id AND d.day = m.day;
  RETURN NULL;
END $$;

${recountSearchesFunction("CREATE", matches)}

CREATE FUNCTION posts_forget_counted_searches() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE search_days, counted_searches;
  RETURN NULL;
END $$;

CREATE TRIGGER posts_count_searches AFTER INSERT ON posts REFERENCING NEW TABLE AS came
  FOR EACH STATEMENT EXECUTE FUNCTION posts_count_searches();
CREATE TRIGGER posts_uncount_searches AFTER DELETE ON posts REFERENCING OLD TABLE AS gone
  FOR EACH STATEMENT EXECUTE FUNCTION posts_uncount_searches();
CREATE TRIGGER posts_recount_searches AFTER UPDATE OF search_vector, phrase_vector, post_date, language_id ON posts
  FOR EACH ROW EXECUTE FUNCTION posts_recount_searches();
CREATE TRIGGER posts_forget_counted_searches AFTER TRUNCATE ON posts
  FOR EACH STATEMENT EXECUTE FUNCTION posts_forget_counted_searches();
`;

export async function createCountedSearches(sql: Sql): Promise<void> {
  await sql.query(countedSearchSchema);
}

/** The keys of the smart categories' queries that the plain search reads (not the operators'). */
function smartCategoryKeys(queries: readonly string[]): SearchKey[] {
  const keys = new Map<string, SearchKey>();
  for (const text of queries) {
    const query = parseSearchQuery(text);
    if (usesOperators(query)) continue;
    const key = searchKey(query);
    if (key) keys.set(JSON.stringify(key), key);
  }
  return [...keys.values()];
}

/**
 * Counts every smart category's query not counted yet and forgets the queries no smart category
 * holds any more. Counting one reads all its matches once (seconds for a word in most of a
 * million posts), holding off writes of posts meanwhile (a SHARE lock), so that no post is
 * written between the count and the triggers that keep it.
 */
export async function syncCountedSearches(pool: pg.Pool): Promise<void> {
  const queries = await rows<{ query: string }>(pool, "SELECT query FROM smart_categories");
  const wanted = smartCategoryKeys(queries.map((q) => q.query));
  // The common words' searches (postgres-counted-words.ts) stay while they are common.
  const counted = await rows<{
    id: number;
    index_query: string;
    verify_query: string | null;
    common: boolean;
  }>(pool, "SELECT id, index_query, verify_query, common FROM counted_searches");
  const same = (a: SearchKey, c: { index_query: string; verify_query: string | null }) =>
    a.index === c.index_query && a.verify === c.verify_query;
  const stale = counted.filter((c) => !c.common && !wanted.some((k) => same(k, c))).map((c) => c.id);
  if (stale.length > 0) {
    await pool.query("DELETE FROM counted_searches WHERE id = ANY($1::int[]) AND NOT common", [stale]);
  }
  for (const key of wanted.filter((k) => !counted.some((c) => same(k, c)))) await countSearch(pool, key);
}

async function countSearch(pool: pg.Pool, key: SearchKey): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SET LOCAL statement_timeout = 0");
    await client.query("LOCK TABLE posts IN SHARE MODE");
    const [added] = await rows<{ id: number }>(
      client,
      `INSERT INTO counted_searches (index_query, verify_query, lexeme) VALUES ($1, $2, $3)
        ON CONFLICT ON CONSTRAINT counted_searches_key DO NOTHING RETURNING id`,
      [key.index, key.verify, lexemeOf(key.index, key.verify)],
    );
    // None: counted meanwhile by another process. The matches are read through the search index.
    if (added) {
      await client.query("SET LOCAL enable_seqscan = off");
      await client.query(
        `INSERT INTO search_days (search_id, language_id, day, posts)
          SELECT $1::int, coalesce(p.language_id, 0), post_day(p.post_date), count(*) FROM posts p
            WHERE ${SEARCH_EXPRESSION} @@ $2::tsquery AND ($3::text IS NULL OR p.search_vector @@ $3::tsquery)
            GROUP BY GROUPING SETS ((p.language_id, post_day(p.post_date)), (post_day(p.post_date)))`,
        [added.id, key.index, key.verify],
      );
    }
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/** A day of a counted search's matches in scope, newest first, with the matches up to its end. */
export interface CountedDay {
  day: number;
  n: number;
  /** Matches on this day and every newer one. */
  running: number;
}

/**
 * The days a date range (after:/before:) keeps of a counted search's: its whole days from `first`
 * to `last`, their counts as kept, and the days it cuts (its first and last, when it starts or
 * ends within one) with the matches it keeps of them, counted exactly by the caller.
 */
export interface CountedRange {
  first: number;
  last: number;
  cut: ReadonlyArray<{ day: number; n: number }>;
}

/** Days before and after any post's: a range without a bound on that side. */
export const NO_DAY = { first: -2_147_483_648, last: 2_147_483_647 };

/**
 * The days of the matches at positions `offset` to `offset + limit - 1` (newest first) of a
 * counted search in `languageIds` (null: all), newest first, and the matches in scope; null when
 * the search is not counted. With `range`, only the matches of its days count (read once the
 * search is known to be counted; null: a range without a day, so no match).
 */
export async function countedDays(
  sql: Sql,
  key: SearchKey,
  languageIds: readonly number[] | null,
  page: { offset: number; limit: number },
  range: () => Promise<CountedRange | null> = async () => ({ ...NO_DAY, cut: [] }),
): Promise<{ days: CountedDay[]; total: number } | null> {
  const [search] = await rows<{ id: number }>(
    sql,
    "SELECT id FROM counted_searches WHERE index_query = $1 AND verify_query IS NOT DISTINCT FROM $2",
    [key.index, key.verify],
  );
  if (!search) return null;
  const days = await range();
  if (days === null) return { days: [], total: 0 };
  // The whole days' counts, and the cut days' exact ones in their place.
  const perDay = `SELECT day, sum(posts)::float8 AS n FROM search_days
      WHERE search_id = $1 AND language_id = ANY($2::int[]) AND posts > 0 AND day >= $3 AND day <= $4 GROUP BY day
    UNION ALL SELECT day, n::float8 FROM unnest($5::int[], $6::int[]) cut (day, n) WHERE n > 0`;
  const params = [
    search.id,
    languageIds ?? [0],
    days.first,
    days.last,
    days.cut.map((c) => c.day),
    days.cut.map((c) => c.n),
  ];
  const found = await rows<CountedDay & { total: number }>(
    sql,
    `SELECT day, n, running, total FROM (
        SELECT day, n, sum(n) OVER (ORDER BY day DESC)::float8 AS running, sum(n) OVER ()::float8 AS total
          FROM (${perDay}) per_day
      ) s WHERE running > $7 AND running - n < $8 ORDER BY day DESC`,
    [...params, page.offset, page.offset + page.limit],
  );
  // Past the last match the window is empty: the total is then read on its own.
  const total =
    found[0]?.total ??
    (
      await rows<{ n: number }>(
        sql,
        `SELECT coalesce(sum(n), 0)::float8 AS n FROM (${perDay}) per_day`,
        params,
      )
    )[0]!.n;
  return { days: found.map(({ day, n, running }) => ({ day, n, running })), total };
}
