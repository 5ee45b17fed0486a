/**
 * One ingest pass: every due feed (or every feed) refreshed, with fetches bounded by the
 * limiter (overall and per host), one shared connection pool, progress reported per feed and a
 * summary at the end. Feeds that fail are recorded on the feed and counted, never dropped.
 */
import { randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import { availableParallelism, hostname } from "node:os";
import type { FeedAdminRecord, Store } from "../store/store.js";
import { ClaimHeartbeat } from "./claim-heartbeat.js";
import { FeedWriteBatch } from "./feed-write-batch.js";
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
  /**
   * How long this pass's claim on a feed holds if the process dies mid-refresh (default 5
   * minutes); other workers skip claimed feeds until then. A refresh that runs longer renews its
   * claim every third of this.
   */
  claimLeaseMs?: number;
  /**
   * Aborted when the process stops (serve's scheduler): fetches in flight are cut, their feeds are
   * left as they were (no failure recorded) and every claim of the pass is released.
   */
  signal?: AbortSignal;
}

export interface IngestSummary {
  feeds: number;
  updated: number;
  notModified: number;
  failed: number;
  deferred: number;
  /** Refreshes stopped because another worker took the feed after this one's lease ran out. */
  claimLost: number;
  /** Refreshes cut short because the process was stopping; the feeds stay due. */
  stopped: number;
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
  // Feeds are claimed in small batches rather than listed up front, so that workers of other
  // processes or machines running passes at the same time share the due feeds: no feed is fetched
  // twice at once, and a batch is never more than this worker can start soon.
  const claims = new FeedClaims(store, clock, opts);
  const feeds = await claims.estimate();
  const summary: IngestSummary = {
    feeds: 0,
    updated: 0,
    notModified: 0,
    failed: 0,
    deferred: 0,
    claimLost: 0,
    stopped: 0,
    postsInserted: 0,
    postsUpdated: 0,
    durationMs: 0,
    failures: [],
  };
  const dispatcher = createFetchAgent({ ...opts.fetch, connections: limiter.perHost });
  const languageIds = new Map<string, number>();
  // The pass's writes go through one group commit: refreshes that finish together share a transaction.
  const writer = new FeedWriteBatch(store);
  const parseWorkers = opts.parseWorkers ?? (availableParallelism() > 1 ? 1 : 0);
  const parse = parseWorkers > 0 && feeds > 1 ? new ParsePool(parseWorkers) : undefined;
  // The pass's own stop signal, following the caller's: every refresh in flight listens to it, more
  // than the 10 listeners after which Node warns of a leak.
  const stop = opts.signal && AbortSignal.any([opts.signal]);
  if (stop) setMaxListeners(0, stop);
  let done = 0;
  const worker = async () => {
    const next = () => (stop?.aborted ? undefined : claims.next(limiter.overall));
    for (let feed = await next(); feed; feed = await next()) {
      summary.feeds++;
      const claim = claims.heartbeat(feed.feedId).start();
      const result = await refreshFeed(feed, {
        store,
        limiter,
        dispatcher,
        fetch: opts.fetch,
        policy: opts.policy,
        now: opts.now,
        languageIds,
        parse,
        claim,
        stop,
        writer,
      }).finally(() => {
        claim.stop();
        // A lost claim is another worker's now: releasing it would free the feed under that worker.
        if (!claim.lost) claims.release(feed.feedId);
      });
      if (result.outcome === "updated") summary.updated++;
      else if (result.outcome === "not-modified") summary.notModified++;
      else if (result.outcome === "deferred") summary.deferred++;
      else if (result.outcome === "claim-lost") summary.claimLost++;
      else if (result.outcome === "stopped") summary.stopped++;
      else {
        summary.failed++;
        summary.failures.push({
          feedId: feed.feedId,
          feedUrl: feed.feedUrl,
          error: `${result.stage} ${result.code}: ${result.error}`,
        });
      }
      summary.postsInserted += result.inserted;
      summary.postsUpdated += result.updated;
      opts.onProgress?.(++done, Math.max(feeds, summary.feeds), result);
    }
  };
  try {
    // A few more workers than fetch slots, so that parsing and storing overlap with fetching.
    const workers = Math.min(feeds, limiter.overall + 2);
    await Promise.all(Array.from({ length: workers }, worker));
  } finally {
    // Feeds claimed for this pass but never started go back too when it was stopped.
    claims.releaseQueued();
    await claims.flush();
    // close() would wait for connections still being made (a DNS lookup, a connect timeout).
    await (stop?.aborted ? dispatcher.destroy() : dispatcher.close()).catch(() => {});
    await parse?.close();
  }
  summary.durationMs = Date.now() - started;
  return summary;
}

