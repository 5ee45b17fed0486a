/**
 * For the tests of the searches by clicks: a page found by sorting every match, and the most
 * clicked posts' own words (migration 42, postgres-clicked-words.ts) emptied and no longer kept, so
 * that the set never answers a page and the walk under test does (postgres-clicked-words.test.ts
 * tests the set).
 */
import { parseSearchQuery } from "../search/parse-search-query.js";
import { rows, type Sql } from "../store/postgres/postgres-connection.js";
import { searchMatch } from "../store/postgres/postgres-search-queries.js";

export async function withoutClickedWords(sql: Sql): Promise<void> {
  await sql.query(`DROP TRIGGER clicked_words_insert ON clicked_posts;
    DROP TRIGGER clicked_words_update ON clicked_posts;
    DROP TRIGGER clicked_words_delete ON clicked_posts;
    DROP TRIGGER clicked_words_reword ON posts;
    TRUNCATE clicked_words`);
}

/**
 * Every clicked post's lexemes (migration 67, postgres-clicked-lexemes.ts) dropped with their
 * upkeep, so that a search by clicks walks the clicked posts as before it (the walk under test);
 * postgres-clicked-lexemes.test.ts tests the set.
 */
export async function withoutClickedLexemes(sql: Sql): Promise<void> {
  await sql.query(`DROP TRIGGER clicked_lexemes_insert ON clicked_posts;
    DROP TRIGGER clicked_lexemes_delete ON clicked_posts;
    DROP TRIGGER clicked_lexemes_truncate ON clicked_posts;
    DROP TRIGGER clicked_lexemes_reword ON posts;
    DROP TABLE clicked_lexemes`);
}

/** The first `need` matches of `terms` by clicks (ties by id, newest first), as sorting every match gives them. */
export async function matchesByClicks(
  sql: Sql,
  terms: string,
  need: number,
  languageIds: number[] | null,
): Promise<number[]> {
  const match = searchMatch(parseSearchQuery(terms), languageIds)!;
  const language = languageIds ? "AND p.language_id = ANY($3::int[])" : "";
  const found = await rows<{ id: number }>(
    sql,
    `SELECT p.id FROM posts p WHERE p.search_vector @@ $1::tsquery ${language}
      ORDER BY p.clicks DESC, p.id DESC LIMIT $2`,
    [match.words, need, ...(languageIds ? [languageIds] : [])],
  );
  return found.map((r) => r.id);
}
