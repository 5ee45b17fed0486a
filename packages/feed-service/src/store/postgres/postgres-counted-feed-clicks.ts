/**
 * Pages by clicks of a counted word within a `feed:` (migration 56). The clicks order is the
 * clicked matches (clicks descending, ties by id descending) then the unclicked ones by id
 * descending (spec §4, "Ties, everywhere"). Within feeds the old plans read every match of the
 * feeds (a heap row each, scattered) and sorted them for any deep page or a page of 1,000, so the
 * last page cost what all the matches cost (spec §4 Latency).
 *
 * - The clicked matches within the feeds are the feeds' clicked_posts rows holding the word: the
 *   rows' counted lexemes (`words`, migration 50) and language now sit beside each key of
 *   `clicked_posts_by_feed` (feed, clicks, id), so they are an index-only read of the feeds'
 *   clicked posts, never a probe of `posts`.
 * - `counted_feed_blocks` keeps, per counted word of one lexeme, feed and block of
 *   COUNTED_FEED_BLOCK_IDS post ids, the feed's posts that hold it, clicked or not: a click never
 *   moves it. The unclicked matches of a block are its count less the feeds' clicked matches in
 *   it (read above), so the running sum from the newest block says which blocks hold a page past
 *   the clicked matches, and the page reads only those blocks' matches (the feeds' words ANDed with
 *   the primary key's range), never the matches before it.
 *
 * Upkeep as the feeds' months' (postgres-counted-feeds.ts): a post counts by its own words,
 * inserts and deletes per statement (transition tables), a post's words or feed per row, a
 * TRUNCATE forgets them; counted with the words (countWords) and for any counted lexeme without
 * them at each open (`counted_feed_block_searches` marks the counted ones). Clicks fire nothing
 * here: only the index's entries are wider.
 */
import type pg from "pg";
import { isFilter, type SearchQuery, usesOperators } from "../../search/search-query.js";
import type { PostPage, SearchSort } from "../store.js";
import { Where } from "./postgres-columns.js";
import { inTransaction, rows, type Sql, translatePostgresError } from "./postgres-connection.js";
import {
  countFeedKeys,
  countUnmarkedFeedKeys,
  type FeedKeyCounts,
  feedKeyCountsSchema,
} from "./postgres-counted-feed-keys.js";
import { feedWordQuery } from "./postgres-feed-words.js";
import { addMatching, type Plan } from "./postgres-operator-plan.js";
import { MAX_FEED_FACETS, windowOf } from "./postgres-operator-scope.js";
import { SEEK_FROM_OFFSET } from "./postgres-plan-costs.js";
import { lexemeOf, searchKey } from "./postgres-search-key.js";

/**
 * Post ids per block. A page reads the feeds' rows of every block (feeds x max id / block rows)
 * and the matches of the blocks it spans (the feeds' matches x block / max id): 2^15 ids keeps
 * both to a few thousand for a `feed:` of hundreds of feeds at a million posts, and the table to
 * at most (feeds x max id / block) rows a word, about as many as the feeds' months.
 */
export const COUNTED_FEED_BLOCK_IDS = 32_768;
const BLOCK = COUNTED_FEED_BLOCK_IDS;

/** Per counted word, feed and block of ids (postgres-counted-feed-keys.ts). */
const blockCounts: FeedKeyCounts = {
  table: "counted_feed_blocks",
  marks: "counted_feed_block_searches",
  key: "block",
  plural: "blocks",
  alias: "b",
  keyOf: (row) => `${row}.id / ${BLOCK}`,
  keyColumn: "id",
  names: "feed_blocks",
  forget: "posts_forget_feed_blocks",
};

/**
 * Migration 56's SQL, safe to take again. Its triggers and functions are its own (none of the
 * click blocks', the periods' or the months' is changed).
 */
export const countedFeedClicksSchema = feedKeyCountsSchema(blockCounts);

/**
 * The feeds' clicks order's index with each row's language and counted lexemes beside its key
 * (as migration 50's clicks order's index), so a word's clicked matches within feeds are an
 * index-only read. Built again only when it lacks them (a re-run leaves it).
 */
const wordsBesideFeeds = `
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_indexes WHERE indexname = 'clicked_posts_by_feed' AND indexdef LIKE '%INCLUDE (language_id, words)%') THEN
    DROP INDEX IF EXISTS clicked_posts_by_feed;
    CREATE INDEX clicked_posts_by_feed ON clicked_posts (feed_id, clicks, id) INCLUDE (language_id, words);
  END IF;
END $$;`;

