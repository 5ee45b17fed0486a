/**
 * Deep date pages of a counted word within a `feed:` (migration 52). The date counts of the
 * counted words (postgres-counted-words.ts) are per language and day, of every feed: a `feed:`
 * with a common word (`feed:日 the`) read every match of its feeds and sorted them for any page,
 * a heap row a match, scattered over the table, so its last page cost what all its matches cost
 * (spec §4 Latency: any valid offset within the budget). `counted_feed_months` keeps, per counted
 * word of one lexeme, feed and month (MONTH_DAYS days, as `scope_months`), the feed's posts that
 * hold it: the feeds' rows say which months hold the page and how many matches are newer, and the
 * page reads the matches of those months alone (the operators' index with their day facets, the
 * feeds through posts_by_feed), never the matches before it.
 *
 * Upkeep as the click blocks' (postgres-counted-clicks.ts): a post counts by its own words (the
 * triggers match a counted word on `search_vector`), inserts and deletes per statement, a post's
 * words, feed or day per row, a TRUNCATE forgets them. A counted search's months are counted with
 * its days and blocks (countWords) and marked in `counted_feed_searches`; one counted without them
 * (a smart category's word, counted since the store opened) takes the exact slower path until the
 * next open counts it. The rows of a search no longer counted are dropped at the next open (no
 * foreign key: a TRUNCATE of the counted searches would have to name these tables too).
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
import { MAX_FEED_FACETS } from "./postgres-operator-scope.js";
import { COUNTED_WORD_MATCHES, TIER_MARGIN } from "./postgres-plan-costs.js";
import { MONTH_DAYS, monthOf } from "./postgres-scope-months.js";
import { lexemeOf, searchKey } from "./postgres-search-key.js";

/** The month of a post's date (`post_date` of `row`). */
const monthOfPost = (row: string) => monthOf(`post_day(${row}.post_date)`);

/** Per counted word, feed and month (postgres-counted-feed-keys.ts). */
const monthCounts: FeedKeyCounts = {
  table: "counted_feed_months",
  marks: "counted_feed_searches",
  key: "month",
  plural: "months",
  alias: "m",
  keyOf: monthOfPost,
  keyColumn: "post_date",
  names: "feed_months",
  forget: "posts_forget_counted_feeds",
};

/** Migration 52's SQL, safe to take again. */
export const countedFeedsSchema = feedKeyCountsSchema(monthCounts);

/** Counts the months of the counted searches `ids` (lexemes) and marks them counted. */
export function countFeedMonths(sql: Sql, ids: readonly number[]): Promise<void> {
  return countFeedKeys(monthCounts, sql, ids);
}

/** Migration 52: the tables and triggers, the months of every counted lexeme. */
export async function createCountedFeeds(sql: Sql): Promise<void> {
  await sql.query(countedFeedsSchema);
  await countUnmarkedFeedKeys(monthCounts, sql);
}

/**
 * Counts the months of the counted lexemes that have none (counted by a build without them, or a
 * smart category's word counted since the store opened), and drops those of searches no longer
 * counted; returns how many were counted.
 */
export function syncFeedMonths(pool: pg.Pool): Promise<number> {
  return inTransaction(pool, (sql) => countUnmarkedFeedKeys(monthCounts, sql));
}

/**
 * The feeds of a query that is one counted-word candidate within them and nothing else: one
 * plain lexeme (no operator on it, nothing excluded), `feed:` clauses alone, every language.
 */
function feedWord(
  page: PostPage & { query: SearchQuery; sort: SearchSort },
  plan: Plan,
): { lexemeQuery: string; feedIds: readonly number[] } | null {
  const query = page.query;
  if (page.sort !== "date" || page.languageIds !== null || plan.scope.feedIds === null) return null;
  if ((query.excludedFilters?.length ?? 0) > 0 || query.excluded.length > 0) return null;
  const onlyFeeds = (query.filterClauses ?? []).every(
    (c) => c.length === 1 && isFilter(c[0]!) && c[0].kind === "feed",
  );
  const words = { clauses: query.clauses, excluded: query.excluded };
  if (!onlyFeeds || usesOperators(words)) return null;
  const key = searchKey(words);
  if (key === null || lexemeOf(key.index, key.verify) === null) return null;
  return { lexemeQuery: key.index, feedIds: plan.scope.feedIds };
}

