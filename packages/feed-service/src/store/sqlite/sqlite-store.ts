/**
 * The SQLite dialect of the `Store` (better-sqlite3: synchronous, one connection per process, so
 * each async method simply runs its statement and resolves). The SQL lives in the query and writer
 * modules next to this file; this class wires them to the interface and owns the connection.
 */
import type Database from "better-sqlite3";
import { foldLanguageClauses, hasFilters, type SearchQuery } from "../../search/search-query.js";
import { stderrProgress } from "../migration-progress.js";
import type {
  CategoryRecord,
  ClickRow,
  FeedAdminRecord,
  FeedClaimOptions,
  FeedFailureRecord,
  FeedRecord,
  FeedUpdate,
  FeedUpdateOutcome,
  FeedUpdateResult,
  LanguageDataRecord,
  LanguageRecord,
  NewFeed,
  PostPage,
  PostRecord,
  SearchHistoryRecord,
  SearchSort,
  SmartCategoryRecord,
  Store,
  StoryFeedRef,
  StoryMergeRecord,
} from "../store.js";
import { countWithOperators, searchWithOperators } from "./fts5-operators.js";
import * as activity from "./sqlite-activity-writer.js";
import { SqliteAdminStore } from "./sqlite-admin-store.js";
import * as catalog from "./sqlite-catalog-queries.js";
import * as catalogWriter from "./sqlite-catalog-writer.js";
import { WalCheckpointer } from "./sqlite-checkpointer.js";
import { clickedIndexed } from "./sqlite-clicked-hits.js";
import { CLICKED_FTS } from "./sqlite-clicked-index.js";
import {
  fitWriterCache,
  loadStoreExtension,
  openSqliteDatabase,
  StatementCache,
  translateSqliteError,
  writeCounts,
} from "./sqlite-connection.js";
import { settleSearchDays, syncCountedSearches } from "./sqlite-counted-searches.js";
import * as claims from "./sqlite-feed-claims.js";
import { feedNamesVersion, KeptRead } from "./sqlite-feed-names.js";
import * as feedRankings from "./sqlite-feed-rankings.js";
import * as feedWriter from "./sqlite-feed-writer.js";
import { readSearchIndexes } from "./sqlite-index-warm.js";
import { migrateSqlite } from "./sqlite-migrations.js";
import { mostPopularPosts } from "./sqlite-popular-posts.js";
import { postKeys } from "./sqlite-post-keys.js";
import * as posts from "./sqlite-post-queries.js";
import { countSearchMatches } from "./sqlite-search-count.js";
import { closeSearchHistory, searchHistoryOf } from "./sqlite-search-history.js";
import { mergeSearchIndexStep, optimizeSearchIndex } from "./sqlite-search-maintenance.js";
import { searchPosts } from "./sqlite-search-queries.js";
import * as stories from "./sqlite-story-reads.js";
import { loadRowLengths } from "./sqlite-term-sample.js";
import { SqliteWebSubStore } from "./sqlite-websub-store.js";

/** Runs a synchronous store call as a promise, with driver errors translated. */
function settle<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (error) {
    return Promise.reject(translateSqliteError(error));
  }
}

export class SqliteStore implements Store {
  readonly dialect = "sqlite" as const;
  readonly #db: Database.Database;
  readonly #stmts: StatementCache;
  readonly websub: SqliteWebSubStore;
  readonly admin: SqliteAdminStore;
  /** Started by the first refresh that stores posts: bulk writes are what fill the log. */
  #checkpointer: WalCheckpointer | null = null;

