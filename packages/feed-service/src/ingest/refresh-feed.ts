/**
 * The orchestrator of one feed's refresh, and (with store-document.ts) the only ingest stage that
 * touches the store:
 * fetch -> decode/parse/normalise -> languages -> identity and deduplication -> one transaction.
 * A failure of any stage is recorded on the feed (time, stage, stable code, message, failures in a
 * row, backoff) and never thrown to the caller, so that one bad feed never stops a pass. Under a
 * claim, every write first confirms that the claim is still this worker's (see claim-heartbeat.ts):
 * a refresh whose feed another worker took stops and stores nothing.
 */
import type { Dispatcher } from "undici";
import { FeedServiceError } from "../errors.js";
import type { FeedAdminRecord, Store } from "../store/store.js";
import { recordHubLink } from "../websub/record-hub-link.js";
import type { ClaimHeartbeat } from "./claim-heartbeat.js";
import { type FailureCode, type FailureStage, type FeedFailure, failureOf } from "./failure-codes.js";
import type { FeedUpdateWriter } from "./feed-write-batch.js";
import { FeedFetchError } from "./fetch-error.js";
import { type FetchOptions, fetchFeed } from "./fetch-feed.js";
import type { FetchLimiter } from "./fetch-limiter.js";
import { discoverHub } from "./hub-discovery.js";
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
  /** The worker's claim on the feed, kept alive while the refresh runs (ingest passes set it). */
  claim?: ClaimHeartbeat;
  /** Aborted when the process stops: the fetch is cut and nothing is recorded on the feed. */
  stop?: AbortSignal;
  /** Where the feed's writes go: the pass's write batch (feed-write-batch.ts), else the store. */
  writer?: FeedUpdateWriter;
}

export interface RefreshResult {
  feedId: number;
  /**
   * `claim-lost`: another worker took the feed mid-refresh; `stopped`: the process was stopping.
   * Nothing was stored in either case.
   */
  outcome: "updated" | "not-modified" | "failed" | "deferred" | "claim-lost" | "stopped";
  inserted: number;
  updated: number;
  stage?: FailureStage;
  code?: FailureCode;
  error?: string;
}

/** True when the refresh may write: no claim to honour, or the claim is still this worker's. */
async function mayWrite(ctx: RefreshContext): Promise<boolean> {
  return ctx.claim === undefined || ctx.claim.confirm();
}

function claimLost(feed: FeedAdminRecord): RefreshResult {
  return { feedId: feed.feedId, outcome: "claim-lost", inserted: 0, updated: 0 };
}

async function recordFailure(
  ctx: RefreshContext,
  feed: FeedAdminRecord,
  step: "fetch" | "parse" | "store",
  error: unknown,
  now: number,
): Promise<RefreshResult> {
  // A fetch aborted because the claim was lost, or because the process is stopping, is no failure
  // of the feed's: it stays due and the next pass fetches it.
  if (ctx.claim?.lost) return claimLost(feed);
  if (ctx.stop?.aborted) return { feedId: feed.feedId, outcome: "stopped", inserted: 0, updated: 0 };
  const failure: FeedFailure = failureOf(step, error);
  const retryAfter = error instanceof FeedFetchError ? error.retryAfterMs : null;
  if (retryAfter !== null) ctx.limiter.holdHost(hostOf(feed.feedUrl), now + retryAfter);
  const errorCount = feed.errorCount + 1;
  const result: RefreshResult = {
    feedId: feed.feedId,
    outcome: "failed",
    inserted: 0,
    updated: 0,
    stage: failure.stage,
    code: failure.code,
    error: failure.message,
  };
  // With the database down, recording the failure would fail too.
  if (error instanceof FeedServiceError && error.code === "FEED_STORE_UNAVAILABLE") return result;
  try {
    if (!(await mayWrite(ctx))) return claimLost(feed);
    await (ctx.writer ?? ctx.store).applyFeedUpdate(feed.feedId, {
      posts: [],
      fetchState: {
        lastFetchedAt: now,
        errorCount,
        lastError: failure.message.slice(0, 500),
        lastErrorAt: now,
        lastErrorStage: failure.stage,
        lastErrorCode: failure.code,
        nextFetchAt: nextFetchAfterError(errorCount, retryAfter, now, ctx.policy ?? defaultSchedulePolicy),
      },
    });
  } catch {
    // The failure is still reported to the pass; the feed stays due and is tried again.
  }
  return result;
}

