/**
 * Relevance on SQLite is bm25, computed by `sampled_bm25` (native/sampled_bm25.c) from corpus
 * statistics that this module counts: how many posts hold each phrase of the query. FTS5's own
 * bm25() counts them on the whole index on every search (one pass over each phrase's doclist,
 * paid even to score a page of 20). Here they are counted among the newest `TERM_SAMPLE_POSTS`
 * posts only (a range of date keys: sqlite-date-keys.ts), so their cost is bounded by the sample;
 * a term's share of recent posts is also what a reader of an aggregator expects its weight to
 * follow. A database with no more posts than that is counted whole, and then the scores are
 * exactly FTS5's bm25 (negated: spec §4 wants higher better).
 */

import type { SearchQuery } from "../../search/search-query.js";
import { fts5Phrases } from "./fts5-match.js";
import { FTS_ROWID } from "./sqlite-columns.js";
import type { StatementCache } from "./sqlite-connection.js";
import { TERM_SAMPLE_POSTS } from "./sqlite-plan-costs.js";

export { TERM_SAMPLE_POSTS } from "./sqlite-plan-costs.js";

/**
 * Column weights of a post's text (title, body, feed_name, language): title above feed name above
 * body; the language column's one token never counts towards a score. The posts by feed's index
 * has these columns only.
 */
export const TEXT_WEIGHTS = "4.0, 1.0, 2.0, 0.0";

/**
 * The weights of posts_fts's columns and the clicked posts' index's: the text's, then title_words
 * (fts5-index-row.ts) weighed as the title, negative so that the scorer leaves it out of the rows'
 * lengths and of the mean length (native/sampled_bm25.c): `title:w` scores as `{title} : w` did.
 */
export const WEIGHTS = `${TEXT_WEIGHTS}, -4.0`;

/** How many columns make a row's length: the text's (title_words comes after them). */
const LENGTH_COLUMNS = TEXT_WEIGHTS.split(",").length;

/**
 * The SQL of the score for a query of `phrases` phrases; its parameters are `rankingStats`. Rows'
 * lengths are read from the index's docsize table directly (one blob handle moved from row to row:
 * half the cost of ranking a pool of common-word hits, see native/sampled_bm25.c), each once per
 * connection until the index changes.
 */
export function scoreSql(phrases: number): string {
  return `sampled_bm25(posts_fts, 'posts_fts_docsize', ${WEIGHTS}, ?${", ?".repeat(phrases)})`;
}

/**
 * Reads every row's length into the connection's length cache (newest first, up to the cache's
 * cap: native/sampled_bm25.c), so that a connection's first searches do not seek the docsize
 * table once per hit they score; returns how many lengths it holds. A warm-up of the whole table
 * (spec §4 Latency: no particular word or post), kept until the index changes. `docsize`: the
 * docsize table of another index of the same rows (the clicked posts', whose searches by clicks
 * score their hits from it), which has a cache of its own.
 */
export function loadRowLengths(stmts: StatementCache, docsize = "posts_fts_docsize"): number {
  return stmts.get(`SELECT sampled_bm25_lengths('${docsize}', ${LENGTH_COLUMNS})`).pluck().get() as number;
}

/** The date keys of the newest posts: `from` the lowest of them, `to` the highest. */
export interface KeyRange {
  from: number;
  to: number;
}

/**
 * The ranges known per connection, by sample size: a search by clicks asks for two (the term
 * sample's and the hit estimate's, sqlite-plan-costs.ts), so one kept range would be walked again
 * on every such search.
 */
const ranges = new WeakMap<
  StatementCache,
  Map<number, { version: Buffer | undefined; range: KeyRange | null }>
>();

/**
 * The full-text index's structure record (its %_data row 10), which FTS5 writes on every change
 * of the index (a new segment, a write counter that only grows: native/sampled_bm25.c). Every
 * commit that gives, moves or drops a post's date key writes that post's index row (the rowid is
 * the key), so the record versions the newest keys; unlike data_version it stays put when other
 * tables alone are written, such as the search history that every search records.
 */
function indexStructure(stmts: StatementCache): Buffer | undefined {
  return stmts.get("SELECT block FROM posts_fts_data WHERE id = 10").pluck().get() as Buffer | undefined;
}

/**
 * The keys of the newest `size` posts, or null when there are not more posts than that. Kept per
 * connection and size until the full-text index changes (a walk of `size` index entries
 * otherwise per search). The version is read before the range: a commit between the two leaves
 * a newer range under an older version, which the next search reads again.
 */
