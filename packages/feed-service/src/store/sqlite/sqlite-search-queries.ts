/**
 * Full-text search on SQLite (operation 1, and the smart categories built on it): the FTS5 index
 * finds the matches, the page's rows are read through `postsInOrder`.
 */
import type { SearchQuery } from "../../search/search-query.js";
import type { PostPage, PostRecord, SearchSort } from "../store.js";
import { toFts5Match } from "./fts5-match.js";
import { LANGUAGE_FILTER, NEWEST_FIRST } from "./sqlite-columns.js";
import type { StatementCache } from "./sqlite-connection.js";
import { postsInOrder } from "./sqlite-post-queries.js";

/**
 * Relevance is FTS5's bm25 with the title weighted above the feed name and the body; bm25 is
 * negative with lower better, so the score is its negation (positive, higher better, spec §4).
 */
const SCORE = "-bm25(posts_fts, 4.0, 1.0, 2.0)";

const searchOrder: Record<SearchSort, string> = {
  relevance: "score DESC, t.rowid DESC",
  date: NEWEST_FIRST,
  clicks: "p.clicks DESC, p.id DESC",
};

export function searchPosts(
  stmts: StatementCache,
  page: PostPage & { query: SearchQuery; sort: SearchSort },
): Array<PostRecord & { score: number }> {
  const match = toFts5Match(page.query);
  if (match === null || page.limit === 0 || page.languageIds?.length === 0) return [];
  const params: unknown[] = [match];
  let where = "posts_fts MATCH ?";
  if (page.languageIds !== null) {
    where += ` AND ${LANGUAGE_FILTER}`;
    params.push(JSON.stringify(page.languageIds));
  }
  // Relevance needs no post column unless languages are filtered: the FTS index answers alone.
  // Otherwise the sort keys come from posts_sort_keys (the planner would read the wide rows).
  const join =
    page.sort === "relevance" && page.languageIds === null
      ? ""
      : "JOIN posts p INDEXED BY posts_sort_keys ON p.id = t.rowid";
  if (page.sort === "date") return newestHits(stmts, match, join, where, params, page);
  const hits = stmts
    .get(`SELECT t.rowid AS id, ${SCORE} AS score FROM posts_fts t ${join} WHERE ${where}
      ORDER BY ${searchOrder[page.sort]} LIMIT ? OFFSET ?`)
    .all(...params, page.limit, page.offset) as Array<{ id: number; score: number }>;
  return withScores(stmts, new Map(hits.map((h) => [h.id, h.score])));
}

/**
 * Newest hits first. The order needs no score, and bm25 is the dearest part of ranking every hit
 * (a docsize lookup and the phrase positions per hit), so the page's ids are found first and the
 * scores are computed afterwards for the hits between the page's lowest and highest id only: post
 * ids grow with time under ingest, so that range is a small slice of the hits (37% less time on
 * the rare-term benchmark). The scores are the same: bm25's corpus statistics do not depend on
 * the rowid range (https://sqlite.org/fts5.html#the_bm25_function).
 */
function newestHits(
  stmts: StatementCache,
  match: string,
  join: string,
  where: string,
  params: unknown[],
  page: PostPage,
): Array<PostRecord & { score: number }> {
  const ids = stmts
    .get(`SELECT t.rowid FROM posts_fts t ${join} WHERE ${where} ORDER BY ${NEWEST_FIRST} LIMIT ? OFFSET ?`)
    .pluck()
    .all(...params, page.limit, page.offset) as number[];
  if (ids.length === 0) return [];
  const scored = stmts
    .get(
      `SELECT t.rowid, ${SCORE} FROM posts_fts t WHERE posts_fts MATCH ? AND t.rowid >= ? AND t.rowid <= ?`,
    )
    .raw()
    .all(match, Math.min(...ids), Math.max(...ids)) as Array<[number, number]>;
  const scores = new Map(scored);
  return withScores(stmts, new Map(ids.map((id) => [id, scores.get(id)!])));
}

/** The rows of the hits, in the map's order, each with its score. */
function withScores(
  stmts: StatementCache,
  scores: Map<number, number>,
): Array<PostRecord & { score: number }> {
  return postsInOrder(stmts, [...scores.keys()]).map((row) => ({ ...row, score: scores.get(row.postId)! }));
}