/** What cuts a fetch short: the claim being lost, or the process stopping. */
function fetchSignal(ctx: RefreshContext): AbortSignal | undefined {
  const signals = [ctx.claim?.signal, ctx.stop].filter((s): s is AbortSignal => s !== undefined);
  return signals.length > 1 ? AbortSignal.any(signals) : signals[0];
}

/**
 * `work`, or a rejection as soon as `stop` aborts: a fetch still waiting for a fetch slot or a DNS
 * lookup sees its signal only when that ends (seconds, for a lookup that times out).
 */
function untilStopped<T>(work: Promise<T>, stop: AbortSignal | undefined): Promise<T> {
  if (stop === undefined) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(stop.reason);
    stop.addEventListener("abort", onAbort, { once: true });
    if (stop.aborted) onAbort();
    work.then(resolve, reject).finally(() => stop.removeEventListener("abort", onAbort));
  });
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
      if (!(await mayWrite(ctx))) return claimLost(feed);
      await (ctx.writer ?? ctx.store).applyFeedUpdate(feed.feedId, {
        posts: [],
        fetchState: { nextFetchAt: heldUntil },
      });
    } catch (error) {
      return recordFailure(ctx, feed, "store", error, clock());
    }
    return { feedId: feed.feedId, outcome: "deferred", inserted: 0, updated: 0 };
  }
  let fetched: Awaited<ReturnType<typeof fetchFeed>>;
  try {
    fetched = await untilStopped(
      ctx.limiter.run(host, () =>
        fetchFeed(feed.feedUrl, {
          ...ctx.fetch,
          etag: feed.etag,
          lastModified: feed.lastModified,
          dispatcher: ctx.dispatcher,
          signal: fetchSignal(ctx),
        }),
      ),
      ctx.stop,
    );
  } catch (error) {
    return recordFailure(ctx, feed, "fetch", error, clock());
  }
  const now = clock();
  const moved =
    fetched.movedTo && fetched.movedTo !== feed.feedUrl ? { feedUrl: fetched.movedTo } : undefined;
  if (fetched.status === "not-modified") {
    try {
      if (!(await mayWrite(ctx))) return claimLost(feed);
      await applyUpdate(ctx.writer ?? ctx.store, feed.feedId, {
        posts: [],
        feed: moved,
        fetchState: {
          lastFetchedAt: now,
          lastSuccessAt: now,
          errorCount: 0,
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
    // After a long parse (a large document, a busy worker thread) the claim may be near its end.
    if (!(await mayWrite(ctx))) return claimLost(feed);
    // WebSub (websub/): the hub this fetch names; an active subscription makes polling a safety net.
    const hub = discoverHub(fetched.links, fetched.url, doc.metadata);
    const pollFloor = await recordHubLink(ctx.store, feed.feedId, hub, now);
    const result = await storeDocument(ctx, feed, doc, {
      sourceUrl: fetched.url,
      now,
      movedTo: moved?.feedUrl,
      fetchState: {
        etag: fetched.etag,
        lastModified: fetched.lastModified,
        lastFetchedAt: now,
        lastSuccessAt: now,
        errorCount: 0,
        nextFetchAt: Math.max(
          pollFloor ?? 0,
          nextFetchAfterSuccess(
            doc.entries.map((e) => e.publishedAt ?? e.updatedAt),
            now,
            policy,
          ),
        ),
      },
    });
    return { feedId: feed.feedId, outcome: "updated", ...result };
  } catch (error) {
    return recordFailure(ctx, feed, "store", error, now);
  }
}
