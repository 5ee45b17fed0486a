/**
 * A `feed:` search with words, read from the posts by feed's index (schema 24, fts5-feed-index.ts):
 * one statement per feed the name matches (small feeds several to a statement, the OR of theirs),
 * each reading that feed's own lists of the words (its tokens prefixed with the feed id), newest
 * first within the date keys. What the store reads is
 * then bounded by the feeds' postings of the words, not by the words' postings in every feed, as
 * PostgreSQL's keys '<feed id> <word>' bound it (postgres-feed-words.ts). The posts that pass are
 * exactly the hits: the feed is the statement's, the words, the languages and the date range are
 * its MATCH and rowid range, so the plan applies only when those are every filter (a single
 * `feed:` clause, `after:`/`before:`, languages).
 *
 * The newest `need` hits of all the feeds are merged from each feed's newest ones, read in growing
 * chunks until `need` of them are known; then only the hits newer than the need-th of those can
 * still belong (every feed is read down to it). Scores are read on the way, sampled_bm25_over with
 * posts_fts's totals and row lengths: each phrase's instances in a row are its word's, so the
 * score is posts_fts's (native/sampled_bm25.c). Clicks order reads every hit, up to a bound, and
 * sorts their posts by clicks. A query with a prefix clause may instead read the feeds' lists of
 * its other clauses, unscored (this index has no prefix index), each key read then checked and
 * scored on posts_fts, when the feeds hold few posts with those words.
 */
import type { PostFilter, SearchQuery } from "../../search/search-query.js";
import { isFilter } from "../../search/search-query.js";
import { FEED_FTS, feedIndexExists, feedTokenPrefix } from "./fts5-feed-index.js";
import { languageMatch } from "./fts5-index-row.js";
import { fts5Phrases, toFts5Match } from "./fts5-match.js";
import { feedNamePhrase, type Hit, type Plan, type Scores } from "./fts5-operators.js";
import { searchIndexTotals } from "./sqlite-clicked-index.js";
import { FTS_ROWID } from "./sqlite-columns.js";
import type { StatementCache } from "./sqlite-connection.js";
import {
  FEED_SEGMENT_SEEK_COST_US,
  FEED_STATEMENTS_BUDGET_US,
  FTS_SCORE_COST_US,
  FTS_TEST_COST_US,
  FTS_WALK_ENTRY_COST_US,
} from "./sqlite-plan-costs.js";
import { segmentCount } from "./sqlite-search-maintenance.js";
import { newestKeyRange, TEXT_WEIGHTS } from "./sqlite-term-sample.js";

/** The smallest chunk of a feed's hits read at once. */
const MIN_CHUNK = 8;

/**
 * Small feeds are read together, up to this many in a statement (the OR of their MATCHes, each
 * row scored over all their phrases), while their posts stay under 1/GROUP_SHARE of the feeds':
 * a statement costs about a test of each list (FTS_TEST_COST_US), each phrase a small cost per row
 * scored (measured in bench/NOTES.md, sqlitefeed31), so a group of small feeds spares statements and a large feed keeps its rows' cost its own.
 */
const FEEDS_PER_STATEMENT = 16;
const GROUP_SHARE = 64;

/** A statement of the per-feed plan: one feed's MATCH, or several small feeds' OR, and its score. */
export interface FeedStream {
  match: string;
  /** The feeds it reads, and their posts. */
  feeds: number;
  posts: number;
  scoreSql: string;
  scoreArgs: Array<number | null>;
}

/**
 * What the per-feed plan reads: its streams; and, when they read the words without their prefix
 * clauses (a superset of the hits), the check of some of their keys on posts_fts, giving the
 * keys that match the whole query with their scores.
 */
export interface FeedLists {
  streams: readonly FeedStream[];
  verify: ((keys: readonly number[]) => Map<number, number>) | null;
}

/**
 * The per-feed plan of `query` (planned as `plan`), or null where it does not apply: no index,
 * no words, a prefix among them, a filter other than one `feed:` clause and date ranges, or feeds
 * so many that their lists' seeks (about a test each: FTS_TEST_COST_US, and a lookup in every
 * further segment of posts_feed_fts, as FTS5 reads one doclist per segment:
 * FEED_SEGMENT_SEEK_COST_US) pass FEED_STATEMENTS_BUDGET_US, or when it costs more than the plan
 * over posts_fts (`perFeedCosts`) for the `need` newest hits the page reads.
 */
