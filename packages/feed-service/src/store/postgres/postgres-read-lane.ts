/**
 * A concurrency limit with a bounded queue: at most `concurrency` calls run at once, at most
 * `queueLimit` wait, and a call that would wait beyond that is refused at once (load shedding: a
 * client told "busy" can retry elsewhere, one left waiting cannot). A waiting call also gives up
 * after `waitTimeoutMs`, so that time spent queueing counts against the query deadline.
 */
import { FeedServiceError } from "../../errors.js";

export interface ReadLaneOptions {
  /** Calls running at once. */
  concurrency: number;
  /** Calls waiting at most; one more is refused with FEED_OVERLOADED. */
  queueLimit: number;
  /** How long a call may wait for its turn. */
  waitTimeoutMs: number;
  /** The error a call that waited too long fails with. */
  onWaitTimeout: () => Error;
}

interface Waiter {
  start: () => void;
  timer: NodeJS.Timeout;
}

export function overloadedError(): FeedServiceError {
  return new FeedServiceError("FEED_OVERLOADED", "The service is busy; try again in a moment.");
}

/**
 * @example
 * const heavy = new ReadLane({ concurrency: 5, queueLimit: 64, waitTimeoutMs: 10_000, onWaitTimeout });
 * const rows = await heavy.run(() => pool.query("SELECT ..."));
 */
export class ReadLane {
  readonly #options: ReadLaneOptions;
  readonly #waiting: Waiter[] = [];
  #running = 0;

  constructor(options: ReadLaneOptions) {
    this.#options = options;
  }

  /** Calls running now and waiting now (for tests and metrics). */
  get load(): { running: number; waiting: number } {
    return { running: this.#running, waiting: this.#waiting.length };
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#running >= this.#options.concurrency) await this.#turn();
    else this.#running++;
    try {
      return await task();
    } finally {
      this.#release();
    }
  }

  #turn(): Promise<void> {
    if (this.#waiting.length >= this.#options.queueLimit) return Promise.reject(overloadedError());
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        start: () => {
          clearTimeout(waiter.timer);
          resolve();
        },
        timer: setTimeout(() => {
          const at = this.#waiting.indexOf(waiter);
          if (at >= 0) this.#waiting.splice(at, 1);
          reject(this.#options.onWaitTimeout());
        }, this.#options.waitTimeoutMs),
      };
      this.#waiting.push(waiter);
    });
  }

  /** Hands the slot straight to the next waiter (so a new arrival cannot overtake the queue). */
  #release(): void {
    const next = this.#waiting.shift();
    if (next) next.start();
    else this.#running--;
  }
}
