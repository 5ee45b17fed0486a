/**
 * The PostgreSQL dialect of the `Store` (driver `pg`, a connection pool per process). Reads of the
 * 16 operations may go to a read replica (`readUrl`); every write (clicks, search history, admin,
 * ingest) and every read a write depends on goes to the primary. The SQL lives in the query and
 * writer modules next to this file; this class wires them to the interface and owns the pools.
 */
import type pg from "pg";
import type { SearchQuery } from "../../search/search-query.js";
import type {
  CategoryRecord,
  FeedAdminRecord,
  FeedClaimOptions,
  FeedRecord,
  FeedUpdate,
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
} from "../store.js";
import * as activity from "./postgres-activity-writer.js";
import * as catalog from "./postgres-catalog-queries.js";
import * as catalogWriter from "./postgres-catalog-writer.js";
import { openPostgresPool, rows } from "./postgres-connection.js";
import { claimDueFeeds, releaseFeedClaim } from "./postgres-feed-claims.js";
import * as feedWriter from "./postgres-feed-writer.js";
import { migratePostgres } from "./postgres-migrations.js";
import * as posts from "./postgres-post-queries.js";
import { searchPosts } from "./postgres-search-queries.js";

export class PostgresStore implements Store {
  readonly dialect = "postgres" as const;
  readonly #pool: pg.Pool;
  readonly #read: pg.Pool;

  /** Takes open pools on a migrated database; use `openPostgresStore` to open a URL. */
  constructor(pool: pg.Pool, readPool: pg.Pool = pool) {
    this.#pool = pool;
    this.#read = readPool;
  }