export function feedLists(
  stmts: StatementCache,
  query: SearchQuery,
  plan: Plan,
  scores: Scores | null,
  statementUs = FTS_TEST_COST_US,
  need = 0,
): FeedLists | null {
  if (plan.match === null || scores === null || (query.excludedFilters?.length ?? 0) > 0) return null;
  let feed: (PostFilter & { kind: "feed" }) | null = null;
  for (const clause of query.filterClauses ?? []) {
    const only = clause.length === 1 ? clause[0]! : null;
    if (only === null || !isFilter(only)) return null;
    if (only.kind === "date") continue;
    if (only.kind !== "feed" || feed !== null || only.feedIds === undefined) return null;
    feed = only;
  }
  const feedIds = feed?.feedIds ?? null;
  if (feed === null || feedIds === null || feedIds.length * statementUs > FEED_STATEMENTS_BUDGET_US) {
    return null;
  }
  if (!feedIndexExists(stmts)) return null;
  // An index written post by post (ingest, refreshes) and not optimized since holds many segments:
  // a phrase is looked up in each.
  const segments = Math.max(1, segmentCount(stmts, FEED_FTS));
  const seekUs = statementUs === 0 ? 0 : statementUs + (segments - 1) * FEED_SEGMENT_SEEK_COST_US;
  if (feedIds.length * seekUs > FEED_STATEMENTS_BUDGET_US) return null;
  const feeds = stmts
    .get("SELECT id, post_count AS posts FROM feeds WHERE id IN (SELECT value FROM json_each(?))")
    .all(JSON.stringify(feedIds)) as Array<{ id: number; posts: number }>;
  const theirs = feeds.reduce((sum, feed) => sum + feed.posts, 0);
  const languages = plan.languages === null ? null : (JSON.parse(plan.languages) as number[]);
  // The words without their prefix clauses: posts_feed_fts has no prefix index (fts5-feed-index.ts),
  // so a `word*` reads and merges each feed's every term that begins with it, whole, in every
  // statement, where posts_fts reads its prefix index. Read without them, the feeds' lists give a
  // superset of the hits, each checked (and scored) on posts_fts by its key.
  const unprefixed = plan.words.clauses.filter((clause) => clause.every((term) => term.prefix !== true));
  const finding: SearchQuery = { clauses: unprefixed, excluded: plan.words.excluded };
  const matchOf = (feedId: number, words: SearchQuery) => {
    const prefix = feedTokenPrefix(feedId);
    const match = toFts5Match(words, prefix)!;
    return languages === null ? match : `(${match}) AND ${languageMatch(languages, prefix)}`;
  };
  // The words' and languages' statistics, without the feed phrases that posts_fts's plan adds.
  let args = scores.args.slice(0, scores.args.length - plan.feedPhrases);
  if (args[0] === null) args = wholeIndexCounts(stmts, plan, args.length - 1);
  const [sampled, ...counts] = args;
  const { rows, tokens } = searchIndexTotals(stmts, "posts_fts");
  // Each feed's phrases in the OR come in its turn; another feed's never occur in a row, so they
  // add 0 to its score, which stays exactly posts_fts's.
  const stream = (group: ReadonlyArray<{ id: number; posts: number }>, words: SearchQuery): FeedStream => {
    const match =
      group.length === 1
        ? matchOf(group[0]!.id, words)
        : group.map((f) => `(${matchOf(f.id, words)})`).join(" OR ");
    const posts = group.reduce((sum, f) => sum + f.posts, 0);
    if (words !== plan.words) return { match, feeds: group.length, posts, scoreSql: "0", scoreArgs: [] };
    return {
      match,
      feeds: group.length,
      posts,
      scoreSql: `sampled_bm25_over(${FEED_FTS}, ${rows}, ${tokens}, 'posts_fts_docsize', ${TEXT_WEIGHTS}, ?${", ?".repeat(group.length * counts.length)})`,
      scoreArgs: [sampled!, ...group.flatMap(() => counts)],
    };
  };
  const groups: Array<Array<{ id: number; posts: number }>> = [];
  let group: Array<{ id: number; posts: number }> = [];
  let grouped = 0;
  for (const feed of [...feeds].sort((a, b) => a.posts - b.posts || a.id - b.id)) {
    if (
      group.length === FEEDS_PER_STATEMENT ||
      (group.length > 0 && (grouped + feed.posts) * GROUP_SHARE > theirs)
    ) {
      groups.push(group);
      group = [];
      grouped = 0;
    }
    group.push(feed);
    grouped += feed.posts;
  }
  if (group.length > 0) groups.push(group);
  const whole = { streams: groups.map((g) => stream(g, plan.words)), verify: null };
  // The keys read checked on posts_fts: the query with its prefixes, scored as its plans score.
  const verify = (keys: readonly number[]) =>
    new Map(
      stmts
        .get(`SELECT rowid, ${scores.sql} FROM posts_fts
          WHERE posts_fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))`)
        .raw()
        .all(...scores.args, scores.match, JSON.stringify(keys)) as Array<[number, number]>,
    );
  const checked: FeedLists | null =
    unprefixed.length === plan.words.clauses.length || unprefixed.length === 0
      ? null
      : { streams: groups.map((g) => stream(g, finding)), verify };
  if (statementUs === 0) return checked ?? whole;
  const at = {
    sampled: sampled!,
    counts,
    rows,
    theirs,
    need,
    seekUs,
    inFeeds: feedHitsSampled(stmts, plan, feed, sampled!),
  };
  const costs = perFeedCosts(plan, whole.streams, at);
  // A key checked on posts_fts: a test of each of the query's phrases in each of its segments.
  const checkUs =
    FTS_TEST_COST_US * Math.max(1, segmentCount(stmts)) * (fts5Phrases(plan.words).phrases.length + 1);
  // Only the per-feed side of this call: its statements seek `finding`'s phrases, and no count
  // lines up with its clauses for the walk's side.
  const checkedCost =
    checked === null
      ? Number.POSITIVE_INFINITY
      : perFeedCosts({ ...plan, words: finding }, checked.streams, { ...at, checkUs }).perFeed;
  if (Math.min(costs.perFeed, checkedCost) > costs.postsFts) return null;
  return checkedCost < costs.perFeed ? checked : whole;
}

