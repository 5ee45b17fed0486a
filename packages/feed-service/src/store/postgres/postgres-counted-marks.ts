/**
 * The counts kept per counted lexeme beside the counted searches (the click blocks, the click
 * periods, the feeds' months) each mark the searches they have counted in a table of their own,
 * so a build that added one counts it for the searches counted before it, at open.
 */
import { rows, type Sql } from "./postgres-connection.js";

/**
 * Counts, with `count`, the counted lexemes that `marks` (a table of `search_id`s) does not hold
 * yet, within `sql`'s transaction; returns how many. Posts are held off (SHARE lock) so no write
 * falls between the count and its triggers, and the count may take minutes at open.
 */
export async function countUnmarkedSearches(
  sql: Sql,
  marks: string,
  count: (sql: Sql, ids: readonly number[]) => Promise<void>,
): Promise<number> {
  const unmarked = await rows<{ id: number }>(
    sql,
    `SELECT id FROM counted_searches s WHERE lexeme IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM ${marks} k WHERE k.search_id = s.id) ORDER BY id`,
  );
  if (unmarked.length === 0) return 0;
  await sql.query("SET LOCAL statement_timeout = 0");
  await sql.query("LOCK TABLE posts IN SHARE MODE");
  await count(
    sql,
    unmarked.map((u) => u.id),
  );
  return unmarked.length;
}
