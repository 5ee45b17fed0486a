/**
 * The store: the only part of the feed service that speaks SQL. One interface, one implementation
 * per dialect (`sqlite/`, later `postgres/`); the operation table, ingest, the demo loader and the
 * admin commands all go through it. Every method is async so that both dialects fit; instants are
 * epoch milliseconds (UTC) everywhere.
 */
import type { StoryKeys } from "../dedupe/story-keys.js";
import type { SearchQuery } from "../search/search-query.js";
import type { AdminStore } from "./admin-store.js";
import type { WarmProgress, WarmReport } from "./cache-warm.js";
import type { PostIndexText } from "./index-text.js";
import type { WebSubStore } from "./websub-store.js";

/** The post column set of the spec (§4), minus `trackingLink`, which the operation layer builds. */
export interface PostRecord {
  postId: number;
  postTitle: string;
  postLink: string;
  postExcerpt: string;
  postDate: number;
  feedId: number;
  feedName: string;
  categoryId: number | null;
  categoryName: string | null;
  languageId: number;
  clicks: number;
}

export interface FeedRecord {
  feedId: number;
  feedName: string;
  feedUrl: string;
  siteUrl: string | null;
  feedDescription: string | null;
  categoryId: number | null;
  categoryName: string | null;
  languageId: number;
  postCount: number;
  lastPostDate: number | null;
}

export interface CategoryRecord {
  categoryId: number;
  categoryName: string;
  feedCount: number;
}

export interface SmartCategoryRecord {
  smartCategoryId: number;
  smartCategoryKey: string;
  smartCategoryName: string;
  smartCategoryQuery: string;
}

export interface LanguageRecord {
  languageId: number;
  languageName: string;
  languageCode: string;
}

export interface SearchHistoryRecord {
  searchTerms: string;
  searchCount: number;
  lastSearched: number;
}

export interface LanguageDataRecord extends LanguageRecord {
  feedCount: number;
  postCount: number;
  postsLast24Hours: number;
  clicks: number;
  lastPostDate: number | null;
}

/** Paging and the language filter shared by the post lists; `languageIds` null = every language. */
export interface PostPage {
  limit: number;
  offset: number;
  languageIds: readonly number[] | null;
}

export type SearchSort = "relevance" | "date" | "clicks";

/** A feed's fetch state and health, kept for the scheduler and shown by `feeds list`. */
export interface FeedFetchState {
  etag: string | null;
  lastModified: string | null;
  nextFetchAt: number;
  lastFetchedAt: number | null;
  /** The last refresh that ended well (stored, or not modified). */
  lastSuccessAt: number | null;
  /** Failed refreshes in a row: 0 after a success. */
  errorCount: number;
  /** The last failure's message, time, stage and stable code (see ingest/failure-codes.ts); kept after a success. */
  lastError: string | null;
  lastErrorAt: number | null;
  lastErrorStage: string | null;
  lastErrorCode: string | null;
}

/** A feed whose refreshes fail now, as the public pages show it (see `Store.failingFeeds`). */
export interface FeedFailureRecord {
  feedId: number;
  errorCount: number;
  lastErrorAt: number | null;
  lastErrorStage: string | null;
  lastErrorCode: string | null;
  lastSuccessAt: number | null;
}

/** A feed row with everything ingest and the admin commands need. */
export interface FeedAdminRecord extends FeedRecord, FeedFetchState {}

export interface NewFeed {
  feedUrl: string;
  feedName: string;
  siteUrl?: string | null;
  feedDescription?: string | null;
  categoryId?: number | null;
  languageId?: number;
}

/** One entry as ingest (or the demo generator) hands it to the store, already normalised. */
export interface IncomingPost {
  /** Identity within the feed: guid, else link, else a content hash (decided by ingest). */
  guid: string;
  link: string;
  title: string;
  excerpt: string;
  /** Sanitised HTML. */
  content: string;
  publishedAt: number | null;
  updatedAt: number | null;
  /** First-seen time; postDate = published, else updated, else this. */
  seenAt: number;
  languageId: number;
  /**
   * The link that names the story across feeds (rel="canonical", else the entry's own link), as
   * ingest found it; absent or null when the entry had no link of its own (a placeholder such as
   * the site's home page never merges posts).
   */
  storyLink?: string | null;
  /**
   * The post's story keys (`storyKeys` of src/dedupe/story-keys.ts over `storyLink`, `title` and
   * `excerpt`) when ingest computed them already, off the writer's thread; absent, the store
   * computes them.
   */
  storyKeys?: StoryKeys;
  /**
   * The tokens the post is searched by (`postIndexText` of store/index-text.ts over `title`,
   * `excerpt` and `content`) when ingest computed them already; absent, the store computes them.
   */
  indexText?: PostIndexText;
}