/**
 * At least how many of the `sampled` newest posts (the term sample's keys, or the whole index when
 * it holds no more: sqlite-term-sample.ts) are the feeds' and hold the words: posts_fts's count of
 * the words' plain clauses AND the feed name's phrase over that range, a few doclist pages of each
 * list. The words' hits within the feeds, which their share of the posts does not tell: a feed's
 * language or topic moves them. Clauses with a prefix or a column (`title:`) and the languages are
 * left out (a superset of the hits): FTS5 read those over the range at the cost of their whole
 * lists (bench/NOTES.md, sqlitefeed34d).
 */
function feedHitsSampled(
  stmts: StatementCache,
  plan: Plan,
  feed: PostFilter & { kind: "feed" },
  sampled: number,
): number {
  const plain = plan.words.clauses.filter((clause) =>
    clause.every((term) => term.prefix !== true && term.titleOnly !== true),
  );
  const words = toFts5Match({ clauses: plain, excluded: [] });
  const match = `${words === null ? "" : `(${words}) AND `}(${feedNamePhrase(feed)})`;
  const range = newestKeyRange(stmts, sampled);
  return stmts
    .get(
      `SELECT count(*) FROM posts_fts WHERE posts_fts MATCH ? AND rowid BETWEEN ${FTS_ROWID} AND ${FTS_ROWID}`,
    )
    .pluck()
    .get(match, range?.from ?? ALL_KEYS.low, range?.to ?? ALL_KEYS.high) as number;
}

/** The lowest and highest date keys, beyond any post's (as fts5-operators.ts's). */
const ALL_KEYS = { low: -(2 ** 53 - 1), high: 2 ** 53 - 1 };

/**
 * Both plans' costs for the `need` newest hits, in µs, from the term sample's counts (the words'
 * hits among `sampled` newest posts, as rankedNewestPage estimates them), the feeds' hits among
 * those (`inFeeds`) and the feeds' post counts, each feed holding its share of the feeds' hits.
 * The per-feed plan seeks each phrase of each statement (`seekUs`, with the segments) and
 * reads a feed's share of the hits in its statement, each row scored over every phrase of that
 * statement (sampled_bm25_over reads each phrase's instances: FTS_SCORE_COST_US), so a group of
 * small feeds pays all its phrases at each of its rows. The plan over posts_fts walks the words'
 * lists newest first until `need` of the hits are the feeds' (FTS_WALK_ENTRY_COST_US an entry)
 * and scores those: on a common word that walk stops early, where the
 * per-feed plan still pays every statement and its groups' phrases (bench/NOTES.md).
 */