export function newestKeyRange(stmts: StatementCache, size: number): KeyRange | null {
  return newestKeys(stmts, size).range;
}

/** newestKeyRange, with the structure record it holds for (read before it). */
function newestKeys(
  stmts: StatementCache,
  size: number,
): { version: Buffer | undefined; range: KeyRange | null } {
  const version = indexStructure(stmts);
  let bySize = ranges.get(stmts);
  if (bySize === undefined) {
    bySize = new Map();
    ranges.set(stmts, bySize);
  }
  const known = bySize.get(size);
  if (known?.version !== undefined && version !== undefined && known.version.equals(version)) {
    return { version, range: known.range };
  }
  const [from, beyond] = stmts
    .get(`SELECT date_key FROM posts INDEXED BY posts_by_date_key WHERE date_key IS NOT NULL
      ORDER BY date_key DESC LIMIT 2 OFFSET ?`)
    .pluck()
    .all(size - 1) as number[];
  const range =
    beyond === undefined
      ? null
      : { from: from!, to: stmts.get("SELECT max(date_key) FROM posts").pluck().get() as number };
  bySize.set(size, { version, range });
  return { version, range };
}

/**
 * The phrases' counts among the newest posts, per connection and sample size, kept while the
 * index's structure record is the one they were counted under, as the ranges are (which that
 * record versions too): a search otherwise walks each of its words' posting lists over the whole
 * sample again, though the counts are the same for every search until a post is stored.
 */
const sampleCounts = new WeakMap<
  StatementCache,
  Map<number, { version: Buffer; byPhrase: Map<string, number> }>
>();

/** At most this many phrases' counts kept per connection and sample size; past it they start again. */
const COUNTS_KEPT = 4096;

/** The counts kept for `version`, emptied when they were kept for another (none without a version). */
function keptCounts(
  stmts: StatementCache,
  size: number,
  version: Buffer | undefined,
): Map<string, number> | null {
  if (version === undefined) return null;
  let bySize = sampleCounts.get(stmts);
  if (bySize === undefined) {
    bySize = new Map();
    sampleCounts.set(stmts, bySize);
  }
  const known = bySize.get(size);
  if (known?.version.equals(version) && known.byPhrase.size < COUNTS_KEPT) {
    return known.byPhrase;
  }
  const byPhrase = new Map<string, number>();
  bySize.set(size, { version, byPhrase });
  return byPhrase;
}

/** What a search knows from its term sample. */
export interface TermSample {
  /** The arguments of `scoreSql`. */
  args: Array<number | null>;
  /** The keys sampled, or null when the whole index is (no more posts than the sample). */
  range: KeyRange | null;
  /**
   * How many of the sampled posts the whole query matches, when the statistics tell it (a query
   * of one phrase, no exclusion and no language filter, over more posts than the sample); null
   * otherwise.
   */
  queryHits: number | null;
}

/**
 * The term statistics of `query`: the arguments of `scoreSql` (the number of posts sampled, then
 * how many of them hold each phrase; all null, to count on the whole index, when the sample would
 * be the whole index). Excluded phrases never occur in a matching post, and the `languagePhrases`
 * that follow the query's (a language filter in the MATCH) weigh nothing, so their counts do not
 * matter and are not taken.
 */
export function rankingStats(
  stmts: StatementCache,
  query: SearchQuery,
  sampleSize = TERM_SAMPLE_POSTS,
  languagePhrases = 0,
): TermSample {
  const { phrases, excluded } = fts5Phrases(query);
  const uncounted = Array.from({ length: languagePhrases }, () => null);
  const { version, range } = newestKeys(stmts, sampleSize);
  if (range === null) {
    return { args: [null, ...phrases.map(() => null), ...uncounted], range, queryHits: null };
  }
  const count = stmts
    .get(
      `SELECT count(*) FROM posts_fts WHERE posts_fts MATCH ? AND rowid BETWEEN ${FTS_ROWID} AND ${FTS_ROWID}`,
    )
    .pluck();
  const kept = keptCounts(stmts, sampleSize, version);
  const counted = phrases.length - excluded;
  const hits = phrases.map((phrase, i) => {
    if (i >= counted) return 0;
    let hits = kept?.get(phrase);
    if (hits === undefined) {
      hits = count.get(phrase, range.from, range.to) as number;
      kept?.set(phrase, hits);
    }
    return hits;
  });
  return {
    args: [sampleSize, ...hits, ...uncounted.map(() => 0)],
    range,
    queryHits: phrases.length === 1 && excluded === 0 && languagePhrases === 0 ? hits[0]! : null,
  };
}