/** A feed that carries a story as a copy (see src/dedupe/). */
export interface StoryFeedRef {
  feedId: number;
  feedName: string;
}

/** One merge of a copy into a story, for `posts duplicates`. */
export interface StoryMergeRecord {
  storyId: number;
  storyFeedId: number;
  storyTitle: string;
  copyFeedId: number;
  copyGuid: string;
  copyLink: string;
  copyTitle: string;
  /** What the copy was recognised by: the canonical link, or the text's fingerprint. */
  mergedBy: "link" | "text";
  mergedAt: number;
}

/** What one feed refresh writes, applied in one transaction. */
export interface FeedUpdate {
  posts: readonly IncomingPost[];
  fetchState: Partial<FeedFetchState>;
  /** Metadata learnt from the document (title, site link, description, URL after a permanent redirect). */
  feed?: Partial<Pick<NewFeed, "feedName" | "siteUrl" | "feedDescription" | "feedUrl" | "languageId">>;
}

/** How an ingest worker claims feeds (see `Store.claimDueFeeds`). */
export interface FeedClaimOptions {
  /** The claimant, unique per pass: a feed is claimed at most once by one claimant while it stays the last. */
  worker: string;
  /** How long a claim holds when the worker never releases it. */
  leaseMs: number;
  limit: number;
  /** Every feed, not only the due ones (`ingest --all`). */
  all?: boolean;
  /**
   * True for a claimant known to be gone (a dead process on this host): its claims count as
   * expired at once instead of when their lease runs out.
   */
  isAbandoned?: (worker: string) => boolean;
}

export interface FeedUpdateResult {
  inserted: number;
  updated: number;
}

/** One feed's part of `Store.applyFeedUpdates`: its result, or the error that rolled it back alone. */
export type FeedUpdateOutcome = { ok: true; result: FeedUpdateResult } | { ok: false; error: unknown };

/** See `Store.connectionStats`. */
/** A click as `insertClicks` stores it. */
export interface ClickRow {
  postId: number;
  clientHash: string;
  /** Epoch milliseconds. */
  at: number;
}

export interface ConnectionStats {
  readonly open: number;
  readonly busy: number;
  readonly waiting: number;
}

export interface Store {
  readonly dialect: "sqlite" | "postgres";

  // --- the read side of the 16 operations ---
  recentPosts(page: PostPage): Promise<PostRecord[]>;
  postsByCategory(
    page: PostPage & { categoryId: number; sincePostId: number | null; sinceDate: number | null },
  ): Promise<PostRecord[]>;
  postsByFeed(page: Omit<PostPage, "languageIds"> & { feedId: number }): Promise<PostRecord[]>;
  /**
   * `unscored`: the caller drops the scores (a smart category's posts, spec §4, have no score
   * column), so a store may answer a date order without computing them (each row's score is then 0).
   */
  searchPosts(
    page: PostPage & { query: SearchQuery; sort: SearchSort; unscored?: boolean },
  ): Promise<Array<PostRecord & { score: number }>>;
  mostPopularPosts(args: {
    since: number;
    limit: number;
    categoryId: number | null;
  }): Promise<Array<PostRecord & { periodClicks: number }>>;
  categories(): Promise<CategoryRecord[]>;
  smartCategories(): Promise<SmartCategoryRecord[]>;
  languages(): Promise<LanguageRecord[]>;
  mostPopularFeeds(args: {
    since: number;
    limit: number;
  }): Promise<Array<FeedRecord & { periodClicks: number }>>;
  mostProlificFeeds(args: {
    since: number;
    limit: number;
  }): Promise<Array<FeedRecord & { periodPosts: number }>>;
  feeds(filter?: { categoryId?: number; languageId?: number }): Promise<FeedRecord[]>;
  /**
   * Every feed's id and name, in no order: what a search's `feed:` needs (spec §4), without the
   * counts and joins of `feeds()`. Optional: without it the operations read `feeds()`.
   */
  feedNames?(): Promise<Array<{ feedId: number; feedName: string }>>;
  searchHistory(limit: number): Promise<SearchHistoryRecord[]>;
  recordSearch(terms: string, at: number): Promise<void>;
  aggregateLanguageData(now: number): Promise<LanguageDataRecord[]>;

