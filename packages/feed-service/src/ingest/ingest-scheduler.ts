/**
 * The background scheduler that `feed-service serve` runs: a pass over due feeds every tick,
 * never two at once, with one limiter kept across passes so that a host's Retry-After holds.
 * Its timer is unref'd: it never keeps a process alive on its own.
 */
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
  readonly #store: Store;
  readonly #opts: IngestSchedulerOptions;
  readonly #limiter: FetchLimiter;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  #stopped = true;

  constructor(store: Store, opts: IngestSchedulerOptions = {}) {
    this.#store = store;
    this.#opts = opts;
    this.#limiter = new FetchLimiter(opts);
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
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#schedule(0);
  }

  /** Stops scheduling and waits for a pass in progress to finish. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#running;
  }

  /** Runs one pass now (waiting for one in progress first). */
  async runOnce(): Promise<IngestSummary> {
    await this.#running;
    let summary: IngestSummary | undefined;
    const run = runIngestPass(this.#store, { ...this.#opts, limiter: this.#limiter }).then((s) => {
      summary = s;
    });
    this.#running = run.catch(() => {});
    await run;
    return summary!;
  }

  #schedule(delay: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.runOnce()
        .then(
          (s) => this.#opts.onPass?.(s),
          (e) => this.#opts.onError?.(e),
        )
        .finally(() => this.#schedule(this.#opts.tickMs ?? 60_000));
    }, delay);
    this.#timer.unref();
  }
}
