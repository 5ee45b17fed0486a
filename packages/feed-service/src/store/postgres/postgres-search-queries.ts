/**
 * Full-text search on PostgreSQL (operation 1, and the smart categories built on it), through the
 * GIN index of `search_vector`.
 */
import type { SearchQuery } from "../../search/search-query.js";
import type { PostPage, PostRecord, SearchSort } from "../store.js";
import { languageFilter, NEWEST_FIRST, POST_COLUMNS, POST_JOINS, Where } from "./postgres-columns.js";
import { rows, type Sql } from "./postgres-connection.js";
import { SEARCH_SCORE, toTsquery } from "./postgres-text-search.js";

/** The order of the matches: on the ranked ids (`hits`) for relevance, on the posts otherwise. */
const searchOrder: Record<SearchSort, string> = {
  relevance: "hits.score DESC, p.id DESC",
  date: NEWEST_FIRST,
  clicks: "p.clicks DESC, p.id DESC",
};

/**
 * In two steps: first the page of matching ids (ranking every match costs a tsvector read per
 * match, so only the relevance sort ranks them all; the other sorts rank just the page), then the
 * columns of those ids only.
 */
export function searchPosts(
  sql: Sql,
  page: PostPage & { query: SearchQuery; sort: SearchSort },
): Promise<Array<PostRecord & { score: number }>> {
  const tsquery = toTsquery(page.query);
  if (tsquery === null || page.limit === 0 || page.languageIds?.length === 0) return Promise.resolve([]);
  // $1 is the tsquery: SEARCH_SCORE refers to it by number.
  const where = new Where().add("p.search_vector @@ ?::tsquery", tsquery);
  languageFilter(where, page.languageIds);
  const relevance = page.sort === "relevance";
  const inner = relevance
    ? { columns: `p.id, ${SEARCH_SCORE} AS score`, order: "score DESC, p.id DESC" }
    : { columns: "p.id", order: searchOrder[page.sort] };
  const text = `WITH hits AS (SELECT ${inner.columns} FROM posts p ${where.sql}
      ORDER BY ${inner.order} LIMIT ${where.next(page.limit)} OFFSET ${where.next(page.offset)})
    SELECT ${POST_COLUMNS}, ${relevance ? "hits.score" : SEARCH_SCORE} AS "score"
    FROM hits JOIN posts p ON p.id = hits.id ${POST_JOINS} ORDER BY ${searchOrder[page.sort]}`;
  return rows(sql, text, where.params);
}
