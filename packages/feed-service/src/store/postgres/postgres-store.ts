/**
 * The PostgreSQL dialect of the `Store` (driver `pg`, a connection pool per process). Reads of the
 * 16 operations may go to a read replica (`readUrl`); every write (clicks, search history, admin,
 * ingest) and every read a write depends on goes to the primary. The reads of the operations run
 * on their own pool, with the query deadline and the heavy lane of `PostgresReadSide`; writes
 * have no deadline (a migration or a large refresh may take longer). The SQL lives in the query
 * and writer modules next to this file; this class wires them to the interface and owns the pools.
 */
import type pg from "pg";
import { foldLanguageClauses, type SearchQuery, usesOperators } from "../../search/search-query.js";
import type { WarmProgress, WarmReport } from "../cache-warm.js";
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
import * as activity from "./postgres-activity-writer.js";
import { PostgresAdminStore } from "./postgres-admin-store.js";
import { CatalogCopy } from "./postgres-catalog-copy.js";
import * as catalog from "./postgres-catalog-queries.js";
import * as catalogWriter from "./postgres-catalog-writer.js";
import { ClickLevelsRefresher, type RefreshReport, refreshClickLevels } from "./postgres-click-levels.js";
import { openPostgresPool, rows } from "./postgres-connection.js";
import { ConnectionWarmUp } from "./postgres-connection-warm.js";
import { syncCountedSearches } from "./postgres-counted-searches.js";
import { syncCountedWords } from "./postgres-counted-words.js";
import { claimDueFeeds, releaseFeedClaims, renewFeedClaim } from "./postgres-feed-claims.js";
import { type FeedName, FeedNames } from "./postgres-feed-names.js";
import * as feedWriter from "./postgres-feed-writer.js";
import { migratePostgres } from "./postgres-migrations.js";
import { allClicks, mostPopularPosts, warmPopularPosts } from "./postgres-popular-posts.js";
import * as posts from "./postgres-post-queries.js";
import { PostgresReadSide, type ReadSideOptions, resolveReadSideOptions } from "./postgres-read-side.js";
import { countSearchMatches } from "./postgres-search-count.js";
import { countWithOperators, searchWithOperators } from "./postgres-search-operators.js";
import { readSearchPlanning } from "./postgres-search-plan.js";
import { searchPosts } from "./postgres-search-queries.js";
import * as stories from "./postgres-story-reads.js";
import { warmPostgres } from "./postgres-warm.js";
import { PostgresWebSubStore } from "./postgres-websub-store.js";

/**
 * Settings of the read connections, besides the deadline:
 * - work_mem 32 MB: a search's bitmap of matching rows must stay exact (one bit per row) across
 *   the whole table; past work_mem it turns lossy and every post of a lossy page is re-read and
 *   re-matched (https://www.postgresql.org/docs/current/runtime-config-resource.html#GUC-WORK-MEM);
 *   32 MB leaves room over what the demo's million posts needed (bench/NOTES.md).
 * - no sequential scans where an index serves: the planner prices a text match like any
 *   comparison, so for a common word it would rather read the whole table, decompressing every
 *   post's words, than the index. Every read of the operations
 *   has an index to use; a table without one is still scanned.
 * - no parallel workers: the reads are built to touch few rows, and on a busy server a worker per
 *   query only takes cores from the other queries.
 * - no JIT compilation: servers built with LLVM compile every plan estimated above
 *   `jit_above_cost` (100,000 by default), again at each custom plan, and the plan cache makes one
 *   for most executions of these prepared statements, whose cost follows the words searched
 *   (https://www.postgresql.org/docs/current/jit-decision.html, and PREPARE's notes); JIT is
 *   meant for long analytical queries, and a common word's search is estimated near that cost yet
 *   short. (The servers the tests and benchmarks start are built without JIT: not measured here.)
 */
const READ_SETTINGS = {
  work_mem: "32MB",
  enable_seqscan: "off",
  max_parallel_workers_per_gather: 0,
  jit: "off",
};

/** Pages starting past this many posts go through the heavy lane. */
const DEEP_OFFSET = 1000;

