/**
 * The commonest words counted per day as the smart categories' queries are (migration 48), so
 * that a date page of one of them, the last one included, starts at its day through the counts
 * (postgres-counted-searches.ts) instead of reading and sorting every match: a word in most of
 * the posts has a last page that cost what all its matches cost (spec §4 Latency: the deepest
 * offset in 50 ms, on data of any shape).
 *
 * Which words: those the statistics of `search_vector` list (ANALYZE's most common elements)
 * with more matches than a page may read and sort within the budget (COUNTED_WORD_MATCHES),
 * the commonest first and at most MAX_COUNTED_WORDS of them, since each one counted is a probe
 * of every post written. The choice is made again when the store opens: a word that became common
 * since is counted then (a background task; its pages take the exact uncounted path meanwhile)
 * and one that no longer is stops being counted.
 *
 * A counted search of one plain lexeme keeps it in `lexeme`, and the triggers count those from
 * the post's own words: `search_vector @@` the lexeme, one binary search of the post's sorted
 * lexemes, without building the post's words and pairs vector that a phrase's query needs (a pair
 * lexeme holds a space, so a word's query can only match a word: postgres-phrase-pairs.ts).
 * What the counts cost each insert is weighed by the ingest bench (bench/NOTES.md).
 */
import type pg from "pg";
import { rows, type Sql } from "./postgres-connection.js";
import { countClickPeriods, syncClickPeriods } from "./postgres-counted-click-ranges.js";
import { countClickBlocks, syncClickBlocks } from "./postgres-counted-clicks.js";
import { countFeedBlocks, syncFeedBlocks } from "./postgres-counted-feed-clicks.js";
import { countFeedMonths, syncFeedMonths } from "./postgres-counted-feeds.js";
import { perDay as searchesPerDay } from "./postgres-counted-search-triggers.js";
import { syncCountedSearches } from "./postgres-counted-searches.js";
import { COUNTED_WORD_MATCHES, MAX_COUNTED_WORDS } from "./postgres-plan-costs.js";
import { SEARCH_EXPRESSION } from "./postgres-search-facets.js";
import { lexemeOf } from "./postgres-search-key.js";
import { quoteLexeme } from "./postgres-text-search.js";

/** Which counted searches are counted as one lexeme (`true`) or as migration 22 counts them. */
const kind = (lexemes: boolean) => `lexeme IS ${lexemes ? "NOT " : ""}NULL`;

/**
 * The counts of the posts of `source` (alias c) per counted search, language (0: all) and day.
 * Searches of one lexeme are matched on the post's words only, each query cast once and each
 * post's words read out of TOAST once (`|| ''` builds the vector in memory: `@@` on the stored
 * column would read a long post's words from TOAST again for every word counted); the others as
 * migration 22 matches them (each post's words and pairs built once).
 */
const perDay = (source: string, lexemes: boolean) =>
  lexemes
    ? `
  WITH s AS MATERIALIZED (SELECT id, index_query::tsquery AS q FROM counted_searches WHERE ${kind(true)}),
    c AS MATERIALIZED (SELECT language_id, post_day(post_date) AS day, search_vector || ''::tsvector AS words FROM ${source})
  SELECT s.id, coalesce(c.language_id, 0) AS language_id, c.day, count(*)::int AS n
    FROM s JOIN c ON c.words @@ s.q
    GROUP BY GROUPING SETS ((s.id, c.language_id, c.day), (s.id, c.day))`
    : searchesPerDay(source, ` WHERE ${kind(false)}`);

/** New posts' counts added, for one kind of counted search. */
const addCounts = (lexemes: boolean) => `
  IF EXISTS (SELECT 1 FROM counted_searches WHERE ${kind(lexemes)}) THEN
    INSERT INTO search_days AS d (search_id, language_id, day, posts)
      SELECT * FROM (${perDay("came", lexemes)}) m ORDER BY 1, 2, 3
      ON CONFLICT (search_id, language_id, day) DO UPDATE SET posts = d.posts + excluded.posts;
  END IF;`;