/** Counts the blocks of the counted searches `ids` (lexemes) and marks them counted. */
export function countFeedBlocks(sql: Sql, ids: readonly number[]): Promise<void> {
  return countFeedKeys(blockCounts, sql, ids);
}

/** Migration 56: the tables, triggers and index, the blocks of every counted lexeme. */
export async function createCountedFeedClicks(sql: Sql): Promise<void> {
  await sql.query(countedFeedClicksSchema);
  await countUnmarkedFeedKeys(blockCounts, sql);
  await sql.query(wordsBesideFeeds);
}

/**
 * Counts the blocks of the counted lexemes that have none (counted by a build without them, or a
 * smart category's word counted since the store opened); returns how many.
 */
export function syncFeedBlocks(pool: pg.Pool): Promise<number> {
  return inTransaction(pool, (sql) => countUnmarkedFeedKeys(blockCounts, sql));
}

/**
 * The feeds (and languages, null: all) of a query that is one counted-word candidate within them
 * and nothing else: one plain lexeme (no operator on it, nothing excluded), `feed:` and `lang:`
 * clauses alone, by clicks.
 */
function feedWord(
  page: PostPage & { query: SearchQuery; sort: SearchSort },
  plan: Plan,
): { lexemeQuery: string; feedIds: readonly number[]; languageIds: readonly number[] | null } | null {
  const query = page.query;
  if (page.sort !== "clicks" || plan.scope.feedIds === null) return null;
  if ((query.excludedFilters?.length ?? 0) > 0 || query.excluded.length > 0) return null;
  const onlyFeeds = (query.filterClauses ?? []).every(
    (c) => c.length === 1 && isFilter(c[0]!) && (c[0].kind === "feed" || c[0].kind === "lang"),
  );
  if (!onlyFeeds || plan.scope.fromDay !== null || plan.scope.lastDay !== null) return null;
  const words = { clauses: query.clauses, excluded: query.excluded };
  if (usesOperators(words)) return null;
  const key = searchKey(words);
  if (key === null || lexemeOf(key.index, key.verify) === null) return null;
  return { lexemeQuery: key.index, feedIds: plan.scope.feedIds, languageIds: plan.scope.languageIds };
}

/** The first row of an unnamed statement (planned on every call), with driver errors translated. */
async function unpreparedRow<T>(sql: Sql, text: string, values: unknown[]): Promise<T> {
  try {
    return (await sql.query(text, values)).rows[0] as T;
  } catch (error) {
    throw translatePostgresError(error);
  }
}

/** A block of the feeds' unclicked matches, newest first, with those up to its end. */
interface CountedBlock {
  block: number;
  n: number;
  running: number;
}

/**
 * The ids of a clicks-ordered page of a counted word within feeds (see feedWord), null when the
 * query is not one, the page needs fewer than SEEK_FROM_OFFSET matches (the walk's), the word's
 * blocks are not counted, a page within languages reaches past their clicked matches (the blocks
 * count every language), or the posts held other than the first read said (a write between the
 * reads: the exact uncounted plans answer then). The first statement reads the feeds' clicked
 * matches (the page's part among them, their count and their count per block) and the blocks that
 * hold the rest of the page; the second reads those blocks' unclicked matches and, in its own
 * snapshot, counts them, the clicked matches and the newer blocks' unclicked matches again.
 */