  // --- reads of the web pages beside the operations ---
  /**
   * How many posts match a search in the languages given, counted up to `cap + 1` and no further,
   * so that the cost stays bounded whatever the query: an answer above `cap` means "more than
   * `cap`". The search page passes spec §4's 10,000.
   */
  countSearchMatches(args: {
    query: SearchQuery;
    languageIds: readonly number[] | null;
    cap: number;
  }): Promise<number>;
  /** The feeds whose last refresh failed (one or more failures in a row), by id. */
  failingFeeds(): Promise<FeedFailureRecord[]>;

  // --- lookups for argument checks ---
  categoryById(id: number): Promise<CategoryRecord | undefined>;
  feedById(id: number): Promise<FeedAdminRecord | undefined>;
  languageById(id: number): Promise<LanguageRecord | undefined>;
  smartCategoryById(id: number): Promise<SmartCategoryRecord | undefined>;
  smartCategoryByKey(key: string): Promise<SmartCategoryRecord | undefined>;

  // --- clicks ---
  /** Counts a click unless the same client hash clicked the post within the window; undefined if no such post. */
  recordClick(
    postId: number,
    clientHash: string,
    at: number,
    dedupeWindowMs: number,
  ): Promise<{ link: string } | undefined>;
  /** The per-install secret (created on first use) used to hash client addresses. */
  installSecret(): Promise<string>;
  /**
   * A per-install value kept in the database (copied by migrate-data), set from `propose` the
   * first time it is asked for; every process and later run reads the same value.
   */
  installSetting(name: string, propose: () => string): Promise<string>;

  // --- admin ---
  addCategory(name: string): Promise<CategoryRecord>;
  removeCategory(id: number): Promise<boolean>;
  addSmartCategory(args: { name: string; query: string; key?: string }): Promise<SmartCategoryRecord>;
  removeSmartCategory(id: number): Promise<boolean>;
  /** The language row a BCP 47 tag files under (`en-US` -> `en`, `zh-TW` -> `zh-Hant`), created when new. */
  ensureLanguage(code: string, name?: string): Promise<LanguageRecord>;
  addFeed(feed: NewFeed): Promise<FeedAdminRecord>;
  removeFeed(id: number): Promise<boolean>;
  adminFeeds(): Promise<FeedAdminRecord[]>;

  // --- ingest ---
  /** Feeds whose next fetch time has come (all feeds with `all`), soonest first. */
  dueFeeds(now: number, opts?: { all?: boolean; limit?: number }): Promise<FeedAdminRecord[]>;
  /**
   * Claims up to `limit` due feeds for one ingest worker, soonest due first, with a lease: until
   * the lease runs out or the worker releases the feed, no other worker (process or machine) is
   * handed it, so a feed is never fetched twice at once and a crashed worker's feeds come back.
   */
  claimDueFeeds(now: number, opts: FeedClaimOptions): Promise<FeedAdminRecord[]>;
  /**
   * Extends a worker's claim on a feed to `now + leaseMs` while its refresh runs (the heartbeat
   * of a refresh that outlives its lease). False when the claim is no longer the worker's: another
   * worker took the feed after the lease ran out, or the claim was released; nothing changes then.
   */
  renewFeedClaim(feedId: number, worker: string, now: number, leaseMs: number): Promise<boolean>;
  /** Ends a worker's claim on a feed (after its refresh, whatever the outcome). */
  releaseFeedClaim(feedId: number, worker: string): Promise<void>;
  /** Ends a worker's claims on several feeds in one write (an ingest pass releases a batch at once). */
  releaseFeedClaims(feedIds: readonly number[], worker: string): Promise<void>;
  /** Applies one refresh in one transaction: posts upserted by (feed, guid), fetch state and metadata saved. */
  applyFeedUpdate(feedId: number, update: FeedUpdate): Promise<FeedUpdateResult>;
  /**
   * Several feeds' refreshes in one transaction, each applied as `applyFeedUpdate` would and
   * isolated from the others: one that fails is rolled back alone and reported in its place.
   * Optional: ingest groups its writes through it where a commit costs more than the rows (SQLite;
   * PostgreSQL inserts a batch's new posts in one statement, its triggers run once).
   */
  applyFeedUpdates?(
    updates: ReadonlyArray<{ feedId: number; update: FeedUpdate }>,
  ): Promise<FeedUpdateOutcome[]>;
  /**
   * The stored posts of a feed whose guid or link is among those given: ingest uses it to spot
   * feeds whose guids change on every fetch (same link, new guid), so that they update their posts
   * instead of adding duplicates.
   */
  postKeys(
    feedId: number,
    keys: { guids: readonly string[]; links: readonly string[] },
  ): Promise<Array<{ guid: string; link: string }>>;
  /** The feeds' WebSub subscriptions (see websub-store.ts). */
  readonly websub: WebSubStore;
  /** Administrators, sessions, suggestions and every audited admin change (see admin-store.ts). */
  readonly admin: AdminStore;

