/**
 * Counts of the posts holding a counted word of one lexeme, per feed and one key of the post: the
 * month of its date (migration 52, postgres-counted-feeds.ts) or its block of ids (migration 56,
 * postgres-counted-feed-clicks.ts). Both keep the same table shape and the same upkeep: a post
 * counts by its own words (the triggers match a counted word on `search_vector`), inserts and
 * deletes per statement (transition tables), a post's words, feed or key column per row, a
 * TRUNCATE forgets them; a counted search is counted once and marked in a table of its own, and
 * the rows of a search no longer counted go at the next open. Rows are written in key order, so
 * two writers never lock them crosswise.
 */
import { rows, type Sql } from "./postgres-connection.js";
import { countUnmarkedSearches } from "./postgres-counted-marks.js";

/** One kind of counts per counted word, feed and key. */
export interface FeedKeyCounts {
  /** The counts' table: (search_id, feed_id, `key`, posts). */
  readonly table: string;
  /** The counted searches whose rows the table holds. */
  readonly marks: string;
  /** The key's column in `table`, and what its rows are called in the schema's comment. */
  readonly key: string;
  readonly plural: string;
  /** The upsert's alias of `table`. */
  readonly alias: string;
  /** The key of the post `row` (an alias, OLD or NEW), as SQL. */
  readonly keyOf: (row: string) => string;
  /** The post's column the key is computed from: a change of it moves the post's counts. */
  readonly keyColumn: string;
  /** The trigger functions' names (`posts_count_<names>`, `posts_uncount_<names>`, `posts_move_<names>`). */
  readonly names: string;
  /** The TRUNCATE trigger function's name. */
  readonly forget: string;
}

/** The counted searches of one lexeme, each query cast once. */
const words = "SELECT id, index_query::tsquery AS q FROM counted_searches WHERE lexeme IS NOT NULL";

/** The table, its marks, its functions and triggers; safe to take again. */
export function feedKeyCountsSchema(c: FeedKeyCounts): string {
  /** Counts of the posts of `source` per counted word, feed and key. */
  const perKey = (source: string) => `
  WITH s AS MATERIALIZED (${words}),
    c AS MATERIALIZED (SELECT feed_id, ${c.keyOf(source)} AS ${c.key}, search_vector || ''::tsvector AS words FROM ${source})
  SELECT s.id, c.feed_id, c.${c.key}, count(*)::int AS n FROM s JOIN c ON c.words @@ s.q GROUP BY 1, 2, 3`;
  /** One post's counts (`row`: OLD or NEW, its words in `vector`), signed. */
  const perRow = (row: string, vector: string, sign: string) => `
  SELECT s.id, ${row}.feed_id, ${c.keyOf(row)}, ${sign}1 FROM (${words}) s WHERE ${vector} @@ s.q`;
  const upsert = `INSERT INTO ${c.table} AS ${c.alias} (search_id, feed_id, ${c.key}, posts)`;
  const adding = `ON CONFLICT (search_id, feed_id, ${c.key}) DO UPDATE SET posts = ${c.alias}.posts + excluded.posts`;
  return `
CREATE TABLE IF NOT EXISTS ${c.table} (
  search_id integer NOT NULL,
  feed_id integer NOT NULL,
  ${c.key} integer NOT NULL,
  posts integer NOT NULL,
  PRIMARY KEY (search_id, feed_id, ${c.key})
);
-- The counted searches whose ${c.plural} are counted (all their posts, not only those written since).
CREATE TABLE IF NOT EXISTS ${c.marks} (search_id integer PRIMARY KEY);

CREATE OR REPLACE FUNCTION posts_count_${c.names}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM counted_searches WHERE lexeme IS NOT NULL) THEN
    ${upsert}
      SELECT * FROM (${perKey("came")}) x ORDER BY 1, 2, 3
      ${adding};
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION posts_uncount_${c.names}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM counted_searches WHERE lexeme IS NOT NULL) THEN
    ${upsert}
      SELECT id, feed_id, ${c.key}, -n FROM (${perKey("gone")}) x ORDER BY 1, 2, 3
      ${adding};
  END IF;
  RETURN NULL;
END $$;

-- A post's old counts off and its new ones on, in one statement; each vector out of TOAST once.
CREATE OR REPLACE FUNCTION posts_move_${c.names}() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  old_words tsvector;
  new_words tsvector;
BEGIN
  IF EXISTS (SELECT 1 FROM counted_searches WHERE lexeme IS NOT NULL) THEN
    old_words := OLD.search_vector || ''::tsvector;
    new_words := NEW.search_vector || ''::tsvector;
    IF OLD.feed_id <> NEW.feed_id OR OLD.${c.keyColumn} <> NEW.${c.keyColumn} OR old_words <> new_words THEN
      ${upsert}
        SELECT search_id, feed_id, ${c.key}, sum(n) FROM (
          ${perRow("OLD", "old_words", "-")}
          UNION ALL ${perRow("NEW", "new_words", "")}
        ) x (search_id, feed_id, ${c.key}, n)
        GROUP BY 1, 2, 3 HAVING sum(n) <> 0 ORDER BY 1, 2, 3
        ${adding};
    END IF;
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION ${c.forget}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE ${c.table}, ${c.marks};
  RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS posts_count_${c.names} ON posts;
CREATE TRIGGER posts_count_${c.names} AFTER INSERT ON posts REFERENCING NEW TABLE AS came
  FOR EACH STATEMENT EXECUTE FUNCTION posts_count_${c.names}();
DROP TRIGGER IF EXISTS posts_uncount_${c.names} ON posts;
CREATE TRIGGER posts_uncount_${c.names} AFTER DELETE ON posts REFERENCING OLD TABLE AS gone
  FOR EACH STATEMENT EXECUTE FUNCTION posts_uncount_${c.names}();
DROP TRIGGER IF EXISTS posts_move_${c.names} ON posts;
CREATE TRIGGER posts_move_${c.names} AFTER UPDATE OF search_vector, feed_id, ${c.keyColumn} ON posts
  FOR EACH ROW EXECUTE FUNCTION posts_move_${c.names}();
DROP TRIGGER IF EXISTS ${c.forget} ON posts;
CREATE TRIGGER ${c.forget} AFTER TRUNCATE ON posts
  FOR EACH STATEMENT EXECUTE FUNCTION ${c.forget}();
`;
}