export function perFeedCosts(
  plan: Plan,
  streams: readonly FeedStream[],
  at: {
    sampled: number;
    counts: readonly (number | null)[];
    rows: number;
    theirs: number;
    need: number;
    seekUs: number;
    /** The feeds' hits among the `sampled` newest posts (feedHitsSampled). */
    inFeeds: number;
    /** When the streams read a superset of the hits (`plan.words` without prefixes): a row's check. */
    checkUs?: number;
  },
): { perFeed: number; postsFts: number } {
  const phrases = at.counts.length;
  const rows = Math.max(1, at.rows);
  // Each clause's hits (the sum of its phrases'): the lists the walk over posts_fts reads.
  let next = 0;
  let lists = 0;
  for (const clause of plan.words.clauses) {
    const inSample = clause.reduce((sum) => sum + ((at.counts[next++] as number | null) ?? at.sampled), 0);
    lists += Math.min(rows, (inSample * rows) / Math.max(1, at.sampled));
  }
  // The feeds' hits, from their sampled count; each stream holds its share of them.
  const hits = Math.min(at.theirs, (at.inFeeds * rows) / Math.max(1, at.sampled));
  const theirs = Math.max(1, at.theirs);
  let perFeed = 0;
  const seeks = at.checkUs === undefined ? phrases : fts5Phrases(plan.words).phrases.length;
  for (const stream of streams) {
    const read = Math.min(
      (hits * stream.posts) / theirs,
      Math.max(MIN_CHUNK, (at.need * 1.25 * stream.posts) / theirs),
    );
    // Checked rows are read unscored, then checked; others scored over the statement's phrases.
    perFeed +=
      stream.feeds * seeks * at.seekUs +
      (at.checkUs === undefined ? stream.feeds * phrases * read * FTS_SCORE_COST_US : read * at.checkUs);
  }
  // The walk reads every clause's list down to where `need` of the feeds' hits lie (all of it
  // when they hold fewer).
  const walked = lists * Math.min(1, at.need / Math.max(hits, 1));
  const postsFts = walked * FTS_WALK_ENTRY_COST_US + Math.min(at.need, hits) * phrases * FTS_SCORE_COST_US;
  return { perFeed, postsFts };
}

/**
 * The statistics sampled_bm25 counts itself when given none (a database no larger than the term
 * sample: sqlite-term-sample.ts): posts_fts's row count and each phrase's posts in it, so that
 * this index scores as posts_fts's whole-index bm25. Excluded phrases never occur in a hit and the
 * language phrases weigh nothing (their column's weight is 0), so their counts do not matter.
 */
function wholeIndexCounts(stmts: StatementCache, plan: Plan, phrases: number): number[] {
  const { phrases: own, excluded } = fts5Phrases(plan.words);
  const count = stmts.get("SELECT count(*) FROM posts_fts WHERE posts_fts MATCH ?").pluck();
  const counted = own.length - excluded;
  const counts = Array.from({ length: phrases }, (_, i) =>
    i < counted ? (count.get(own[i]!) as number) : 0,
  );
  return [searchIndexTotals(stmts, "posts_fts").rows, ...counts];
}

/**
 * The `need` newest hits ([key, score], newest first) of the feeds within `plan.keys`, merged from
 * each feed's hits read newest first in chunks (each feed's doubling, from its share of the feeds'
 * posts times `need`, so that one round mostly suffices when the hits follow the posts): a feed
 * is read on while its next hit may still be newer than the need-th newest hit known, and only
 * down to it, so no feed is read much past the merge's last hit whatever its share of the hits.
 * With `any`, stops as soon as `need` hits are known, whichever they are (a count that is over).
 */
export function newestFeedHits(
  stmts: StatementCache,
  lists: FeedLists,
  plan: Plan,
  need: number,
  any = false,
): Array<[number, number]> {
  const theirs = Math.max(
    1,
    lists.streams.reduce((sum, stream) => sum + stream.posts, 0),
  );
  const reader = (sql: string) =>
    stmts
      .get(`SELECT rowid, ${sql} FROM ${FEED_FTS} WHERE ${FEED_FTS} MATCH ?
        AND rowid BETWEEN ${FTS_ROWID} AND ${FTS_ROWID} ORDER BY rowid DESC LIMIT ?`)
      .raw();
  let open = lists.streams.map((stream) => ({
    read: reader(stream.scoreSql),
    args: stream.scoreArgs,
    match: stream.match,
    high: plan.keys.high,
    // No stream gives more than `need` of the merge, so no first chunk reads more.
    chunk: Math.max(MIN_CHUNK, Math.min(need, Math.ceil((need * 1.25 * stream.posts) / theirs))),
  }));
  let hits: Array<[number, number]> = [];
  for (;;) {
    // Keys are unique, so a feed whose unread keys all lie at or below the floor holds none of them.
    const floor = hits.length >= need ? hits[need - 1]![0] : null;
    if (floor !== null) open = open.filter((feed) => feed.high > floor);
    if (open.length === 0) break;
    const low = floor === null ? plan.keys.low : Math.max(plan.keys.low, floor + 1);
    open = open.filter((feed) => {
      const rows = feed.read.all(...feed.args, feed.match, low, feed.high, feed.chunk) as Array<
        [number, number]
      >;
      if (lists.verify === null) hits.push(...rows);
      else if (rows.length > 0) {
        const matched = lists.verify(rows.map(([key]) => key));
        for (const [key] of rows) if (matched.has(key)) hits.push([key, matched.get(key)!]);
      }
      if (rows.length < feed.chunk) return false;
      feed.high = rows[rows.length - 1]![0] - 1;
      feed.chunk *= 2;
      return true;
    });
    if (any && hits.length >= need) return hits;
    hits.sort((a, b) => b[0] - a[0]);
    if (hits.length > need) hits = hits.slice(0, need);
  }
  return hits;
}

