/**
 * The page of a plain-word search on PostgreSQL as one plain query over every match gives it
 * (spec §4's orders; relevance ranks the newest RANKED_NEWEST matches): the brute-force answer
 * the word plans' tests compare the store's pages with.
 */
import { parseSearchQuery } from "../search/parse-search-query.js";
import { rows, type Sql } from "../store/postgres/postgres-connection.js";
import { RANKED_NEWEST } from "../store/postgres/postgres-search-queries.js";
import { SEARCH_SCORE, toTsquery } from "../store/postgres/postgres-text-search.js";
import type { SearchSort } from "../store/store.js";

export async function searchReference(
  sql: Sql,
  terms: string,
  sort: SearchSort,
  page: { offset: number; limit: number; languageIds: number[] | null },
): Promise<Array<{ id: number; score?: number }>> {
  const words = toTsquery(parseSearchQuery(terms));
  if (words === null) return [];
  const language = page.languageIds ? "AND p.language_id = ANY($4::int[])" : "";
  const params = [words, page.limit, page.offset, ...(page.languageIds ? [page.languageIds] : [])];
  if (sort === "relevance") {
    return rows(
      sql,
      `WITH newest AS (SELECT p.id FROM posts p WHERE p.search_vector @@ $1::tsquery ${language}
          ORDER BY p.post_date DESC, p.id DESC LIMIT ${RANKED_NEWEST})
        SELECT p.id, ${SEARCH_SCORE} AS score FROM newest JOIN posts p ON p.id = newest.id
        ORDER BY score DESC, p.id DESC LIMIT $2 OFFSET $3`,
      params,
    );
  }
  const order = sort === "date" ? "p.post_date DESC, p.id DESC" : "p.clicks DESC, p.id DESC";
  return rows(
    sql,
    `SELECT p.id FROM posts p WHERE p.search_vector @@ $1::tsquery ${language} ORDER BY ${order} LIMIT $2 OFFSET $3`,
    params,
  );
}

/** An operator query and the brute force's own reading of its filters. */
export interface OperatorCase {
  terms: string;
  /** The filters as plain SQL on `p` and its feed `f`. */
  where: string;
}

/**
 * The page of an operator search as sorting every match gives it (relevance: the 10,000 newest
 * matches ranked): the words searched as plain words, the filters read from `c.where`.
 */
export async function operatorSearchReference(
  sql: Sql,
  c: OperatorCase,
  sort: SearchSort,
  page: { offset: number; limit: number },
): Promise<Array<{ id: number; score?: number }>> {
  const words = toTsquery(parseSearchQuery(c.terms.replace(/(^|\s)-?(feed|after|before|lang):\S+/g, " ")));
  const match = `${words === null ? "TRUE" : "p.search_vector @@ $1::tsquery"} AND ${c.where}`;
  const params = [words ?? "", page.limit, page.offset];
  const from = "posts p JOIN feeds f ON f.id = p.feed_id";
  if (sort === "relevance" && words !== null) {
    return rows(
      sql,
      `WITH newest AS (SELECT p.id FROM ${from} WHERE ${match} ORDER BY p.post_date DESC, p.id DESC LIMIT 10000)
        SELECT p.id, ${SEARCH_SCORE} AS score FROM newest JOIN posts p ON p.id = newest.id
        ORDER BY score DESC, p.id DESC LIMIT $2 OFFSET $3`,
      params,
    );
  }
  const order = sort === "clicks" ? "p.clicks DESC, p.id DESC" : "p.post_date DESC, p.id DESC";
  return rows(
    sql,
    `SELECT p.id FROM ${from} WHERE ${match} AND $1 = $1 ORDER BY ${order} LIMIT $2 OFFSET $3`,
    params,
  );
}