  /**
   * After a commit that stored posts: the log's checkpoints, and the writer's cache fitted to the
   * grown file (fitWriterCache). An in-memory database has neither.
   */
  #postsCommitted(): void {
    if (this.#db.memory) return;
    this.#checkpointer ??= new WalCheckpointer(this.#db);
    this.#checkpointer.committed();
    fitWriterCache(this.#db, this.#stmts);
  }

  /** The feeds' names until a feed changes (sqlite-feed-names.ts). */
  readonly #feedNames = new KeptRead<Array<{ feedId: number; feedName: string }>>();

  /** The search history's file (sqlite-search-history.ts), opened on first use. */
  #historyStmts: StatementCache | null = null;

  /** Takes an open, migrated connection; use `openSqliteStore` to open a path. */
  constructor(db: Database.Database) {
    loadStoreExtension(db);
    this.#db = db;
    this.#stmts = new StatementCache(db);
    this.websub = new SqliteWebSubStore(db);
    this.admin = new SqliteAdminStore(db);
  }

  recentPosts(page: PostPage): Promise<PostRecord[]> {
    return settle(() => posts.recentPosts(this.#stmts, page));
  }
  postsByCategory(
    page: PostPage & { categoryId: number; sincePostId: number | null; sinceDate: number | null },
  ): Promise<PostRecord[]> {
    return settle(() => posts.postsByCategory(this.#stmts, page));
  }
  postsByFeed(page: Omit<PostPage, "languageIds"> & { feedId: number }): Promise<PostRecord[]> {
    return settle(() => stories.postsByFeedWithCopies(this.#stmts, page));
  }
  /**
   * A query thread's warm-up (sqlite-read-worker.ts): every row's length into the connection's
   * cache, which a search's scoring would otherwise read row by row on its first calls; those of
   * the clicked posts' index too (schema 23), which searches by clicks score from.
   */
  warmSearchLengths(): Promise<number> {
    return settle(
      () =>
        loadRowLengths(this.#stmts) +
        (clickedIndexed(this.#stmts) ? loadRowLengths(this.#stmts, `${CLICKED_FTS}_docsize`) : 0),
    );
  }
  /**
   * A query thread's warm-up (sqlite-read-worker.ts): the feed rankings' running sums and the day
   * counts into the connection's page cache, which a first ranking would read a leaf per feed of.
   */
  warmRankingTables(): Promise<number> {
    return settle(() => feedRankings.readRankingTables(this.#stmts));
  }
  /**
   * A query thread's warm-up (sqlite-read-worker.ts): the indexes every search reads beside its
   * words' lists (sqlite-index-warm.ts) into the connection's page cache.
   */
  warmSearchIndexes(): Promise<number> {
    return settle(() => readSearchIndexes(this.#stmts));
  }
  searchPosts(
    page: PostPage & { query: SearchQuery; sort: SearchSort; unscored?: boolean },
  ): Promise<Array<PostRecord & { score: number }>> {
    // Queries with filters (spec §4: feed:, lang:, after:, before:) have plans of their own
    // (fts5-operators.ts); prefixes and title: are FTS5 syntax that the word plans take as is.
    return settle(() => {
      const folded = { ...page, ...foldLanguageClauses(page.query, page.languageIds) };
      return hasFilters(folded.query)
        ? searchWithOperators(this.#stmts, folded)
        : searchPosts(this.#stmts, folded);
    });
  }
  mostPopularPosts(args: {
    since: number;
    limit: number;
    categoryId: number | null;
  }): Promise<Array<PostRecord & { periodClicks: number }>> {
    return settle(() => mostPopularPosts(this.#stmts, args));
  }
  categories(): Promise<CategoryRecord[]> {
    return settle(() => catalog.categories(this.#stmts));
  }
  smartCategories(): Promise<SmartCategoryRecord[]> {
    return settle(() => catalog.smartCategories(this.#stmts));
  }
  languages(): Promise<LanguageRecord[]> {
    return settle(() => catalog.languages(this.#stmts));
  }
  mostPopularFeeds(args: {
    since: number;
    limit: number;
  }): Promise<Array<FeedRecord & { periodClicks: number }>> {
    return settle(() => feedRankings.mostPopularFeeds(this.#stmts, args));
  }
  mostProlificFeeds(args: {
    since: number;
    limit: number;
  }): Promise<Array<FeedRecord & { periodPosts: number }>> {
    return settle(() => feedRankings.mostProlificFeeds(this.#stmts, args));
  }
  feeds(filter?: { categoryId?: number; languageId?: number }): Promise<FeedRecord[]> {
    return settle(() => catalog.feeds(this.#stmts, filter));
  }
  feedNames(): Promise<Array<{ feedId: number; feedName: string }>> {
    return settle(() => this.#feedNames.get(this.feedNamesVersion(), () => catalog.feedNames(this.#stmts)));
  }
  /**
   * Changes on every write to the database file (not its search history), by this connection or
   * another; null inside a transaction (its writes are counted before other connections see them).
   */
  writeVersion(): string | null {
    return this.#db.inTransaction ? null : this.#version();
  }
  /** Changes when a feed may have been added, renamed or removed; null inside a transaction. */
  feedNamesVersion(): string | null {
    return feedNamesVersion(this.#db, this.#stmts);
  }
  searchHistory(limit: number): Promise<SearchHistoryRecord[]> {
    return settle(() => catalog.searchHistory(this.#history(), limit));
  }
  recordSearch(terms: string, at: number): Promise<void> {
    return settle(() => {
      activity.recordSearch(this.#history(), terms, at);
    });
  }
  #history(): StatementCache {
    this.#historyStmts ??= new StatementCache(searchHistoryOf(this.#db));
    return this.#historyStmts;
  }
  aggregateLanguageData(now: number): Promise<LanguageDataRecord[]> {
    return settle(() => catalog.aggregateLanguageData(this.#stmts, now));
  }
  countSearchMatches(args: {
    query: SearchQuery;
    languageIds: readonly number[] | null;
    cap: number;
  }): Promise<number> {
    return settle(() => {
      const folded = { ...args, ...foldLanguageClauses(args.query, args.languageIds) };
      return hasFilters(folded.query)
        ? countWithOperators(this.#stmts, folded)
        : countSearchMatches(this.#stmts, folded);
    });
  }
  failingFeeds(): Promise<FeedFailureRecord[]> {
    return settle(() => catalog.failingFeeds(this.#stmts));
  }

  categoryById(id: number): Promise<CategoryRecord | undefined> {
    return settle(() => catalog.categoryById(this.#stmts, id));
  }
  feedById(id: number): Promise<FeedAdminRecord | undefined> {
    return settle(() => catalog.feedById(this.#stmts, id));
  }
  languageById(id: number): Promise<LanguageRecord | undefined> {
    return settle(() => catalog.languageById(this.#stmts, id));
  }
  smartCategoryById(id: number): Promise<SmartCategoryRecord | undefined> {
    return settle(() => catalog.smartCategoryById(this.#stmts, id));
  }
  smartCategoryByKey(key: string): Promise<SmartCategoryRecord | undefined> {
    return settle(() => catalog.smartCategoryByKey(this.#stmts, key));
  }

  recordClick(
    postId: number,
    clientHash: string,
    at: number,
    dedupeWindowMs: number,
  ): Promise<{ link: string } | undefined> {
    return settle(() => activity.recordClick(this.#db, this.#stmts, postId, clientHash, at, dedupeWindowMs));
  }
  installSecret(): Promise<string> {
    return settle(() => activity.installSecret(this.#stmts));
  }
  installSetting(name: string, propose: () => string): Promise<string> {
    return settle(() => activity.installSetting(this.#stmts, name, propose));
  }
  insertClick(postId: number, clientHash: string, at: number): Promise<void> {
    return settle(() => activity.insertClicks(this.#db, this.#stmts, [{ postId, clientHash, at }]));
  }
  insertClicks(clicks: readonly ClickRow[]): Promise<void> {
    return settle(() => activity.insertClicks(this.#db, this.#stmts, clicks));
  }

  addCategory(name: string): Promise<CategoryRecord> {
    return settle(() => catalogWriter.addCategory(this.#db, this.#stmts, name));
  }
  removeCategory(id: number): Promise<boolean> {
    return settle(() => catalogWriter.removeCategory(this.#db, this.#stmts, id));
  }
  addSmartCategory(args: { name: string; query: string; key?: string }): Promise<SmartCategoryRecord> {
    return settle(() => catalogWriter.addSmartCategory(this.#db, this.#stmts, args));
  }
  removeSmartCategory(id: number): Promise<boolean> {
    // One transaction: the smart category and its query's counts go together.
    return settle(() => this.#db.transaction(() => catalogWriter.removeSmartCategory(this.#stmts, id))());
  }
  ensureLanguage(code: string, name?: string): Promise<LanguageRecord> {
    return settle(() => catalogWriter.ensureLanguage(this.#db, this.#stmts, code, name));
  }
  addFeed(feed: NewFeed): Promise<FeedAdminRecord> {
    return settle(() => feedWriter.addFeed(this.#db, this.#stmts, feed));
  }
  removeFeed(id: number): Promise<boolean> {
    return settle(() => feedWriter.removeFeed(this.#db, this.#stmts, id));
  }
  adminFeeds(): Promise<FeedAdminRecord[]> {
    return settle(() => catalog.adminFeeds(this.#stmts));
  }

  dueFeeds(now: number, opts: { all?: boolean; limit?: number } = {}): Promise<FeedAdminRecord[]> {
    return settle(() => catalog.dueFeeds(this.#stmts, now, opts.all ?? false, opts.limit ?? -1));
  }
  claimDueFeeds(now: number, opts: FeedClaimOptions): Promise<FeedAdminRecord[]> {
    return settle(() => claims.claimDueFeeds(this.#db, now, opts));
  }
  renewFeedClaim(feedId: number, worker: string, now: number, leaseMs: number): Promise<boolean> {
    return settle(() => claims.renewFeedClaim(this.#db, feedId, worker, now, leaseMs));
  }
  releaseFeedClaim(feedId: number, worker: string): Promise<void> {
    return settle(() => claims.releaseFeedClaims(this.#db, [feedId], worker));
  }
  releaseFeedClaims(feedIds: readonly number[], worker: string): Promise<void> {
    return settle(() => claims.releaseFeedClaims(this.#db, feedIds, worker));
  }
  applyFeedUpdate(feedId: number, update: FeedUpdate): Promise<FeedUpdateResult> {
    return settle(() => {
      const result = feedWriter.applyFeedUpdate(this.#db, this.#stmts, feedId, update);
      if (update.posts.length > 0) this.#postsCommitted();
      return result;
    });
  }

  applyFeedUpdates(
    updates: ReadonlyArray<{ feedId: number; update: FeedUpdate }>,
  ): Promise<FeedUpdateOutcome[]> {
    return settle(() => {
      const outcomes = feedWriter.applyFeedUpdates(this.#db, this.#stmts, updates);
      if (updates.some((u) => u.update.posts.length > 0)) this.#postsCommitted();
      return outcomes;
    });
  }

  postKeys(
    feedId: number,
    keys: { guids: readonly string[]; links: readonly string[] },
  ): Promise<Array<{ guid: string; link: string }>> {
    return settle(() => postKeys(this.#stmts, feedId, keys));
  }

  alsoIn(postIds: readonly number[]): Promise<Map<number, StoryFeedRef[]>> {
    return settle(() => stories.alsoIn(this.#stmts, postIds));
  }
  storyMerges(limit: number): Promise<StoryMergeRecord[]> {
    return settle(() => stories.storyMerges(this.#stmts, limit));
  }
  splitStory(postId: number): Promise<boolean> {
    return settle(() => feedWriter.splitStory(this.#db, this.#stmts, postId));
  }

  optimizeSearchIndex(): Promise<void> {
    return settle(() => optimizeSearchIndex(this.#db));
  }
  mergeSearchIndexStep(pages?: number): Promise<boolean> {
    return settle(() => mergeSearchIndexStep(this.#db, pages));
  }

  ping(): Promise<boolean> {
    try {
      return Promise.resolve(this.#db.prepare("SELECT 1 AS ok").get() !== undefined);
    } catch {
      return Promise.resolve(false);
    }
  }
  dataVersion(): Promise<string> {
    return settle(() => {
      const history = writeCounts(this.#history());
      return `${this.#version()}.${history.changes}.${history.others}`;
    });
  }
  dataVersionBesidesSearchHistory(): Promise<string> {
    // The history has a file of its own: no write to it, by any process, moves these counts.
    return settle(() => this.#version());
  }
  #version(): string {
    const { changes, others } = writeCounts(this.#stmts);
    return `${changes}.${others}`;
  }
  async close(): Promise<void> {
    // The checkpoint thread's connection closes first, so that the writer's close, as the last
    // connection, checkpoints what is left and removes the log.
    await this.#checkpointer?.stop();
    closeSearchHistory(this.#db);
    if (this.#db.open) this.#db.close();
  }
}

/**
 * Opens (creating when missing, with its folder) and migrates a SQLite database file, or an
 * in-memory one for `:memory:`.
 *
 * @example
 * const store = openSqliteStore("./data/feeds.db");
 * await store.recentPosts({ limit: 20, offset: 0, languageIds: null });
 */
export function openSqliteStore(path: string): SqliteStore {
  const db = openSqliteDatabase(path);
  try {
    migrateSqlite(db);
    // Smart categories' queries with no counts yet (a store of an older build wrote them) are
    // counted, and days a write left noted counted again (sqlite-counted-searches.ts).
    const stmts = new StatementCache(db);
    db.transaction(() => {
      syncCountedSearches(stmts, stderrProgress());
      settleSearchDays(stmts);
    }).immediate();
    // The writer's cache, after the migrations (which commit seldom and read much); the query
    // threads' connections (openSqliteReader) keep theirs.
    fitWriterCache(db, stmts);
    return new SqliteStore(db);
  } catch (error) {
    closeSearchHistory(db);
    db.close();
    throw translateSqliteError(error);
  }
}