export class PostgresStore implements Store {
  readonly dialect = "postgres" as const;
  readonly #pool: pg.Pool;
  readonly #read: PostgresReadSide;
  /** Feed names for `feed:`, read again only after a feed is added, renamed or removed. */
  readonly #feedNames = new FeedNames();
  /** /click's clicks, stored together when they arrive while every connection is taken. */
  readonly #clicks: activity.ClickWriter;
  /** The refreshes of the popular posts' click levels (postgres-click-levels.ts), on the primary. */
  readonly #levels: ClickLevelsRefresher;
  /**
   * The catalogue lists kept in the process until the database says they changed
   * (postgres-catalog-copy.ts); none when the reads go to a replica, whose connections get no
   * notifications and may lag the primary that sends them.
   */
  readonly #catalog: CatalogCopy | null;

  /** What each read connection runs before its first query (postgres-connection-warm.ts). */
  readonly #connections: ConnectionWarmUp;
  /** The last choice and count of the common words (postgres-counted-words.ts), settled. */
  #countedWords: Promise<unknown> = Promise.resolve();
  /** Takes an open primary pool and read side on a migrated database; use `openPostgresStore` to open a URL. */
  /** WebSub state lives on the primary: each read there decides a write. */
  readonly websub: PostgresWebSubStore;
  readonly admin: PostgresAdminStore;

  constructor(
    pool: pg.Pool,
    read: PostgresReadSide,
    connections = new ConnectionWarmUp(),
    catalogCopy: CatalogCopy | null = null,
  ) {
    this.#pool = pool;
    this.#catalog = catalogCopy;
    // As many calls as the pool has connections: clicks take no fewer than one by one would.
    this.#clicks = new activity.ClickWriter(pool, pool.options.max ?? 10);
    this.#levels = new ClickLevelsRefresher(pool);
    this.#connections = connections;
    this.websub = new PostgresWebSubStore(pool);
    this.admin = new PostgresAdminStore(pool);
    this.#read = read;
  }

  /** Both pools' connections: the writer's and the read side's (pg.Pool's own counts). */
  connectionStats(): ConnectionStats {
    const pools = this.#read.pool === this.#pool ? [this.#pool] : [this.#pool, this.#read.pool];
    let open = 0;
    let busy = 0;
    let waiting = 0;
    for (const pool of pools) {
      open += pool.totalCount;
      busy += pool.totalCount - pool.idleCount;
      waiting += pool.waitingCount;
    }
    return { open, busy, waiting };
  }

  /** The read side (its lane's load, and slow reads in tests). */
  get readSide(): PostgresReadSide {
    return this.#read;
  }

