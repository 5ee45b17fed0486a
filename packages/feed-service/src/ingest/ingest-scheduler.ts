/**
 * The background scheduler that `feed-service serve` runs: a pass over due feeds every tick,
 * never two at once (periodic-runner.ts), with one limiter kept across passes so that a host's
 * Retry-After holds. Its timer never keeps a process alive on its own.
 */
import { PeriodicRunner } from "../periodic-runner.js";
import type { Store } from "../store/store.js";
import { FetchLimiter } from "./fetch-limiter.js";
import { type IngestPassOptions, type IngestSummary, runIngestPass } from "./ingest-pass.js";
import { mergeSearchIndex } from "./search-index-upkeep.js";

/**
 * Merge steps after each pass (search-index-upkeep.ts), each of SERVE_MERGE_STEP_PAGES: a merge
 * larger than that goes on after the next pass where it stopped, so a pass waits for a bounded
 * merge and a server that keeps ingesting still reaches the merge policy's rest
 * (sqlite-search-maintenance.ts: few segments, each page rewritten a bounded number of times). Serve's steps are
 * smaller than the CLI's: a step holds the thread that also answers requests (bench/NOTES.md).
 */
export const MERGE_STEPS_PER_PASS = 1000;
export const SERVE_MERGE_STEP_PAGES = 100;

export interface IngestSchedulerOptions extends Omit<IngestPassOptions, "all" | "limiter" | "onProgress"> {
  /** Time between the end of one pass and the start of the next (default 60 s). */
  tickMs?: number;
  onPass?: (summary: IngestSummary) => void;
  onError?: (error: unknown) => void;
  /** Search index merge steps after each pass (default MERGE_STEPS_PER_PASS). */
  mergeStepsPerPass?: number;
}

export class IngestScheduler {
  readonly #runner: PeriodicRunner<IngestSummary>;

  constructor(store: Store, opts: IngestSchedulerOptions = {}) {
    const limiter = new FetchLimiter(opts);
    this.#runner = new PeriodicRunner({
      round: async (signal) => {
        const summary = await runIngestPass(store, { ...opts, limiter, signal });
        // A failed merge step leaves the index as it was (its transaction rolls back): the pass
        // still counts, and the next round tries again.
        await mergeSearchIndex(store, {
          pages: SERVE_MERGE_STEP_PAGES,
          maxSteps: opts.mergeStepsPerPass ?? MERGE_STEPS_PER_PASS,
          signal,
        }).catch((error: unknown) => opts.onError?.(error));
        return summary;
      },
      tickMs: opts.tickMs,
      onRound: opts.onPass,
      onError: opts.onError,
    });
  }

  /**
   * Starts passes: the first at once, then one per tick.
   *
   * @example
   * const scheduler = new IngestScheduler(store, { tickMs: 60_000 });
   * scheduler.start();
   * // ... on shutdown:
   * await scheduler.stop();
   */
  start(): void {
    this.#runner.start();
  }

  /** Stops scheduling, cuts the fetches of a pass in progress and waits for it to end. */
  stop(): Promise<void> {
    return this.#runner.stop();
  }

  /** Runs one pass now (waiting for one in progress first). */
  runOnce(): Promise<IngestSummary> {
    return this.#runner.runOnce();
  }
}