  recentPosts(page: PostPage): Promise<PostRecord[]> {
    return posts.recentPosts(this.#read, page);
  }
  postsByCategory(
    page: PostPage & { categoryId: number; sincePostId: number | null; sinceDate: number | null },
  ): Promise<PostRecord[]> {
    return posts.postsByCategory(this.#read, page);
  }
  postsByFeed(page: Omit<PostPage, "languageIds"> & { feedId: number }): Promise<PostRecord[]> {
    return posts.postsByFeed(this.#read, page);
  }
  searchPosts(
    page: PostPage & { query: SearchQuery; sort: SearchSort },
  ): Promise<Array<PostRecord & { score: number }>> {
    return searchPosts(this.#read, page);
  }
  mostPopularPosts(args: {
    since: number;
    limit: number;
    categoryId: number | null;
  }): Promise<Array<PostRecord & { periodClicks: number }>> {
    return posts.mostPopularPosts(this.#read, args);
  }
  categories(): Promise<CategoryRecord[]> {
    return catalog.categories(this.#read);
  }
  smartCategories(): Promise<SmartCategoryRecord[]> {
    return catalog.smartCategories(this.#read);
  }
  languages(): Promise<LanguageRecord[]> {
    return catalog.languages(this.#read);
  }
  mostPopularFeeds(args: {
    since: number;
    limit: number;
  }): Promise<Array<FeedRecord & { periodClicks: number }>> {
    return catalog.mostPopularFeeds(this.#read, args);
  }
  mostProlificFeeds(args: {
    since: number;
    limit: number;
  }): Promise<Array<FeedRecord & { periodPosts: number }>> {
    return catalog.mostProlificFeeds(this.#read, args);
  }
  feeds(filter?: { categoryId?: number; languageId?: number }): Promise<FeedRecord[]> {
    return catalog.feeds(this.#read, filter);
  }
  searchHistory(limit: number): Promise<SearchHistoryRecord[]> {
    return catalog.searchHistory(this.#read, limit);
  }
  recordSearch(terms: string, at: number): Promise<void> {
    return activity.recordSearch(this.#pool, terms, at);
  }
  aggregateLanguageData(now: number): Promise<LanguageDataRecord[]> {
    return catalog.aggregateLanguageData(this.#read, now);
  }

  categoryById(id: number): Promise<CategoryRecord | undefined> {
    return catalog.categoryById(this.#read, id);
  }
  /** From the primary: ingest and the admin commands read a feed right after writing it. */
  feedById(id: number): Promise<FeedAdminRecord | undefined> {
    return catalog.feedById(this.#pool, id);
  }
  languageById(id: number): Promise<LanguageRecord | undefined> {
    return catalog.languageById(this.#read, id);
  }
  smartCategoryById(id: number): Promise<SmartCategoryRecord | undefined> {
    return catalog.smartCategoryById(this.#read, id);
  }
  smartCategoryByKey(key: string): Promise<SmartCategoryRecord | undefined> {
    return catalog.smartCategoryByKey(this.#read, key);
  }

  recordClick(
    postId: number,
    clientHash: string,
    at: number,
    dedupeWindowMs: number,
  ): Promise<{ link: string } | undefined> {
    return activity.recordClick(this.#pool, postId, clientHash, at, dedupeWindowMs);
  }
  installSecret(): Promise<string> {
    return activity.installSecret(this.#pool);
  }
  insertClick(postId: number, clientHash: string, at: number): Promise<void> {
    return activity.insertClick(this.#pool, postId, clientHash, at);
  }

  addCategory(name: string): Promise<CategoryRecord> {
    return catalogWriter.addCategory(this.#pool, name);
  }
  removeCategory(id: number): Promise<boolean> {
    return catalogWriter.removeCategory(this.#pool, id);
  }
  addSmartCategory(args: { name: string; query: string; key?: string }): Promise<SmartCategoryRecord> {
    return catalogWriter.addSmartCategory(this.#pool, args);
  }
  removeSmartCategory(id: number): Promise<boolean> {
    return catalogWriter.removeSmartCategory(this.#pool, id);
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
  releaseFeedClaim(feedId: number, worker: string): Promise<void> {
    return releaseFeedClaim(this.#pool, feedId, worker);
  }
  applyFeedUpdate(feedId: number, update: FeedUpdate): Promise<FeedUpdateResult> {
    return feedWriter.applyFeedUpdate(this.#pool, feedId, update);
  }
  async postKeys(
    feedId: number,
    keys: { guids: readonly string[]; links: readonly string[] },
  ): Promise<Array<{ guid: string; link: string }>> {
    if (keys.guids.length === 0 && keys.links.length === 0) return [];
    return rows(
      this.#pool,
      "SELECT guid, link FROM posts WHERE feed_id = $1 AND (guid = ANY($2::text[]) OR link = ANY($3::text[]))",
      [feedId, keys.guids, keys.links],
    );
  }

  async ping(): Promise<boolean> {
    try {
      await this.#pool.query("SELECT 1");
      if (this.#read !== this.#pool) await this.#read.query("SELECT 1");
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
    const [row] = await rows<{ v: string }>(
      this.#read,
      "SELECT coalesce(pg_last_wal_replay_lsn(), pg_current_wal_lsn())::text AS v",
    );
    return row!.v;
  }
  async close(): Promise<void> {
    await this.#pool.end().catch(() => {});
    if (this.#read !== this.#pool) await this.#read.end().catch(() => {});
  }
}

export interface PostgresStoreOptions {
  /** The primary: a `postgres://` URL. */
  url: string;
  /** A read replica for the operations' reads (optional). */
  readUrl?: string;
  /** Work in this schema (created when missing). */
  schema?: string;
  /** Connections per pool (default 10). */
  poolSize?: number;
}

/**
 * Connects to (and migrates) a PostgreSQL database.
 *
 * @example
 * const store = await openPostgresStore({ url: "postgres://feeds@db.internal/feeds" });
 * await store.recentPosts({ limit: 20, offset: 0, languageIds: null });
 */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  const pool = await openPostgresPool({ url: options.url, schema: options.schema, max: options.poolSize });
  try {
    await migratePostgres(pool);
    const read = options.readUrl
      ? await openPostgresPool({
          url: options.readUrl,
          schema: options.schema,
          max: options.poolSize,
          createSchema: false,
        })
      : pool;
    return new PostgresStore(pool, read);
  } catch (error) {
    await pool.end().catch(() => {});
    throw error;
  }
}