  recentPosts(page: PostPage): Promise<PostRecord[]> {
    return this.#read.read(page.offset > DEEP_OFFSET, (sql) => posts.recentPosts(sql, page));
  }
  postsByCategory(
    page: PostPage & { categoryId: number; sincePostId: number | null; sinceDate: number | null },
  ): Promise<PostRecord[]> {
    return this.#read.read(page.offset > DEEP_OFFSET, (sql) => posts.postsByCategory(sql, page));
  }
  postsByFeed(page: Omit<PostPage, "languageIds"> & { feedId: number }): Promise<PostRecord[]> {
    return this.#read.read(page.offset > DEEP_OFFSET, (sql) => stories.postsByFeedWithCopies(sql, page));
  }
  searchPosts(
    page: PostPage & { query: SearchQuery; sort: SearchSort; unscored?: boolean },
  ): Promise<Array<PostRecord & { score: number }>> {
    // Queries with operators (spec §4) have plans of their own (postgres-search-operators.ts).
    const folded = { ...page, ...foldLanguageClauses(page.query, page.languageIds) };
    return this.#read.heavy((sql) =>
      usesOperators(folded.query)
        ? searchWithOperators(sql, folded)
        : searchPosts(sql, folded, (s) => this.#feedNames.current(s)),
    );
  }
  mostPopularPosts(args: {
    since: number;
    limit: number;
    categoryId: number | null;
  }): Promise<Array<PostRecord & { periodClicks: number }>> {
    return this.#read.heavy((sql) => mostPopularPosts(sql, args, undefined, () => this.#levels.request()));
  }
  /** A catalogue list, from the kept copy when there is one (see #catalog). */
  #kept<T>(key: string, read: () => Promise<T[]>): Promise<T[]> {
    return this.#catalog === null ? read() : this.#catalog.get(key, read);
  }
  /** The kept catalogue lists (tests). */
  get catalogCopy(): CatalogCopy | null {
    return this.#catalog;
  }
  categories(): Promise<CategoryRecord[]> {
    return this.#kept("categories", () => this.#read.cheap((sql) => catalog.categories(sql)));
  }
  smartCategories(): Promise<SmartCategoryRecord[]> {
    return this.#kept("smart_categories", () => this.#read.cheap((sql) => catalog.smartCategories(sql)));
  }
  languages(): Promise<LanguageRecord[]> {
    return this.#kept("languages", () => this.#read.cheap((sql) => catalog.languages(sql)));
  }
  mostPopularFeeds(args: {
    since: number;
    limit: number;
  }): Promise<Array<FeedRecord & { periodClicks: number }>> {
    return this.#read.heavy((sql) => catalog.mostPopularFeeds(sql, args));
  }
  mostProlificFeeds(args: {
    since: number;
    limit: number;
  }): Promise<Array<FeedRecord & { periodPosts: number }>> {
    return this.#read.heavy((sql) => catalog.mostProlificFeeds(sql, args));
  }
  feeds(filter?: { categoryId?: number; languageId?: number }): Promise<FeedRecord[]> {
    return this.#kept(`feeds/${filter?.categoryId ?? ""}/${filter?.languageId ?? ""}`, () =>
      this.#read.cheap((sql) => catalog.feeds(sql, filter)),
    );
  }
  feedNames(): Promise<FeedName[]> {
    return this.#read.cheap((sql) => this.#feedNames.read(sql));
  }
  searchHistory(limit: number): Promise<SearchHistoryRecord[]> {
    return this.#read.cheap((sql) => catalog.searchHistory(sql, limit));
  }
  recordSearch(terms: string, at: number): Promise<void> {
    return activity.recordSearch(this.#pool, terms, at);
  }
  aggregateLanguageData(now: number): Promise<LanguageDataRecord[]> {
    return this.#read.heavy((sql) => catalog.aggregateLanguageData(sql, now));
  }
  countSearchMatches(args: {
    query: SearchQuery;
    languageIds: readonly number[] | null;
    cap: number;
  }): Promise<number> {
    const folded = { ...args, ...foldLanguageClauses(args.query, args.languageIds) };
    return this.#read.heavy((sql) =>
      usesOperators(folded.query) ? countWithOperators(sql, folded) : countSearchMatches(sql, folded),
    );
  }
  failingFeeds(): Promise<FeedFailureRecord[]> {
    return this.#read.cheap((sql) => catalog.failingFeeds(sql));
  }

  categoryById(id: number): Promise<CategoryRecord | undefined> {
    return this.#read.cheap((sql) => catalog.categoryById(sql, id));
  }
  /** From the primary: ingest and the admin commands read a feed right after writing it. */
  feedById(id: number): Promise<FeedAdminRecord | undefined> {
    return catalog.feedById(this.#pool, id);
  }
  languageById(id: number): Promise<LanguageRecord | undefined> {
    return this.#read.cheap((sql) => catalog.languageById(sql, id));
  }
  smartCategoryById(id: number): Promise<SmartCategoryRecord | undefined> {
    return this.#read.cheap((sql) => catalog.smartCategoryById(sql, id));
  }
  smartCategoryByKey(key: string): Promise<SmartCategoryRecord | undefined> {
    return this.#read.cheap((sql) => catalog.smartCategoryByKey(sql, key));
  }

  recordClick(
    postId: number,
    clientHash: string,
    at: number,
    dedupeWindowMs: number,
  ): Promise<{ link: string } | undefined> {
    const recorded = this.#clicks.record(postId, clientHash, at, dedupeWindowMs);
    recorded.then(
      (found) => {
        if (found) this.#levels.clicked();
      },
      () => {},
    );
    return recorded;
  }
  /**
   * Brings the popular posts' click levels up to the clicks committed now (postgres-click-levels.ts);
   * the store does so itself after a few thousand of its clicks and when a read found them behind.
   */
  refreshClickLevels(): Promise<RefreshReport> {
    return refreshClickLevels(this.#pool);
  }
  installSecret(): Promise<string> {
    return activity.installSecret(this.#pool);
  }
  installSetting(name: string, propose: () => string): Promise<string> {
    return activity.installSetting(this.#pool, name, propose);
  }
  async insertClick(postId: number, clientHash: string, at: number): Promise<void> {
    await activity.insertClicks(this.#pool, [{ postId, clientHash, at }]);
    this.#levels.clicked();
  }
  async insertClicks(clicks: readonly ClickRow[]): Promise<void> {
    await activity.insertClicks(this.#pool, clicks);
    this.#levels.clicked(clicks.length);
  }

  addCategory(name: string): Promise<CategoryRecord> {
    return catalogWriter.addCategory(this.#pool, name);
  }
  removeCategory(id: number): Promise<boolean> {
    return catalogWriter.removeCategory(this.#pool, id);
  }
  async addSmartCategory(args: { name: string; query: string; key?: string }): Promise<SmartCategoryRecord> {
    const added = await catalogWriter.addSmartCategory(this.#pool, args);
    await syncCountedSearches(this.#pool);
    return added;
  }
  async removeSmartCategory(id: number): Promise<boolean> {
    const removed = await catalogWriter.removeSmartCategory(this.#pool, id);
    if (removed) await syncCountedSearches(this.#pool);
    return removed;
  }
  ensureLanguage(code: string, name?: string): Promise<LanguageRecord> {
    return catalogWriter.ensureLanguage(this.#pool, code, name);
  }
  addFeed(feed: NewFeed): Promise<FeedAdminRecord> {
    return feedWriter.addFeed(this.#pool, feed);
  }
  removeFeed(id: number): Promise<boolean> {
    return feedWriter.removeFeed(this.#pool, id);
  }
  adminFeeds(): Promise<FeedAdminRecord[]> {
    return catalog.adminFeeds(this.#pool);
  }

  dueFeeds(now: number, opts: { all?: boolean; limit?: number } = {}): Promise<FeedAdminRecord[]> {
    return catalog.dueFeeds(this.#pool, now, opts.all ?? false, opts.limit ?? -1);
  }
  claimDueFeeds(now: number, opts: FeedClaimOptions): Promise<FeedAdminRecord[]> {
    return claimDueFeeds(this.#pool, now, opts);
  }
  renewFeedClaim(feedId: number, worker: string, now: number, leaseMs: number): Promise<boolean> {
    return renewFeedClaim(this.#pool, feedId, worker, now, leaseMs);
  }
  releaseFeedClaim(feedId: number, worker: string): Promise<void> {
    return releaseFeedClaims(this.#pool, [feedId], worker);
  }
  releaseFeedClaims(feedIds: readonly number[], worker: string): Promise<void> {
    return releaseFeedClaims(this.#pool, feedIds, worker);
  }
  applyFeedUpdate(feedId: number, update: FeedUpdate): Promise<FeedUpdateResult> {
    return feedWriter.applyFeedUpdate(this.#pool, feedId, update);
  }
  applyFeedUpdates(
    updates: ReadonlyArray<{ feedId: number; update: FeedUpdate }>,
  ): Promise<FeedUpdateOutcome[]> {
    return feedWriter.applyFeedUpdates(this.#pool, updates);
  }
  async postKeys(
    feedId: number,
    keys: { guids: readonly string[]; links: readonly string[] },
  ): Promise<Array<{ guid: string; link: string }>> {
    if (keys.guids.length === 0 && keys.links.length === 0) return [];
    return rows(
      this.#pool,
      // The stories the feed carries as copies of another feed's post are among its entries too.
      `SELECT guid, link FROM posts WHERE feed_id = $1 AND (guid = ANY($2::text[]) OR link = ANY($3::text[]))
        UNION ALL SELECT guid, link FROM story_copies
        WHERE feed_id = $1 AND (guid = ANY($2::text[]) OR link = ANY($3::text[]))`,
      [feedId, keys.guids, keys.links],
    );
  }

  alsoIn(postIds: readonly number[]): Promise<Map<number, StoryFeedRef[]>> {
    return stories.alsoIn(this.#pool, postIds);
  }
  storyMerges(limit: number): Promise<StoryMergeRecord[]> {
    return stories.storyMerges(this.#pool, limit);
  }
  splitStory(postId: number): Promise<boolean> {
    return feedWriter.splitStory(this.#pool, postId);
  }

  async ping(): Promise<boolean> {
    try {
      await this.#pool.query("SELECT 1");
      await this.#read.pool.query("SELECT 1");
      return true;
    } catch {
      return false;
    }
  }
  /**
   * The WAL position of the server the reads go to: every committed write of any process moves it
   * (so does some housekeeping, which only costs a cache miss). On a replica it is the position
   * replayed so far, so a cache never holds an answer newer or older than what the replica shows.
   */
  async dataVersion(): Promise<string> {
    const [row] = await this.#read.cheap((sql) =>
      rows<{ v: string }>(sql, "SELECT coalesce(pg_last_wal_replay_lsn(), pg_current_wal_lsn())::text AS v"),
    );
    return row!.v;
  }
  /**
   * Loads the tables and indexes into the read server's shared buffers (see postgres-warm.ts),
   * opens the read pool to its full size with each connection warmed
   * (postgres-connection-warm.ts), then reads what sizes searches and walks, so that the first
   * one does not wait for it, and answers popular posts once in each way (warmPopularPosts).
   */
  async warmCache(onProgress?: WarmProgress): Promise<WarmReport> {
    const loaded = await warmPostgres(this.#read.pool, onProgress, undefined, this.#connections);
    const started = performance.now();
    const count = await this.#connections.fill(this.#read.pool, this.#read.options.poolSize);
    const report = { ...loaded, connections: { count, milliseconds: performance.now() - started } };
    await readSearchPlanning(this.#read.pool);
    // The total of all clicks, which a walk would otherwise wait for (each connection answered
    // popular posts once in each way as it was warmed: ConnectionWarmUp's prime).
    await allClicks(this.#read.pool);
    return report;
  }
  /**
   * Chooses the common words counted per day again from the statistics and counts the new ones
   * (postgres-counted-words.ts), after any such run under way; returns how many were counted.
   * Opening the store starts one in the background: until it ends, an uncounted word's deep date
   * pages are found by reading its matches, as exact and slower.
   */
  /** A refresh of the click levels in the background (see refreshClickLevels). */
  requestClickLevels(): void {
    this.#levels.request();
  }
  recountCommonWords(): Promise<number> {
    const run = this.#countedWords.then(() => syncCountedWords(this.#pool));
    this.#countedWords = run.catch(() => {});
    return run;
  }

  async close(): Promise<void> {
    await this.#catalog?.close();
    await this.#countedWords;
    await this.#clicks.drained();
    await this.#levels.drained();
    await this.#pool.end().catch(() => {});
    await this.#read.end().catch(() => {});
  }
}

export interface PostgresStoreOptions extends ReadSideOptions {
  /** The primary: a `postgres://` URL. */
  url: string;
  /** A read replica for the operations' reads (optional). */
  readUrl?: string;
  /** Work in this schema (created when missing). */
  schema?: string;
}

/**
 * Connects to (and migrates) a PostgreSQL database.
 *
 * @example
 * const store = await openPostgresStore({ url: "postgres://feeds@db.internal/feeds" });
 * await store.recentPosts({ limit: 20, offset: 0, languageIds: null });
 */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  const readOptions = resolveReadSideOptions(options);
  const onPrimary = options.readUrl === undefined || options.readUrl === options.url;
  const catalogCopy = onPrimary ? new CatalogCopy({ url: options.url, schema: options.schema }) : null;
  const pool = await openPostgresPool({
    url: options.url,
    schema: options.schema,
    max: readOptions.poolSize,
    ...(catalogCopy ? { onConnect: catalogCopy.onWriteConnection } : {}),
  });
  try {
    await migratePostgres(pool);
    // The smart categories' queries counted per day (a smart category added by an older build,
    // or copied by migrate-data, is counted here once).
    await syncCountedSearches(pool);
    // Its own pool even without a replica: the deadline (statement_timeout) must not stop writes.
    // Every read connection answers popular posts once in each way (warmPopularPosts) after its
    // tables: the first call on any of them then finds its statements prepared.
    const connections = new ConnectionWarmUp((client) => warmPopularPosts(client));
    const read = await openPostgresPool({
      url: options.readUrl ?? options.url,
      schema: options.schema,
      max: readOptions.poolSize,
      createSchema: false,
      settings: { ...READ_SETTINGS, statement_timeout: readOptions.queryTimeoutMs },
      onConnect: connections.onConnect,
    });
    // After the migrations: the lists are kept only once the triggers that drop them exist.
    await catalogCopy?.start();
    const store = new PostgresStore(pool, new PostgresReadSide(read, readOptions), connections, catalogCopy);
    // In the background: counting a newly common word reads all its matches. A run that fails
    // leaves the word uncounted (its pages exact, by the slower way) until the next open.
    store.recountCommonWords().catch(() => {});
    // The click levels brought up to the clicks written since the last refresh (another process's,
    // or migrate-data's), in the background: until then a read ranks another way.
    store.requestClickLevels();
    return store;
  } catch (error) {
    await catalogCopy?.close();
    await pool.end().catch(() => {});
    throw error;
  }
}
