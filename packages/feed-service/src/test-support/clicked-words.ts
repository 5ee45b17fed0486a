/**
 * For the tests of the walks by clicks: the most clicked posts' own words (migration 42,
 * postgres-clicked-words.ts) emptied and no longer kept, so that the set never answers a page and
 * the walk under test does (postgres-clicked-words.test.ts tests the set).
 */
import type { Sql } from "../store/postgres/postgres-connection.js";

export async function withoutClickedWords(sql: Sql): Promise<void> {
  await sql.query(`DROP TRIGGER clicked_words_insert ON clicked_posts;
    DROP TRIGGER clicked_words_update ON clicked_posts;
    DROP TRIGGER clicked_words_delete ON clicked_posts;
    DROP TRIGGER clicked_words_reword ON posts;
    TRUNCATE clicked_words`);
}