/**
 * Counts the rows of the counted searches `ids` (lexemes) from the posts, in one pass over the
 * posts' own words, and marks them counted. The caller holds off writes of posts (a SHARE lock)
 * within its transaction, so no post is written between the count and its triggers.
 */
export async function countFeedKeys(c: FeedKeyCounts, sql: Sql, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await sql.query(`DELETE FROM ${c.table} WHERE search_id = ANY($1::int[])`, [ids]);
  await sql.query(
    `INSERT INTO ${c.table} (search_id, feed_id, ${c.key}, posts)
      SELECT s.id, p.feed_id, ${c.keyOf("p")}, count(*)::int
        FROM posts p CROSS JOIN LATERAL unnest(tsvector_to_array(p.search_vector)) w (lexeme)
        JOIN counted_searches s ON s.lexeme = w.lexeme AND s.id = ANY($1::int[])
        GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
    [ids],
  );
  await sql.query(`INSERT INTO ${c.marks} (search_id) SELECT unnest($1::int[]) ON CONFLICT DO NOTHING`, [
    ids,
  ]);
}

/**
 * Counts the rows of the counted lexemes without them, and drops the rows of searches no longer
 * counted (within `sql`'s transaction); returns how many were counted.
 */
export async function countUnmarkedFeedKeys(c: FeedKeyCounts, sql: Sql): Promise<number> {
  const gone = await rows<{ search_id: number }>(
    sql,
    `DELETE FROM ${c.marks} k WHERE NOT EXISTS (
        SELECT 1 FROM counted_searches s WHERE s.id = k.search_id AND s.lexeme IS NOT NULL) RETURNING search_id`,
  );
  if (gone.length > 0) {
    await sql.query(`DELETE FROM ${c.table} WHERE search_id = ANY($1::int[])`, [
      gone.map((g) => g.search_id),
    ]);
  }
  return countUnmarkedSearches(sql, c.marks, (sql, ids) => countFeedKeys(c, sql, ids));
}