/** The ids of some date keys. */
function idsOf(stmts: StatementCache, keys: readonly number[]): Map<number, number> {
  return new Map(
    stmts
      .get(`SELECT date_key, id FROM posts INDEXED BY posts_by_date_key
        WHERE date_key IN (SELECT value FROM json_each(?))`)
      .raw()
      .all(JSON.stringify(keys)) as Array<[number, number]>,
  );
}

/**
 * A page of the `pool` newest hits ranked ([id, score], best first, ties by id descending): only
 * the hits scored at least the page's lowest score (its ties included) are joined to their ids.
 */
export function rankedFeedHits(
  stmts: StatementCache,
  lists: FeedLists,
  plan: Plan,
  pool: number,
  offset: number,
  limit: number,
): Array<[number, number]> {
  const hits = newestFeedHits(stmts, lists, plan, pool).sort((a, b) => b[1] - a[1]);
  if (offset >= hits.length) return [];
  const edge = hits[Math.min(hits.length, offset + limit) - 1]![1];
  const candidates = hits.filter(([, score]) => score >= edge);
  const ids = idsOf(
    stmts,
    candidates.map(([key]) => key),
  );
  return candidates
    .map(([key, score]): [number, number] => [ids.get(key)!, score])
    .sort((a, b) => b[1] - a[1] || b[0] - a[0])
    .slice(offset, offset + limit);
}

/** A page of the hits newest first ([id, key]), their scores kept in `scores.known`. */
export function newestFeedPage(
  stmts: StatementCache,
  lists: FeedLists,
  plan: Plan,
  scores: Scores,
  offset: number,
  limit: number,
): Hit[] {
  const only = lists.streams.length === 1 && lists.verify === null ? lists.streams[0]! : null;
  // One statement's hits are the page's order itself: those before the page are skipped in its
  // rowids (FTS5 reads no row for them, SQLite scores none), where the merge reads every one.
  const page =
    only !== null && offset > 0
      ? (stmts
          .get(`SELECT rowid, ${only.scoreSql} FROM ${FEED_FTS} WHERE ${FEED_FTS} MATCH ?
            AND rowid BETWEEN ${FTS_ROWID} AND ${FTS_ROWID} ORDER BY rowid DESC LIMIT ? OFFSET ?`)
          .raw()
          .all(...only.scoreArgs, only.match, plan.keys.low, plan.keys.high, limit, offset) as Array<
          [number, number]
        >)
      : newestFeedHits(stmts, lists, plan, offset + limit).slice(offset);
  for (const [key, score] of page) scores.known.set(key, score);
  const ids = idsOf(
    stmts,
    page.map(([key]) => key),
  );
  return page.map(([key]) => [ids.get(key)!, key]);
}

/**
 * A page of the hits most clicked first (ties by id descending), from every hit of the feeds
 * sorted by their posts' clicks; null when more than `cap` match (the clicked posts' index then
 * reads them in page order: sqlite-clicked-hits.ts), found by reading one past it.
 */
export function clickedFeedPage(
  stmts: StatementCache,
  lists: FeedLists,
  plan: Plan,
  scores: Scores,
  offset: number,
  limit: number,
  cap: number,
): Hit[] | null {
  const hits = newestFeedHits(stmts, lists, plan, cap + 1, true);
  if (hits.length > cap) return null;
  for (const [key, score] of hits) scores.known.set(key, score);
  const posts = stmts
    .get(`SELECT id, date_key FROM posts INDEXED BY posts_by_date_key
      WHERE date_key IN (SELECT value FROM json_each(?)) ORDER BY clicks DESC, id DESC LIMIT ? OFFSET ?`)
    .raw()
    .all(JSON.stringify(hits.map(([key]) => key)), limit, offset) as Hit[];
  return posts;
}
