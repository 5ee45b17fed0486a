/**
 * The heartbeat of a refresh that may outlive its claim's lease (a slow server, a large document,
 * a busy database): every third of the lease it renews the claim, so that no other worker takes
 * the feed while this one still works on it. When a renewal finds the claim lost (another worker
 * took it after a lease ran out, e.g. while this process was stalled), the refresh is told to stop:
 * its fetch is aborted and `confirm` answers false, so it stores nothing.
 */
import type { Store } from "../store/store.js";

export interface ClaimHeartbeatOptions {
  store: Store;
  feedId: number;
  worker: string;
  leaseMs: number;
  /** When the claim was taken or last renewed (its lease runs `leaseMs` from then). */
  claimedAt: number;
  now?: () => number;
}

export class ClaimHeartbeat {
  readonly #opts: ClaimHeartbeatOptions;
  readonly #clock: () => number;
  readonly #abort = new AbortController();
  #renewedAt: number;
  #timer: NodeJS.Timeout | null = null;
  #renewing: Promise<boolean> | null = null;

  /**
   * @example
   * const heartbeat = new ClaimHeartbeat({ store, feedId, worker, leaseMs, claimedAt: now }).start();
   * try { ... if (!(await heartbeat.confirm())) return; ... } finally { heartbeat.stop(); }
   */
  constructor(opts: ClaimHeartbeatOptions) {
    this.#opts = opts;
    this.#clock = opts.now ?? Date.now;
    this.#renewedAt = opts.claimedAt;
  }

  /** Aborted when the claim is found lost: hand it to the fetch. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  get lost(): boolean {
    return this.#abort.signal.aborted;
  }

  start(): this {
    // A third of the lease: two renewals may fail (a slow database) before the lease runs out.
    const every = Math.max(1, Math.floor(this.#opts.leaseMs / 3));
    this.#timer = setInterval(() => {
      // A failed renewal (database unreachable) is retried on the next beat; `confirm` reports it.
      this.#renew().catch(() => {});
    }, every);
    this.#timer.unref();
    return this;
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  /**
   * True when the claim is still this worker's for at least two thirds of a lease, renewing it
   * first if less is left, so that a write that follows runs under the claim. Nobody else can take
   * a feed before its lease runs out, so a recent renewal needs no round trip to the database.
   */
  async confirm(): Promise<boolean> {
    if (this.lost) return false;
    if (this.#clock() - this.#renewedAt < this.#opts.leaseMs / 3) return true;
    return this.#renew();
  }

  #renew(): Promise<boolean> {
    // One renewal at a time: a beat and a confirm never race each other.
    this.#renewing ??= this.#renewOnce().finally(() => {
      this.#renewing = null;
    });
    return this.#renewing;
  }

  async #renewOnce(): Promise<boolean> {
    if (this.lost) return false;
    const { store, feedId, worker, leaseMs } = this.#opts;
    const at = this.#clock();
    const held = await store.renewFeedClaim(feedId, worker, at, leaseMs);
    if (held) this.#renewedAt = at;
    else {
      this.stop();
      this.#abort.abort(new Error(`The claim on feed ${feedId} was taken by another worker.`));
    }
    return held;
  }
}