/**
 * How the window's matches are read: a few feeds are facets of the operators' index, so the
 * word's posting list narrowed to the window's day facets and the feeds' facets hands over the
 * feeds' matches alone; many feeds are not in it, and its candidates would be every feed's
 * matches of those days, each a heap row, so the feeds' words (postgres-feed-words.ts) hand over
 * the feeds' matches, ANDed with their posts of the window (posts_by_feed). Null: the operators'.
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

/**
 * The depth (offset + limit) from which a page is read through the counts: the newest-days tier
 * of the other plans reads the page's matches and those before it (with TIER_MARGIN), each a
 * heap row; past half the budget's worth of them (COUNTED_WORD_MATCHES), the months' counts and
 * one window of them cost less. A shallower page is the tier's.
 */
export const COUNTED_FEEDS_DEPTH = COUNTED_WORD_MATCHES / (2 * TIER_MARGIN);

/** The first row of an unnamed statement (planned on every call), with driver errors translated. */
async function unpreparedRow<T>(sql: Sql, text: string, values: unknown[]): Promise<T> {
  try {
    return (await sql.query(text, values)).rows[0] as T;
  } catch (error) {
    throw translatePostgresError(error);
  }
}

/** A month of the feeds' matches, newest first, with the matches up to its end. */
interface CountedMonth {
  month: number;
  n: number;
  running: number;
}

/**
 * The ids of a date page of a counted word within feeds (see feedWord), null when the query is
 * not one, the word's months are not counted, or the posts held other than the counts said (a
 * write between the two reads: the exact uncounted plans answer then). The months holding the
 * page come from the feeds' counts; the page statement reads the matches of those months and,
 * in the same snapshot, counts them and the newer months' counts again, so the offset within
 * them is exact. Past the last match: no page. Pages no deeper than `depth` are left to the others.
 */
export async function countedFeedsPage(
  sql: Sql,
  page: PostPage & { query: SearchQuery; sort: SearchSort },
  plan: Plan,
  /** Tests read shallow pages through the counts too. */
  depth = COUNTED_FEEDS_DEPTH,
): Promise<number[] | null> {
  if (page.offset + page.limit <= depth) return null;
  const word = feedWord(page, plan);
  if (word === null) return null;
  const [search] = await rows<{ id: number }>(
    sql,
    `SELECT s.id FROM counted_searches s JOIN counted_feed_searches k ON k.search_id = s.id
      WHERE s.index_query = $1 AND s.verify_query IS NULL`,
    [word.lexemeQuery],
  );
  if (!search) return null;
  const months = await rows<CountedMonth>(
    sql,
    `SELECT month, n, running FROM (
        SELECT month, n, sum(n) OVER (ORDER BY month DESC)::float8 AS running FROM (
          SELECT month, sum(posts)::float8 AS n FROM counted_feed_months
            WHERE search_id = $1 AND feed_id = ANY($2::int[]) GROUP BY month HAVING sum(posts) > 0) per_month
      ) s WHERE running > $3 AND running - n < $4 ORDER BY month DESC`,
    [search.id, word.feedIds, page.offset, page.offset + page.limit],
  );
  if (months.length === 0) return [];
  const newest = months[0]!;
  const oldest = months[months.length - 1]!;
  const newer = newest.running - newest.n;
  const inWindow = oldest.running - newer;
  const window = { first: oldest.month * MONTH_DAYS, last: (newest.month + 1) * MONTH_DAYS - 1 };
  const read = { ...plan, feedWords: windowFeedWords(plan, word.feedIds), feedTitles: null };
  const where = addMatching(new Where(), read, window, {
    newest: window.last,
    oldest: window.first,
    narrow: true,
  });
  // Unnamed, so planned for its own window and feeds each time: a prepared statement's generic
  // plan, taken after a few runs (https://www.postgresql.org/docs/current/sql-prepare.html), does
  // not see the tsquery or the window and may read every match of the feeds' words.
  const found = await unpreparedRow<{ n: number; newer: number; ids: number[] | null }>(
    sql,
    `WITH m AS MATERIALIZED (SELECT p.id, p.post_date FROM posts p ${where.sql} OFFSET 0)
      SELECT (SELECT count(*) FROM m)::float8 AS n,
        (SELECT coalesce(sum(posts), 0)::float8 FROM counted_feed_months
          WHERE search_id = ${where.next(search.id)} AND feed_id = ANY(${where.next(word.feedIds)}::int[])
            AND month > ${where.next(newest.month)}) AS newer,
        (SELECT array_agg(id) FROM (SELECT id FROM m ORDER BY post_date DESC, id DESC
          LIMIT ${where.next(page.limit)} OFFSET ${where.next(page.offset - newer)}) page) AS ids`,
    where.params,
  );
  if (found.n !== inWindow || found.newer !== newer) return null;
  return (found.ids ?? []).map(Number);
}
