/**
 * Schema version 8: every post's search_vector is rebuilt from the search analyzer's tokens
 * (postgres-text-search.ts), the tokens SQLite's index holds since its version 9, so Chinese,
 * Japanese and Korean are searchable inside runs of characters. The GIN index is dropped first and
 * built once at the end, as PostgreSQL advises for bulk insertions
 * (https://www.postgresql.org/docs/current/gin-tips.html), the rows are rewritten in batches by id
 * with progress, and the trigger of migration 5 refreshes each row's rank_vector and body_length
 * from the new vector.
 */
import { htmlToIndexText } from "../index-text.js";
import type { MigrationProgress } from "../migration-progress.js";
import { rows, type Sql } from "./postgres-connection.js";
import { searchVector } from "./postgres-text-search.js";

const BATCH = 2_000;
const STEP = "re-indexing search text (schema 8)";

interface PostText {
  id: number;
  title: string;
  excerpt: string;
  content: string;
  feed_name: string;
}

export async function reindexSearchVectors(sql: Sql, progress: MigrationProgress): Promise<void> {
  await sql.query("DROP INDEX IF EXISTS posts_search_facets");
  const [count] = await rows<{ n: string }>(sql, "SELECT count(*) AS n FROM posts");
  const total = Number(count?.n ?? 0);
  let done = 0;
  let after = 0;
  progress(STEP, 0, total);
  for (;;) {
    const batch = await rows<PostText>(
      sql,
      `SELECT p.id, p.title, p.excerpt, p.content, f.name AS feed_name FROM posts p JOIN feeds f ON f.id = p.feed_id
        WHERE p.id > $1 ORDER BY p.id LIMIT ${BATCH}`,
      [after],
    );
    if (batch.length === 0) break;
    const ids = batch.map((r) => r.id);
    const vectors = batch.map((r) =>
      searchVector(r.feed_name, r.title, `${r.excerpt} ${htmlToIndexText(r.content)}`),
    );
    await sql.query(
      `UPDATE posts p SET search_vector = v.vector::tsvector
        FROM unnest($1::integer[], $2::text[]) AS v (id, vector) WHERE p.id = v.id`,
      [ids, vectors],
    );
    after = ids[ids.length - 1]!;
    done += batch.length;
    progress(STEP, done, total);
  }
  // The index of migration 7 (postgres-search-facets.ts), spelled the same so queries use it.
  await sql.query(`SET LOCAL maintenance_work_mem = '256MB';
    CREATE INDEX posts_search_facets ON posts USING GIN ((search_vector || post_facets(post_date, language_id, clicks)));
    ANALYZE posts;`);
}
