/**
 * The background scheduler that `feed-service serve` runs: a pass over due feeds every tick,
 * never two at once (periodic-runner.ts), with one limiter kept across passes so that a host's
 * Retry-After holds. Its timer never keeps a process alive on its own.
 */
import { PeriodicRunner } from "../periodic-runner.js";
import type { Store } from "../store/store.js";
import { FetchLimiter } from "./fetch-limiter.js";
import { type IngestPassOptions, type IngestSummary, runIngestPass } from "./ingest-pass.js";

export interface IngestSchedulerOptions extends Omit<IngestPassOptions, "all" | "limiter" | "onProgress"> {
  /** Time between the end of one pass and the start of the next (default 60 s). */
  tickMs?: number;
  onPass?: (summary: IngestSummary) => void;
  onError?: (error: unknown) => void;
}

export class IngestScheduler {
  readonly #runner: PeriodicRunner<IngestSummary>;

  constructor(store: Store, opts: IngestSchedulerOptions = {}) {
    const limiter = new FetchLimiter(opts);
    this.#runner = new PeriodicRunner({
      round: (signal) => runIngestPass(store, { ...opts, limiter, signal }),
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
