/**
 * The ids of a newest-first page of posts, optionally restricted to some languages. With no
 * language filter, one index walk in (post_date, id) order answers. With languages, SQLite would
 * gather every post of those languages and sort them (https://sqlite.org/queryplanner.html), so
 * each language is read newest-first from its own index, `offset + limit` ids at most, and the lists
 * are merged: the cost grows with the page, not with the database.
 */
import { NEWEST_FIRST } from "./sqlite-columns.js";
import type { StatementCache } from "./sqlite-connection.js";

/** Extra conditions, each SQL with one `?` and its value (category, sincepost). */
export type PostFilters = ReadonlyArray<readonly [string, unknown]>;

interface Page {
  limit: number;
  offset: number;
  languageIds: readonly number[] | null;
}

/**
 * The WHERE clause (possibly empty) and values (paging last, for `LIMIT ? OFFSET ?`) of a
 * newest-first page over `posts p` that one index walk answers, or null when several languages
 * must be merged (see `newestIds`). Callers may read the page's full rows in the same statement.
 */
export function newestPageFilter(
  filters: PostFilters,
  page: Page,
): { where: string; values: unknown[] } | null {
  const languages = page.languageIds === null ? null : [...new Set(page.languageIds)];
  if (languages !== null && languages.length !== 1) return null;
  const conditions = filters.map(([sql]) => sql);
  const values = filters.map(([, value]) => value);
  if (languages !== null) {
    conditions.push("p.language_id = ?");
    values.push(languages[0]);
  }
  const where = conditions.length === 0 ? "" : `WHERE ${conditions.join(" AND ")}`;
  values.push(page.limit, page.offset);
  return { where, values };
}

export function newestIds(stmts: StatementCache, filters: PostFilters, page: Page): number[] {
  const single = newestPageFilter(filters, page);
  if (single !== null) {
    return stmts
      .get(`SELECT p.id FROM posts p ${single.where} ORDER BY ${NEWEST_FIRST} LIMIT ? OFFSET ?`)
      .pluck()
      .all(...single.values) as number[];
  }
  const languages = [...new Set(page.languageIds)];
  const conditions = filters.map(([sql]) => sql);
  const values = filters.map(([, value]) => value);
  const stmt = stmts.get(`SELECT p.id AS id, p.post_date AS date FROM posts p
    WHERE ${[...conditions, "p.language_id = ?"].join(" AND ")} ORDER BY ${NEWEST_FIRST} LIMIT ?`);
  const merged: Array<{ id: number; date: number }> = [];
  for (const languageId of languages) {
    // A loop, not push(...rows): a deep page's rows overflow the argument stack.
    for (const row of stmt.all(...values, languageId, page.offset + page.limit) as Array<{
      id: number;
      date: number;
    }>) {
      merged.push(row);
    }
  }
  merged.sort((a, b) => b.date - a.date || b.id - a.id);
  return merged.slice(page.offset, page.offset + page.limit).map((r) => r.id);
}
