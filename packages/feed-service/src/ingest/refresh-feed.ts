/**
 * The orchestrator of one feed's refresh, and (with store-document.ts) the only ingest stage that
 * touches the store:
 * fetch -> decode/parse/normalise -> languages -> identity and deduplication -> one transaction.
 * A failure of any stage is recorded on the feed (stage, message, error count, backoff) and
 * never thrown to the caller, so that one bad feed never stops a pass.
 */
import type { Dispatcher } from "undici";
import { FeedServiceError } from "../errors.js";
import type { FeedAdminRecord, Store } from "../store/store.js";
import { FeedFetchError } from "./fetch-error.js";
import { type FetchOptions, fetchFeed } from "./fetch-feed.js";
import type { FetchLimiter } from "./fetch-limiter.js";
import type { ParsePool } from "./parse-pool.js";
import { type DocumentForStore, processFeedDocument } from "./process-document.js";
import {
  defaultSchedulePolicy,
  nextFetchAfterError,
  nextFetchAfterSuccess,
  type SchedulePolicy,
} from "./schedule-policy.js";
import { applyUpdate, storeDocument } from "./store-document.js";

export interface RefreshContext {
  store: Store;
  limiter: FetchLimiter;
  dispatcher?: Dispatcher;
  fetch?: Omit<FetchOptions, "etag" | "lastModified" | "dispatcher">;
  policy?: SchedulePolicy;
  now?: () => number;
  /** Runs the parse stage elsewhere (a worker pool); inline when absent. */
  parse?: ParsePool;
  /** Language tag -> row id, shared across the feeds of a pass. */
  languageIds?: Map<string, number>;
}

export type RefreshStage = "fetch" | "parse" | "store";

export interface RefreshResult {
  feedId: number;
  outcome: "updated" | "not-modified" | "failed" | "deferred";
  inserted: number;
  updated: number;
  stage?: RefreshStage;
  error?: string;
}

async function recordFailure(
  ctx: RefreshContext,
  feed: FeedAdminRecord,
  stage: RefreshStage,
  error: unknown,
  now: number,
): Promise<RefreshResult> {
  const message =
    error instanceof FeedServiceError ? error.message : "Unexpected failure while reading the feed.";
  const retryAfter = error instanceof FeedFetchError ? error.retryAfterMs : null;
  if (retryAfter !== null) ctx.limiter.holdHost(hostOf(feed.feedUrl), now + retryAfter);
  const errorCount = feed.errorCount + 1;
  const result: RefreshResult = {
    feedId: feed.feedId,
    outcome: "failed",
    inserted: 0,
    updated: 0,
    stage,
    error: message,
  };
  if (stage === "store" && error instanceof FeedServiceError && error.code === "FEED_STORE_UNAVAILABLE")
    return result;
  await ctx.store
    .applyFeedUpdate(feed.feedId, {
      posts: [],
      fetchState: {
        lastFetchedAt: now,
        errorCount,
        lastError: `${stage}: ${message}`.slice(0, 500),
        nextFetchAt: nextFetchAfterError(errorCount, retryAfter, now, ctx.policy ?? defaultSchedulePolicy),
      },
    })
    .catch(() => {});
  return result;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "";
  }
}

/**
 * Refreshes one feed: fetches it (conditionally), stores its new and changed posts and its fetch
 * state in one transaction, and schedules its next fetch.
 *
 * @example
 * const result = await refreshFeed(feed, { store, limiter: new FetchLimiter() });
 * console.log(result.outcome, result.inserted);
 */
export async function refreshFeed(feed: FeedAdminRecord, ctx: RefreshContext): Promise<RefreshResult> {
  const clock = ctx.now ?? Date.now;
  const policy = ctx.policy ?? defaultSchedulePolicy;
  const host = hostOf(feed.feedUrl);
  const heldUntil = ctx.limiter.hostHeldUntil(host, clock());
  if (heldUntil !== null) {
    try {
      await ctx.store.applyFeedUpdate(feed.feedId, { posts: [], fetchState: { nextFetchAt: heldUntil } });
    } catch (error) {
      return recordFailure(ctx, feed, "store", error, clock());
    }
    return { feedId: feed.feedId, outcome: "deferred", inserted: 0, updated: 0 };
  }
  let fetched: Awaited<ReturnType<typeof fetchFeed>>;
  try {
    fetched = await ctx.limiter.run(host, () =>
      fetchFeed(feed.feedUrl, {
        ...ctx.fetch,
        etag: feed.etag,
        lastModified: feed.lastModified,
        dispatcher: ctx.dispatcher,
      }),
    );
  } catch (error) {
    return recordFailure(ctx, feed, "fetch", error, clock());
  }
  const now = clock();
  const moved =
    fetched.movedTo && fetched.movedTo !== feed.feedUrl ? { feedUrl: fetched.movedTo } : undefined;
  if (fetched.status === "not-modified") {
    try {
      await applyUpdate(ctx.store, feed.feedId, {
        posts: [],
        feed: moved,
        fetchState: {
          lastFetchedAt: now,
          errorCount: 0,
          lastError: null,
          etag: fetched.etag ?? feed.etag,
          lastModified: fetched.lastModified ?? feed.lastModified,
          nextFetchAt:
            now +
            Math.max(
              policy.minIntervalMs,
              Math.min(policy.maxIntervalMs, feed.nextFetchAt - (feed.lastFetchedAt ?? feed.nextFetchAt)),
            ),
        },
      });
    } catch (error) {
      return recordFailure(ctx, feed, "store", error, now);
    }
    return { feedId: feed.feedId, outcome: "not-modified", inserted: 0, updated: 0 };
  }
  let doc: DocumentForStore;
  try {
    doc = ctx.parse
      ? await ctx.parse.process(fetched.body, fetched.contentType, fetched.url, now, fetched.contentLanguage)
      : processFeedDocument(fetched.body, fetched.contentType, fetched.url, now, fetched.contentLanguage);
  } catch (error) {
    return recordFailure(ctx, feed, "parse", error, now);
  }
  try {
    const result = await storeDocument(ctx, feed, doc, {
      sourceUrl: fetched.url,
      now,
      movedTo: moved?.feedUrl,
      fetchState: {
        etag: fetched.etag,
        lastModified: fetched.lastModified,
        lastFetchedAt: now,
        errorCount: 0,
        lastError: null,
        nextFetchAt: nextFetchAfterSuccess(
          doc.entries.map((e) => e.publishedAt ?? e.updatedAt),
          now,
          policy,
        ),
      },
    });
    return { feedId: feed.feedId, outcome: "updated", ...result };
  } catch (error) {
    return recordFailure(ctx, feed, "store", error, now);
  }
}