export async function countedFeedClicksPage(
  sql: Sql,
  page: PostPage & { query: SearchQuery; sort: SearchSort },
  plan: Plan,
  /** Tests read shallow pages through the counts too. */
  depth = SEEK_FROM_OFFSET,
): Promise<number[] | null> {
  if (page.offset + page.limit < depth) return null;
  const word = feedWord(page, plan);
  if (word === null) return null;
  const [search] = await rows<{ id: number; q: string }>(
    sql,
    `SELECT s.id, s.index_query AS q FROM counted_searches s JOIN counted_feed_block_searches k ON k.search_id = s.id
      WHERE s.index_query = $1 AND s.verify_query IS NULL`,
    [word.lexemeQuery],
  );
  if (!search) return null;
  const languages = word.languageIds === null ? "" : "AND k.language_id = ANY($6::int[])";
  const clickedOf = `SELECT k.id, k.clicks FROM clicked_posts k
    WHERE k.feed_id = ANY($2::int[]) AND $1::int = ANY(k.words) ${languages}`;
  // Unnamed statements, planned for their feeds each time (a generic plan of a prepared one does
  // not see how many feeds there are: postgres-counted-feeds.ts).
  const first = await unpreparedRow<{ clicked: number; ids: number[] | null; blocks: CountedBlock[] | null }>(
    sql,
    `WITH c AS MATERIALIZED (${clickedOf}),
      n AS (SELECT count(*)::float8 AS clicked FROM c),
      u AS (SELECT b.block, b.n - coalesce(cb.n, 0) AS n FROM (
          SELECT block, sum(posts)::float8 AS n FROM counted_feed_blocks
            WHERE search_id = $1 AND feed_id = ANY($2::int[]) GROUP BY block) b
        LEFT JOIN (SELECT id / ${BLOCK} AS block, count(*)::float8 AS n FROM c GROUP BY 1) cb USING (block)
        WHERE $5::boolean AND b.n - coalesce(cb.n, 0) > 0),
      r AS (SELECT block, n, sum(n) OVER (ORDER BY block DESC) AS running FROM u)
    SELECT (SELECT clicked FROM n) AS clicked,
      (SELECT array_agg(id) FROM (SELECT id FROM c ORDER BY clicks DESC, id DESC LIMIT $3 OFFSET $4) x) AS ids,
      (SELECT json_agg(json_build_object('block', block, 'n', n, 'running', running) ORDER BY block DESC) FROM r
        WHERE running > greatest(0, $4 - (SELECT clicked FROM n)) AND running - n < $4 + $3 - (SELECT clicked FROM n)) AS blocks`,
    [
      search.id,
      word.feedIds,
      page.limit,
      page.offset,
      word.languageIds === null,
      ...(word.languageIds === null ? [] : [word.languageIds]),
    ],
  );
  const ids = (first.ids ?? []).map(Number);
  const end = page.offset + page.limit;
  if (end <= first.clicked) return ids;
  // The rest of the page is unclicked: the blocks count every language.
  if (word.languageIds !== null) return null;
  const blocks = first.blocks ?? [];
  if (blocks.length === 0) return ids;
  const newest = blocks[0]!;
  const oldest = blocks[blocks.length - 1]!;
  const newer = newest.running - newest.n;
  const inWindow = oldest.running - newer;
  const from = Math.max(0, page.offset - first.clicked);
  const count = end - Math.max(page.offset, first.clicked);
  // The window's matches: many feeds through their words (the operators' index would hand over
  // every feed's matches), ANDed with the primary key's range of the window's blocks.
  const read = { ...plan, feedWords: windowFeedWords(plan, word.feedIds), feedTitles: null };
  const where = addMatching(new Where(), read, windowOf(plan.scope), { newest: 0, oldest: 0, narrow: false });
  where.add("p.id >= ?", oldest.block * BLOCK).add("p.id < ?", (newest.block + 1) * BLOCK);
  const hi = (newest.block + 1) * BLOCK;
  const second = await unpreparedRow<{ n: number; clicked: number; newer: number; ids: number[] | null }>(
    sql,
    `WITH m AS MATERIALIZED (SELECT p.id, p.clicks FROM posts p ${where.sql} OFFSET 0),
      c AS MATERIALIZED (SELECT k.id FROM clicked_posts k
        WHERE k.feed_id = ANY(${where.next(word.feedIds)}::int[]) AND ${where.next(search.id)}::int = ANY(k.words))
    SELECT (SELECT count(*) FROM m WHERE NOT clicks > 0)::float8 AS n,
      (SELECT count(*) FROM c)::float8 AS clicked,
      (SELECT coalesce(sum(posts), 0) FROM counted_feed_blocks WHERE search_id = ${where.next(search.id)}
          AND feed_id = ANY(${where.next(word.feedIds)}::int[]) AND block >= ${where.next(newest.block + 1)})::float8
        - (SELECT count(*) FROM c WHERE id >= ${where.next(hi)})::float8 AS newer,
      (SELECT array_agg(id) FROM (SELECT id FROM m WHERE NOT clicks > 0 ORDER BY id DESC
        LIMIT ${where.next(count)} OFFSET ${where.next(from - newer)}) x) AS ids`,
    where.params,
  );
  if (second.n !== inWindow || second.clicked !== first.clicked || second.newer !== newer) return null;
  return ids.concat((second.ids ?? []).map(Number));
}

/**
 * How the window's matches are read: many feeds through the feeds' words (their keys in the
 * index of posts by feed and word), as postgres-counted-feeds.ts reads its window; a few as
 * facets of the operators' index (null).
 */
function windowFeedWords(plan: Plan, feedIds: readonly number[]): string[] | null {
  if (feedIds.length <= MAX_FEED_FACETS || plan.feedIndex === null) return null;
  const queries: string[] = [];
  for (const id of feedIds) {
    const query = feedWordQuery(plan.feedIndex, id);
    if (query === null) return null;
    queries.push(query);
  }
  return queries;
}
