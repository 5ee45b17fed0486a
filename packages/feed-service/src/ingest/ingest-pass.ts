/**
 * One ingest pass: every due feed (or every feed) refreshed, with fetches bounded by the
 * limiter (overall and per host), one shared connection pool, progress reported per feed and a
 * summary at the end. Feeds that fail are recorded on the feed and counted, never dropped.
 */
import { availableParallelism } from "node:os";
import type { Store } from "../store/store.js";
import { createFetchAgent, type FetchOptions } from "./fetch-feed.js";
import { FetchLimiter, type FetchLimiterOptions } from "./fetch-limiter.js";
import { ParsePool } from "./parse-pool.js";
import { type RefreshResult, refreshFeed } from "./refresh-feed.js";
import type { SchedulePolicy } from "./schedule-policy.js";

export interface IngestPassOptions extends FetchLimiterOptions {
  /** Every feed, not only the due ones (`feed-service ingest --all`). */
  all?: boolean;
  /** At most this many feeds in one pass (soonest due first). */
  limit?: number;
  fetch?: Omit<FetchOptions, "etag" | "lastModified" | "dispatcher">;
  policy?: SchedulePolicy;
  now?: () => number;
  /**
   * Worker threads for the parse stage (default: 1 when the machine has more than one core, else
   * 0 = parse on the main thread).
   */
  parseWorkers?: number;
  /** Reuse a limiter across passes (the scheduler does, so that Retry-After holds persist). */
  limiter?: FetchLimiter;
  onProgress?: (done: number, total: number, last: RefreshResult) => void;
}

export interface IngestSummary {
  feeds: number;
  updated: number;
  notModified: number;
  failed: number;
  deferred: number;
  postsInserted: number;
  postsUpdated: number;
  durationMs: number;
  failures: Array<{ feedId: number; feedUrl: string; error: string }>;
}

/**
 * @example
 * const summary = await runIngestPass(store, { all: true });
 * console.log(`${summary.postsInserted} new posts from ${summary.feeds} feeds`);
 */
export async function runIngestPass(store: Store, opts: IngestPassOptions = {}): Promise<IngestSummary> {
  const clock = opts.now ?? Date.now;
  const started = Date.now();
  const limiter = opts.limiter ?? new FetchLimiter(opts);
  const feeds = await store.dueFeeds(clock(), { all: opts.all, limit: opts.limit });
  const summary: IngestSummary = {
    feeds: feeds.length,
    updated: 0,
    notModified: 0,
    failed: 0,
    deferred: 0,
    postsInserted: 0,
    postsUpdated: 0,
    durationMs: 0,
    failures: [],
  };
  const dispatcher = createFetchAgent({ ...opts.fetch, connections: limiter.perHost });
  const languageIds = new Map<string, number>();
  const parseWorkers = opts.parseWorkers ?? (availableParallelism() > 1 ? 1 : 0);
  const parse = parseWorkers > 0 && feeds.length > 1 ? new ParsePool(parseWorkers) : undefined;
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < feeds.length) {
      const feed = feeds[next++]!;
      const result = await refreshFeed(feed, {
        store,
        limiter,
        dispatcher,
        fetch: opts.fetch,
        policy: opts.policy,
        now: opts.now,
        languageIds,
        parse,
      });
      if (result.outcome === "updated") summary.updated++;
      else if (result.outcome === "not-modified") summary.notModified++;
      else if (result.outcome === "deferred") summary.deferred++;
      else {
        summary.failed++;
        summary.failures.push({
          feedId: feed.feedId,
          feedUrl: feed.feedUrl,
          error: `${result.stage}: ${result.error}`,
        });
      }
      summary.postsInserted += result.inserted;
      summary.postsUpdated += result.updated;
      opts.onProgress?.(++done, feeds.length, result);
    }
  };
  try {
    // A few more workers than fetch slots, so that parsing and storing overlap with fetching.
    const workers = Math.min(feeds.length, limiter.overall + 2);
    await Promise.all(Array.from({ length: workers }, worker));
  } finally {
    await dispatcher.close().catch(() => {});
    await parse?.close();
  }
  summary.durationMs = Date.now() - started;
  return summary;
}
