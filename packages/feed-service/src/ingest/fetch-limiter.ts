/**
 * Concurrency limits for fetching: at most `overall` fetches at once, and at most `perHost` to
 * any one host, so that a pass over many feeds on one site does not hammer it. A host that
 * answered 429/503 with Retry-After is held back until then (`holdHost`).
 */
export interface FetchLimiterOptions {
  overall?: number;
  perHost?: number;
}

interface Waiter {
  host: string;
  start: () => void;
}

export class FetchLimiter {
  readonly overall: number;
  readonly perHost: number;
  #running = 0;
  readonly #perHostRunning = new Map<string, number>();
  readonly #waiting: Waiter[] = [];
  readonly #heldUntil = new Map<string, number>();

  constructor(opts: FetchLimiterOptions = {}) {
    this.overall = opts.overall ?? 16;
    this.perHost = opts.perHost ?? 2;
    if (!Number.isInteger(this.overall) || this.overall < 1)
      throw new RangeError("overall must be a whole number ≥ 1");
    if (!Number.isInteger(this.perHost) || this.perHost < 1)
      throw new RangeError("perHost must be a whole number ≥ 1");
  }

  /**
   * Runs `task` once a slot for `host` is free.
   *
   * @example
   * const limiter = new FetchLimiter({ overall: 8, perHost: 2 });
   * await limiter.run("example.com", () => fetchFeed("https://example.com/feed"));
   */
  run<T>(host: string, task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        this.#running++;
        this.#perHostRunning.set(host, (this.#perHostRunning.get(host) ?? 0) + 1);
        task()
          .then(resolve, reject)
          .finally(() => {
            this.#running--;
            const n = this.#perHostRunning.get(host)! - 1;
            if (n === 0) this.#perHostRunning.delete(host);
            else this.#perHostRunning.set(host, n);
            this.#drain();
          });
      };
      this.#waiting.push({ host, start });
      this.#drain();
    });
  }

  /** Holds back new fetches to `host` until `until` (epoch ms). */
  holdHost(host: string, until: number): void {
    this.#heldUntil.set(host, Math.max(until, this.#heldUntil.get(host) ?? 0));
  }

  /** When the host may be fetched again, or null if it is not held. */
  hostHeldUntil(host: string, now: number): number | null {
    const until = this.#heldUntil.get(host);
    if (until === undefined) return null;
    if (until <= now) {
      this.#heldUntil.delete(host);
      return null;
    }
    return until;
  }

  #drain(): void {
    for (let i = 0; i < this.#waiting.length && this.#running < this.overall; ) {
      const w = this.#waiting[i]!;
      if ((this.#perHostRunning.get(w.host) ?? 0) < this.perHost) {
        this.#waiting.splice(i, 1);
        w.start();
      } else i++;
    }
  }
}