  /**
   * The other feeds that carry each of the given stories as a copy ("also in"), by post id: one
   * index look-up per post of a page. Posts without copies are left out of the map.
   */
  alsoIn(postIds: readonly number[]): Promise<Map<number, StoryFeedRef[]>>;
  /** Every merge of a copy into a story, newest first (`posts duplicates`). */
  storyMerges(limit: number): Promise<StoryMergeRecord[]>;
  /**
   * Splits a story again: each of its copies becomes a post of its own feed. False when the
   * story has no copies (or no such post).
   */
  splitStory(postId: number): Promise<boolean>;

  /** Adds a click row directly (demo data and tests only; bypasses deduplication). */
  insertClick(postId: number, clientHash: string, at: number): Promise<void>;
  /**
   * Adds many click rows in one transaction, all or none (demo data, bench corpora and tests;
   * bypasses deduplication): what insertClick does for each, at the cost of one commit.
   */
  insertClicks(clicks: readonly ClickRow[]): Promise<void>;

  /**
   * Compacts the full-text index after a bulk load (the demo loader calls it last). Optional: a
   * dialect whose index needs no such step (PostgreSQL's GIN index) leaves it out.
   */
  optimizeSearchIndex?(): Promise<void>;
  /**
   * One bounded step of merging the full-text indexes by segment size, in short write
   * transactions; true while work remains. Ingest runs it after a pass (the CLI until false,
   * serve a bounded number per round) so that searches read few doclists per term whatever the
   * ingest history, and no pass rewrites the whole index for a small one. `pages`: merged index pages a step writes per index (default
   * MERGE_STEP_PAGES of sqlite-search-maintenance.ts). Optional, like `optimizeSearchIndex`.
   */
  mergeSearchIndexStep?(pages?: number): Promise<boolean>;

  /** True when the database answers (for /healthz). */
  ping(): Promise<boolean>;
  /**
   * The database connections this store holds now, for /metrics: open, busy running a query, and
   * calls waiting for one. Optional: a store with one connection on the calling thread has nothing
   * worth watching.
   */
  connectionStats?(): ConnectionStats;
  /**
   * A value that changes whenever any data changes, by this process or another one, so that a
   * cache of answers can tell it is still valid. A dialect that cannot tell returns a new value on
   * every call, which simply turns such caches off.
   */
  dataVersion(): Promise<string>;
  /**
   * Like `dataVersion`, but unchanged by recorded searches (the search history): for caches of
   * answers that do not read the history, which every search would otherwise make stale. Any other
   * write, by this process or another, changes it. A dialect without it is served by `dataVersion`.
   */
  dataVersionBesidesSearchHistory?(): Promise<string>;
  /**
   * Reads the data the operations use into memory, so that the first calls after a start do not
   * wait on the disk (`serve` calls it before it listens). Optional: a store held in memory has
   * nothing to warm.
   */
  warmCache?(onProgress?: WarmProgress): Promise<WarmReport>;
  close(): Promise<void>;
}
