/**
 * The SQLite store as `serve` uses it: every read of the 16 operations runs on a query thread with
 * its own read-only connection (sqlite-read-worker.ts), so the request thread only decodes,
 * dispatches and encodes; writes (clicks, search history, ingest, admin) stay on this thread's
 * connection, as SQLite has one writer anyway. Two lanes: the catalog lookups on a thread of their
 * own, everything else on `threads` threads (the cores), each call with the query deadline.
 */
import { FeedServiceError, type FeedServiceErrorCode, feedServiceErrorCodes } from "../../errors.js";
import type { SearchQuery } from "../../search/search-query.js";
import { ThreadLane, type ThreadLaneStats } from "../../threads/thread-lane.js";
import { workerEntryUrl } from "../../threads/worker-entry-url.js";
import type { AdminStore } from "../admin-store.js";
import type { WarmProgress, WarmReport } from "../cache-warm.js";
import {
  defaultHeavyQueries,
  defaultMaxQueued,
  defaultQueryTimeoutMs,
  overloadedError,
  type QueryLimits,
  queryTimeoutError,
} from "../query-limits.js";
import type {
  CategoryRecord,
  ClickRow,
  ConnectionStats,
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
import type { WebSubStore } from "../websub-store.js";
import { KeptRead } from "./sqlite-feed-names.js";
import { lightReadMethods, type SqliteReadMethod } from "./sqlite-read-methods.js";
import type { SqliteStore } from "./sqlite-store.js";
import { warmSqliteFile } from "./sqlite-warm.js";

const lightMethods = new Set<string>(lightReadMethods);
/** How many filtered feed lists are kept at most (one per category or language asked for). */
const maxKeptFeedLists = 256;
/** The nice value of the heavy query threads (0 is normal, 19 the lowest priority). */
const HEAVY_NICE = 10;

function workerError(reply: { code?: string; message: string }): Error {
  if (reply.code !== undefined && reply.code in feedServiceErrorCodes) {
    return new FeedServiceError(reply.code as FeedServiceErrorCode, reply.message);
  }
  // Not meant for clients (a bug, a driver error): adapters answer these with a generic message.
  return new Error(`query thread: ${reply.message}`);
}

export class SqlitePooledStore implements Store {
  readonly dialect = "sqlite" as const;
  readonly #main: SqliteStore;
  readonly #light: ThreadLane;
  readonly #heavy: ThreadLane;
  readonly #path: string;
  readonly #feedNames = new KeptRead<Promise<Array<{ feedId: number; feedName: string }>>>();
  readonly #categories = new KeptRead<Promise<readonly CategoryRecord[]>>();
  readonly #smartCategories = new KeptRead<Promise<readonly SmartCategoryRecord[]>>();
  readonly #languages = new KeptRead<Promise<readonly LanguageRecord[]>>();
  readonly #feeds = new Map<string, KeptRead<Promise<readonly FeedRecord[]>>>();

  /** WebSub state is written and read where the writes happen: the writer's connection. */
  get websub(): WebSubStore {
    return this.#main.websub;
  }
  /** Admin state too: sessions and changes must see their own writes at once. */
  get admin(): AdminStore {
    return this.#main.admin;
  }

  /** `writer` is the open, migrated store of `path`; the pool opens its own readers of the file. */
  constructor(writer: SqliteStore, path: string, limits: QueryLimits = {}) {
    this.#main = writer;
    this.#path = path;
    const timeoutMs = limits.queryTimeoutMs ?? defaultQueryTimeoutMs;
    const lane = (threads: number, nice: number, warm: boolean) =>
      new ThreadLane({
        entry: workerEntryUrl(import.meta.url, "sqlite-read-worker"),
        workerData: { path, nice, warm },
        threads,
        timeoutMs,
        maxQueued: limits.maxQueued ?? defaultMaxQueued,
        timeoutError: () => queryTimeoutError(timeoutMs),
        overloadError: overloadedError,
        workerError,
      });
    // The heavy threads run at a lower CPU priority than this thread and the light lane: with every
    // core busy with searches, a request still gets decoded and a cheap call answered at once.
    this.#light = lane(1, 0, false);
    this.#heavy = lane(limits.threads ?? defaultHeavyQueries("sqlite", limits.processes), HEAVY_NICE, true);
  }

  /** Resolves once every query thread has opened its connection (or failed to start). */
  async ready(): Promise<void> {
    await Promise.all([this.#light.ready(), this.#heavy.ready()]);
  }

  /** Reads the database file (and its WAL) once, into the OS page cache (see sqlite-warm.ts). */
  warmCache(onProgress?: WarmProgress): Promise<WarmReport> {
    return warmSqliteFile(this.#path, onProgress);
  }

  /** Threads, busy, queued, and counts of replaced threads, timeouts and shed calls, per lane. */
  get laneStats(): { light: ThreadLaneStats; heavy: ThreadLaneStats } {
    return { light: this.#light.stats, heavy: this.#heavy.stats };
  }

  /** Each query thread holds one connection; the calling thread holds the writer's. */
  connectionStats(): ConnectionStats {
    const { light, heavy } = this.laneStats;
    return {
      open: light.threads + heavy.threads + 1,
      busy: light.busy + heavy.busy,
      waiting: light.queued + heavy.queued,
    };
  }

  #read<T>(method: SqliteReadMethod, ...args: unknown[]): Promise<T> {
    const lane = lightMethods.has(method) ? this.#light : this.#heavy;
    return lane.run(method, args) as Promise<T>;
  }

  // --- reads of the 16 operations: on the query threads ---
  recentPosts(page: PostPage): Promise<PostRecord[]> {
    return this.#read("recentPosts", page);
  }
  postsByCategory(
    page: PostPage & { categoryId: number; sincePostId: number | null; sinceDate: number | null },
  ): Promise<PostRecord[]> {
    return this.#read("postsByCategory", page);
  }
  postsByFeed(page: Omit<PostPage, "languageIds"> & { feedId: number }): Promise<PostRecord[]> {
    return this.#read("postsByFeed", page);
  }
  searchPosts(
    page: PostPage & { query: SearchQuery; sort: SearchSort; unscored?: boolean },
  ): Promise<Array<PostRecord & { score: number }>> {
    return this.#read("searchPosts", page);
  }
  mostPopularPosts(args: {
    since: number;
    limit: number;
    categoryId: number | null;
  }): Promise<Array<PostRecord & { periodClicks: number }>> {
    return this.#read("mostPopularPosts", args);
  }
  mostPopularFeeds(args: {
    since: number;
    limit: number;
  }): Promise<Array<FeedRecord & { periodClicks: number }>> {
    return this.#read("mostPopularFeeds", args);
  }
  mostProlificFeeds(args: {
    since: number;
    limit: number;
  }): Promise<Array<FeedRecord & { periodPosts: number }>> {
    return this.#read("mostProlificFeeds", args);
  }
  aggregateLanguageData(now: number): Promise<LanguageDataRecord[]> {
    return this.#read("aggregateLanguageData", now);
  }
  countSearchMatches(args: {
    query: SearchQuery;
    languageIds: readonly number[] | null;
    cap: number;
  }): Promise<number> {
    return this.#read("countSearchMatches", args);
  }
  failingFeeds(): Promise<FeedFailureRecord[]> {
    return this.#read("failingFeeds");
  }
  /**
   * The catalog lists are kept on this thread until the file is written (by any connection): a
   * cheap call then answers in one turn of this thread's event loop, with no query thread to wake
   * and no reply to wait for behind the heavy answers (spec §4: cheap calls keep answering at once
   * while heavy ones run). Each caller gets its own array of the kept records.
   */
  #kept<T>(
    kept: KeptRead<Promise<readonly T[]>>,
    method: SqliteReadMethod,
    ...args: unknown[]
  ): Promise<T[]> {
    const rows = kept.get(this.#main.writeVersion(), () => this.#read<readonly T[]>(method, ...args));
    rows.catch(() => kept.forget(rows));
    return rows.then((list) => [...list]);
  }
  categories(): Promise<CategoryRecord[]> {
    return this.#kept(this.#categories, "categories");
  }
  smartCategories(): Promise<SmartCategoryRecord[]> {
    return this.#kept(this.#smartCategories, "smartCategories");
  }
  languages(): Promise<LanguageRecord[]> {
    return this.#kept(this.#languages, "languages");
  }
  feeds(filter?: { categoryId?: number; languageId?: number }): Promise<FeedRecord[]> {
    const key = `${filter?.categoryId ?? ""}/${filter?.languageId ?? ""}`;
    let kept = this.#feeds.get(key);
    if (kept === undefined) {
      // One list per filter asked for (a category's, a language's); past the bound, filters that
      // name nothing cannot grow the map: their lists are read each time.
      if (this.#feeds.size >= maxKeptFeedLists) return this.#read("feeds", filter);
      kept = new KeptRead();
      this.#feeds.set(key, kept);
    }
    return this.#kept(kept, "feeds", filter);
  }
  /**
   * Kept on this thread until a feed changes (sqlite-feed-names.ts): the version is the writer's
   * connection's, which counts this process's feed changes and sees any other connection's
   * commit; a call while unchanged neither reads nor transfers the names, and hands back the same
   * list, whose words operations/search-filters.ts analysed once.
   */
  feedNames(): Promise<Array<{ feedId: number; feedName: string }>> {
    const names = this.#feedNames.get(this.#main.feedNamesVersion(), () =>
      this.#read<Array<{ feedId: number; feedName: string }>>("feedNames"),
    );
    names.catch(() => this.#feedNames.forget(names));
    return names;
  }
  searchHistory(limit: number): Promise<SearchHistoryRecord[]> {
    return this.#read("searchHistory", limit);
  }
  categoryById(id: number): Promise<CategoryRecord | undefined> {
    return this.#read("categoryById", id);
  }
  feedById(id: number): Promise<FeedAdminRecord | undefined> {
    return this.#read("feedById", id);
  }
  languageById(id: number): Promise<LanguageRecord | undefined> {
    return this.#read("languageById", id);
  }
  smartCategoryById(id: number): Promise<SmartCategoryRecord | undefined> {
    return this.#read("smartCategoryById", id);
  }
  smartCategoryByKey(key: string): Promise<SmartCategoryRecord | undefined> {
    return this.#read("smartCategoryByKey", key);
  }

  // --- writes, ingest and admin: on this thread's connection ---
  recordSearch(terms: string, at: number): Promise<void> {
    return this.#main.recordSearch(terms, at);
  }
  recordClick(
    postId: number,
    clientHash: string,
    at: number,
    dedupeWindowMs: number,
  ): Promise<{ link: string } | undefined> {
    return this.#main.recordClick(postId, clientHash, at, dedupeWindowMs);
  }
  installSecret(): Promise<string> {
    return this.#main.installSecret();
  }
  installSetting(name: string, propose: () => string): Promise<string> {
    return this.#main.installSetting(name, propose);
  }
  insertClick(postId: number, clientHash: string, at: number): Promise<void> {
    return this.#main.insertClick(postId, clientHash, at);
  }
  insertClicks(clicks: readonly ClickRow[]): Promise<void> {
    return this.#main.insertClicks(clicks);
  }
  addCategory(name: string): Promise<CategoryRecord> {
    return this.#main.addCategory(name);
  }
  removeCategory(id: number): Promise<boolean> {
    return this.#main.removeCategory(id);
  }
  addSmartCategory(args: { name: string; query: string; key?: string }): Promise<SmartCategoryRecord> {
    return this.#main.addSmartCategory(args);
  }
  removeSmartCategory(id: number): Promise<boolean> {
    return this.#main.removeSmartCategory(id);
  }
  ensureLanguage(code: string, name?: string): Promise<LanguageRecord> {
    return this.#main.ensureLanguage(code, name);
  }
  addFeed(feed: NewFeed): Promise<FeedAdminRecord> {
    return this.#main.addFeed(feed);
  }
  removeFeed(id: number): Promise<boolean> {
    return this.#main.removeFeed(id);
  }
  adminFeeds(): Promise<FeedAdminRecord[]> {
    return this.#main.adminFeeds();
  }
  dueFeeds(now: number, opts?: { all?: boolean; limit?: number }): Promise<FeedAdminRecord[]> {
    return this.#main.dueFeeds(now, opts);
  }
  claimDueFeeds(now: number, opts: FeedClaimOptions): Promise<FeedAdminRecord[]> {
    return this.#main.claimDueFeeds(now, opts);
  }
  renewFeedClaim(feedId: number, worker: string, now: number, leaseMs: number): Promise<boolean> {
    return this.#main.renewFeedClaim(feedId, worker, now, leaseMs);
  }
  releaseFeedClaim(feedId: number, worker: string): Promise<void> {
    return this.#main.releaseFeedClaim(feedId, worker);
  }
  releaseFeedClaims(feedIds: readonly number[], worker: string): Promise<void> {
    return this.#main.releaseFeedClaims(feedIds, worker);
  }
  applyFeedUpdate(feedId: number, update: FeedUpdate): Promise<FeedUpdateResult> {
    return this.#main.applyFeedUpdate(feedId, update);
  }
  applyFeedUpdates(
    updates: ReadonlyArray<{ feedId: number; update: FeedUpdate }>,
  ): Promise<FeedUpdateOutcome[]> {
    return this.#main.applyFeedUpdates(updates);
  }
  postKeys(
    feedId: number,
    keys: { guids: readonly string[]; links: readonly string[] },
  ): Promise<Array<{ guid: string; link: string }>> {
    return this.#main.postKeys(feedId, keys);
  }
  alsoIn(postIds: readonly number[]): Promise<Map<number, StoryFeedRef[]>> {
    return this.#main.alsoIn(postIds);
  }
  storyMerges(limit: number): Promise<StoryMergeRecord[]> {
    return this.#main.storyMerges(limit);
  }
  splitStory(postId: number): Promise<boolean> {
    return this.#main.splitStory(postId);
  }
  optimizeSearchIndex(): Promise<void> {
    return this.#main.optimizeSearchIndex();
  }
  mergeSearchIndexStep(pages?: number): Promise<boolean> {
    return this.#main.mergeSearchIndexStep(pages);
  }
  ping(): Promise<boolean> {
    return this.#main.ping();
  }
  dataVersion(): Promise<string> {
    return this.#main.dataVersion();
  }
  dataVersionBesidesSearchHistory(): Promise<string> {
    return this.#main.dataVersionBesidesSearchHistory();
  }
  async close(): Promise<void> {
    await Promise.all([this.#light.close(), this.#heavy.close()]);
    await this.#main.close();
  }
}