/**
 * The feeds of one pass, claimed from the store a batch at a time and released a batch at a time:
 * finished feeds are released together when the next batch is claimed and when the pass ends, one
 * write for a batch instead of one per feed. Until then they are simply not due (their refresh
 * scheduled the next fetch) or wait a little longer for another worker.
 */
class FeedClaims {
  readonly #store: Store;
  readonly #clock: () => number;
  readonly #all: boolean;
  readonly #limit: number;
  readonly #leaseMs: number;
  readonly #worker = `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;
  #queue: FeedAdminRecord[] = [];
  /** When each queued feed was claimed: its lease runs from then. */
  readonly #claimedAt = new Map<number, number>();
  #claimed = 0;
  #exhausted = false;
  #claiming: Promise<void> | null = null;
  #finished: number[] = [];

  constructor(store: Store, clock: () => number, opts: IngestPassOptions) {
    this.#store = store;
    this.#clock = clock;
    this.#all = opts.all ?? false;
    this.#limit = opts.limit ?? Number.POSITIVE_INFINITY;
    this.#leaseMs = opts.claimLeaseMs ?? 5 * 60_000;
  }

  /** How many feeds are due now (for progress; other workers may take some of them). */
  async estimate(): Promise<number> {
    const limit = Number.isFinite(this.#limit) ? this.#limit : undefined;
    return (await this.#store.dueFeeds(this.#clock(), { all: this.#all, limit })).length;
  }

  /** The next feed of this pass, claiming another batch of `batch` when the queue is empty. */
  async next(batch: number): Promise<FeedAdminRecord | undefined> {
    while (this.#queue.length === 0 && !this.#exhausted) {
      // One claim at a time per pass: concurrent callers wait for the batch in flight.
      this.#claiming ??= this.#claim(batch).finally(() => {
        this.#claiming = null;
      });
      await this.#claiming;
    }
    return this.#queue.shift();
  }

  async #claim(batch: number): Promise<void> {
    await this.flush();
    const limit = Math.min(Math.max(1, batch), this.#limit - this.#claimed);
    if (limit <= 0) {
      this.#exhausted = true;
      return;
    }
    const at = this.#clock();
    const feeds = await this.#store.claimDueFeeds(at, {
      worker: this.#worker,
      leaseMs: this.#leaseMs,
      limit,
      all: this.#all,
      isAbandoned: isDeadLocalWorker,
    });
    this.#claimed += feeds.length;
    for (const feed of feeds) this.#claimedAt.set(feed.feedId, at);
    if (feeds.length === 0) this.#exhausted = true;
    this.#queue.push(...feeds);
  }

  /** The heartbeat that keeps this pass's claim on a feed while its refresh runs (not started). */
  heartbeat(feedId: number): ClaimHeartbeat {
    const claimedAt = this.#claimedAt.get(feedId) ?? this.#clock();
    this.#claimedAt.delete(feedId);
    return new ClaimHeartbeat({
      store: this.#store,
      feedId,
      worker: this.#worker,
      leaseMs: this.#leaseMs,
      claimedAt,
      now: this.#clock,
    });
  }

  /** Marks a feed's refresh finished; its claim ends with the next `flush`. */
  release(feedId: number): void {
    this.#finished.push(feedId);
  }

  /** Marks the claimed feeds that were never started finished, so that `flush` releases them. */
  releaseQueued(): void {
    for (const feed of this.#queue.splice(0)) this.#finished.push(feed.feedId);
  }

  /** Ends the claims of the finished feeds (a failure leaves them to run out with their lease). */
  async flush(): Promise<void> {
    if (this.#finished.length === 0) return;
    const feedIds = this.#finished;
    this.#finished = [];
    await this.#store.releaseFeedClaims(feedIds, this.#worker).catch(() => {});
  }
}

/**
 * True when a claimant named `host/pid/pass` ran on this host in a process that no longer exists:
 * a pass restarted after a crash takes that process's feeds back at once instead of waiting for
 * their leases (other hosts' claims always wait: their processes cannot be checked from here).
 */
function isDeadLocalWorker(worker: string): boolean {
  const [host, pidText] = worker.split("/");
  const pid = Number(pidText);
  if (host !== hostname() || !Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}
