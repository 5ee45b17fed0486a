/**
 * Relevance on SQLite is bm25, computed by `sampled_bm25` (native/sampled_bm25.c) from corpus
 * statistics that this module counts: how many posts hold each phrase of the query. FTS5's own
 * bm25() counts them on the whole index on every search (one pass over each phrase's doclist,
 * paid even to score a page of 20). Here they are counted among the newest `TERM_SAMPLE_IDS` post
 * ids only, so their cost is bounded by the sample; a term's share of recent posts is also what a
 * reader of an aggregator expects its weight to follow. A database with no more ids than that is
 * counted whole, and then the scores are exactly FTS5's bm25 (negated: spec §4 wants higher better).
 */

import type { SearchQuery } from "../../search/search-query.js";
import { fts5Phrases } from "./fts5-match.js";
import { FTS_ROWID } from "./sqlite-columns.js";
import type { StatementCache } from "./sqlite-connection.js";

/** The newest this many post ids are the sample of term statistics. */
export const TERM_SAMPLE_IDS = 32_768;

/** Title above feed name above body, as FTS5 column weights (title, body, feed_name). */
const WEIGHTS = "4.0, 1.0, 2.0";

/**
 * The SQL of the score for a query of `phrases` phrases; its parameters are `rankingStats`. Rows'
 * lengths are read from the index's docsize table directly (one blob handle moved from row to row:
 * half the cost of ranking a pool of common-word hits, see native/sampled_bm25.c), each once per
 * connection until the index changes.
 */
export function scoreSql(phrases: number): string {
  return `sampled_bm25(posts_fts, 'posts_fts_docsize', ${WEIGHTS}, ?${", ?".repeat(phrases)})`;
}

/** What a search knows from its term sample. */
export interface TermSample {
  /** The arguments of `scoreSql`. */
  args: Array<number | null>;
  /** The highest post id (null when there is no post). */
  newest: number | null;
  /**
   * How many of the sampled posts the whole query matches, when the statistics tell it (a query
   * of one phrase and no exclusion, over more posts than the sample); null otherwise.
   */
  queryHits: number | null;
}

/**
 * The term statistics of `query`: the arguments of `scoreSql` (the number of posts sampled, then
 * how many of them hold each phrase; all null, to count on the whole index, when the sample would
 * be the whole index), with the highest post id they were taken under. Excluded phrases never
 * occur in a matching post, so their count does not matter and is not taken.
 */
export function rankingStats(
  stmts: StatementCache,
  query: SearchQuery,
  sampleIds = TERM_SAMPLE_IDS,
): TermSample {
  const { phrases, excluded } = fts5Phrases(query);
  const newest = stmts.get("SELECT max(id) FROM posts").pluck().get() as number | null;
  if (newest === null || newest <= sampleIds) {
    return { args: [null, ...phrases.map(() => null)], newest, queryHits: null };
  }
  const from = newest - sampleIds + 1;
  const count = stmts
    .get(
      `SELECT count(*) FROM posts_fts WHERE posts_fts MATCH ? AND rowid BETWEEN ${FTS_ROWID} AND ${FTS_ROWID}`,
    )
    .pluck();
  const counted = phrases.length - excluded;
  const hits = phrases.map((phrase, i) => (i < counted ? (count.get(phrase, from, newest) as number) : 0));
  return {
    args: [sampleIds, ...hits],
    newest,
    queryHits: phrases.length === 1 && excluded === 0 ? hits[0]! : null,
  };
}
