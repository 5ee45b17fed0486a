/**
 * Runs one job now and then, never two at once: the loop that the ingest scheduler and the WebSub
 * subscriber share. `start` runs the first round at once, then one `tickMs` after each round ends;
 * `runOnce` runs a round now (after the one in progress); `stop` ends the loop, aborts the signal
 * the round in progress was given (a round that can, ends early) and waits for it. The timer is
 * unref'd: it never keeps a process alive on its own.
 */
export interface PeriodicRunnerOptions<T> {
  /** One round of the job; `signal` is aborted when the runner stops. */
  readonly round: (signal: AbortSignal) => Promise<T>;
  /** Time between the end of one round and the start of the next (default 60 s). */
  readonly tickMs?: number;
  readonly onRound?: (result: T) => void;
  readonly onError?: (error: unknown) => void;
}

export class PeriodicRunner<T> {
  readonly #opts: PeriodicRunnerOptions<T>;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<unknown> | null = null;
  #stopped = true;
  #abort = new AbortController();

  constructor(opts: PeriodicRunnerOptions<T>) {
    this.#opts = opts;
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    if (this.#abort.signal.aborted) this.#abort = new AbortController();
    this.#schedule(0);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#abort.abort();
    await this.#running;
  }

  async runOnce(): Promise<T> {
    await this.#running;
    const round = this.#opts.round(this.#abort.signal);
    this.#running = round.catch(() => {});
    return round;
  }

  #schedule(delay: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.runOnce()
        .then(
          (result) => this.#opts.onRound?.(result),
          (error) => this.#opts.onError?.(error),
        )
        .finally(() => this.#schedule(this.#opts.tickMs ?? 60_000));
    }, delay);
    this.#timer.unref();
  }
}