/** Deleted posts' counts taken off, for one kind of counted search. */
const takeCounts = (lexemes: boolean) => `
  IF EXISTS (SELECT 1 FROM counted_searches WHERE ${kind(lexemes)}) THEN
    UPDATE search_days d SET posts = d.posts - m.n FROM (${perDay("gone", lexemes)}) m
      WHERE d.search_id = m.id AND d.language_id = m.language_id AND d.day = m.day;
  END IF;`;

/**
 * The columns today's smart-category writer sets (postgres-counted-searches.ts): idempotent, so
 * that a database at an older version can take them ahead of this migration, as tests of
 * upgrades written to by today's writers do.
 */
export const countedWordsColumns = `ALTER TABLE counted_searches
  ADD COLUMN IF NOT EXISTS lexeme text, ADD COLUMN IF NOT EXISTS common boolean NOT NULL DEFAULT false;`;

/**
 * Each kind of counted search in its own statement, in key order within it: two writers take the
 * rows of the phrases' searches before the lexemes', each in one order, so never in crossed order.
 */
export const countedWordsSchema = `
${countedWordsColumns}

CREATE OR REPLACE FUNCTION posts_count_searches() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN${addCounts(false)}${addCounts(true)}
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION posts_uncount_searches() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN${takeCounts(false)}${takeCounts(true)}
  RETURN NULL;
END $$;
`;

/** Migration 48: the columns and triggers, the existing searches' lexemes, and the words chosen and counted. */
export async function createCountedWords(sql: Sql): Promise<void> {
  await sql.query(countedWordsSchema);
  const counted = await rows<{ id: number; index_query: string; verify_query: string | null }>(
    sql,
    "SELECT id, index_query, verify_query FROM counted_searches",
  );
  for (const c of counted) {
    const lexeme = lexemeOf(c.index_query, c.verify_query);
    if (lexeme !== null)
      await sql.query("UPDATE counted_searches SET lexeme = $1 WHERE id = $2", [lexeme, c.id]);
  }
  // (Migrations 50 and 52 count their blocks and months: their tables are not there yet.)
  await countWords(sql, await chooseCountedWords(sql), false);
}

/**
 * The words to count, commonest first: those the statistics of `search_vector` list with more
 * matches than COUNTED_WORD_MATCHES among the posts (language_totals), at most MAX_COUNTED_WORDS.
 */
export interface WordChoice {
  /** Words with more matches than this are counted... */
  matches: number;
  /** ...this many at most, the commonest. */
  most: number;
}

const CHOICE: WordChoice = { matches: COUNTED_WORD_MATCHES, most: MAX_COUNTED_WORDS };

export async function chooseCountedWords(sql: Sql, choice = CHOICE): Promise<string[]> {
  const [row] = await rows<{ words: string[] | null; freqs: number[] | null; posts: number }>(
    sql,
    `SELECT s.most_common_elems::text::text[] AS words, s.most_common_elem_freqs::float8[] AS freqs,
        (SELECT coalesce(sum(posts), 0)::float8 FROM language_totals) AS posts
      FROM pg_stats s
      WHERE s.schemaname = current_schema() AND s.tablename = 'posts' AND s.attname = 'search_vector'`,
  );
  if (!row?.words || !row.freqs) return [];
  const { words, freqs, posts } = row;
  return words
    .map((word, i) => ({ word, matches: freqs[i]! * posts }))
    .filter((w) => w.matches > choice.matches)
    .sort((a, b) => b.matches - a.matches || (a.word < b.word ? -1 : 1))
    .slice(0, choice.most)
    .map((w) => w.word);
}

/**
 * Makes `words` the counted common words: the ones no longer chosen lose the mark (and go, unless
 * a smart category counts the same query), a chosen one already counted for a smart category takes
 * it, and the rest are counted from the posts. Within `sql`'s transaction; the counting holds off
 * writes of posts (a SHARE lock) so that no post is written between the count and its triggers.
 */
async function countWords(
  sql: Sql,
  words: readonly string[],
  blocks = true,
): Promise<{ counted: number; dropped: number }> {
  const { rowCount } = await sql.query(
    "UPDATE counted_searches SET common = false WHERE common AND NOT (lexeme = ANY($1::text[]))",
    [words],
  );
  await sql.query("UPDATE counted_searches SET common = true WHERE lexeme = ANY($1::text[]) AND NOT common", [
    words,
  ]);
  const known = new Set(
    (
      await rows<{ lexeme: string }>(
        sql,
        "SELECT lexeme FROM counted_searches WHERE lexeme = ANY($1::text[])",
        [words],
      )
    ).map((r) => r.lexeme),
  );
  const fresh = words.filter((w) => !known.has(w));
  const none = { counted: 0, dropped: rowCount ?? 0 };
  if (fresh.length === 0) return none;
  await sql.query("SET LOCAL statement_timeout = 0");
  await sql.query("LOCK TABLE posts IN SHARE MODE");
  const added = await rows<{ id: number; lexeme: string }>(
    sql,
    `INSERT INTO counted_searches (index_query, verify_query, lexeme, common)
      SELECT q, NULL, w, true FROM unnest($1::text[], $2::text[]) AS f (w, q)
      ON CONFLICT ON CONSTRAINT counted_searches_key DO NOTHING RETURNING id, lexeme`,
    [fresh, fresh.map(quoteLexeme)],
  );
  if (added.length === 0) return none;
  // One word: its matches through the search index. Several: one pass over the posts' own words,
  // each post's lexemes looked up in the words' set, instead of one index read per word.
  if (added.length === 1) {
    await sql.query("SET LOCAL enable_seqscan = off");
    await sql.query(
      `INSERT INTO search_days (search_id, language_id, day, posts)
        SELECT $1::int, coalesce(p.language_id, 0), post_day(p.post_date), count(*) FROM posts p
          WHERE ${SEARCH_EXPRESSION} @@ $2::tsquery
          GROUP BY GROUPING SETS ((p.language_id, post_day(p.post_date)), (post_day(p.post_date)))`,
      [added[0]!.id, quoteLexeme(added[0]!.lexeme)],
    );
    await sql.query("SET LOCAL enable_seqscan = on");
  } else {
    await sql.query(
      `INSERT INTO search_days (search_id, language_id, day, posts)
        SELECT s.id, coalesce(p.language_id, 0), post_day(p.post_date), count(*)
          FROM posts p CROSS JOIN LATERAL unnest(tsvector_to_array(p.search_vector)) w (lexeme)
          JOIN counted_searches s ON s.lexeme = w.lexeme AND s.id = ANY($1::int[])
          GROUP BY GROUPING SETS ((s.id, p.language_id, post_day(p.post_date)), (s.id, post_day(p.post_date)))`,
      [added.map((a) => a.id)],
    );
  }
  // Their blocks and their feeds' months too (postgres-counted-clicks.ts, postgres-counted-feeds.ts),
  // under the same lock.
  if (blocks) {
    await countClickBlocks(
      sql,
      added.map((a) => a.id),
    );
    // And their periods (postgres-counted-click-ranges.ts).
    await countClickPeriods(
      sql,
      added.map((a) => a.id),
    );
    await countFeedMonths(
      sql,
      added.map((a) => a.id),
    );
    // And their feeds' blocks (postgres-counted-feed-clicks.ts).
    await countFeedBlocks(
      sql,
      added.map((a) => a.id),
    );
  }
  return { ...none, counted: added.length };
}

/**
 * Chooses the common words again from the statistics and counts those not counted yet (see
 * countWords); the counts of the words no longer chosen go. Returns how many were counted now.
 */
export async function syncCountedWords(pool: pg.Pool, choice = CHOICE): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const { counted, dropped } = await countWords(client, await chooseCountedWords(client, choice));
    await client.query("COMMIT");
    // A word no longer common goes unless a smart category counts the same query (read only
    // then: a store opening beside another process's new smart category leaves it alone).
    if (dropped > 0) await syncCountedSearches(pool);
    // The blocks of any counted word without them (counted by a build without them).
    await syncClickBlocks(pool);
    await syncClickPeriods(pool);
    await syncFeedMonths(pool);
    await syncFeedBlocks(pool);
    return counted;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
