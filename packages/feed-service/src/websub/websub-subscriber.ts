/**
 * The subscriber side of WebSub that `serve --public-url` runs: every tick it asks the hubs of
 * the subscriptions whose time has come — new ones (discovered by a fetch), renewals at 85% of
 * the granted lease, expired and denied ones, and requests the hub never verified — and records
 * the outcome. The hub's verification and pushes arrive at the callback routes
 * (callback-routes.ts), in whichever process of the service the hub reaches: all state is in the
 * database. Its rounds run as the ingest scheduler's passes do (periodic-runner.ts): never two at
 * once, and the timer never keeps the process alive on its own.
 */
import { randomBytes } from "node:crypto";
import type { Dispatcher } from "undici";
import { PeriodicRunner } from "../periodic-runner.js";
import type { WebSubChanges, WebSubStore, WebSubSubscription } from "../store/websub-store.js";
import { HubRequestError, sendSubscriptionRequest } from "./hub-request.js";
import { webSubTimings } from "./websub-timings.js";

export interface WebSubSubscriberOptions {
  subscriptions: WebSubStore;
  /** The service's normalised public base URL; callbacks are `<publicUrl>/websub/<id>`. */
  publicUrl: string;
  /** hub.lease_seconds asked for (default 10 days; the hub decides). */
  leaseSeconds?: number;
  /** Time between the end of one round and the start of the next (default 60 s). */
  tickMs?: number;
  now?: () => number;
  dispatcher?: Dispatcher;
  /** Told of a round that failed as a whole (the database was unavailable). */
  onError?: (error: unknown) => void;
}

export interface SubscriberRound {
  requested: number;
  failed: number;
}

/** The callback URL of a subscription. */
export function callbackUrl(publicUrl: string, callbackId: string): string {
  return `${publicUrl}/websub/${callbackId}`;
}

export class WebSubSubscriber {
  readonly #opts: WebSubSubscriberOptions;
  readonly #runner: PeriodicRunner<SubscriberRound>;

  constructor(opts: WebSubSubscriberOptions) {
    this.#opts = opts;
    this.#runner = new PeriodicRunner({
      round: () => this.#round(),
      tickMs: opts.tickMs,
      onError: opts.onError,
    });
  }

  /**
   * Starts rounds: the first at once, then one per tick.
   *
   * @example
   * const subscriber = new WebSubSubscriber({ subscriptions: store.websub, publicUrl });
   * subscriber.start();
   * // ... on shutdown:
   * await subscriber.stop();
   */
  start(): void {
    this.#runner.start();
  }

  stop(): Promise<void> {
    return this.#runner.stop();
  }

  /** Runs one round now (after the one in progress): every subscription whose time has come. */
  runOnce(): Promise<SubscriberRound> {
    return this.#runner.runOnce();
  }

  async #round(): Promise<SubscriberRound> {
    const clock = this.#opts.now ?? Date.now;
    const due = await this.#opts.subscriptions.dueSubscriptions(clock(), 100);
    const round: SubscriberRound = { requested: 0, failed: 0 };
    for (const sub of due) {
      round.requested++;
      if (!(await this.#subscribe(sub, clock()))) round.failed++;
    }
    return round;
  }

  /** Asks the hub for (or to renew) one subscription; false when the request failed. */
  async #subscribe(sub: WebSubSubscription, now: number): Promise<boolean> {
    const subs = this.#opts.subscriptions;
    const stillActive = sub.state === "active" && (sub.leaseExpiresAt ?? 0) > now;
    // The callback and secret are made once per subscription and kept across renewals: the hub
    // knows the subscription by topic and callback (§5.1). A new hub or topic starts a new one.
    const callbackId = sub.callbackId ?? randomBytes(24).toString("base64url");
    const secret = sub.secret ?? randomBytes(32).toString("base64url");
    // `attempts` counts the requests sent since the hub last verified one. A request still
    // unverified when its time is up usually means the hub cannot reach the callback: say so.
    const attempts = sub.attempts + 1;
    const unverified =
      sub.attempts > 0 && sub.lastError === null && (sub.state === "pending" || sub.state === "active");
    // Saved before the request: a hub may verify before it even answers it (§5.3).
    const before: WebSubChanges = {
      state: stillActive ? "active" : "pending",
      callbackId,
      secret,
      attempts,
      nextAttemptAt:
        now +
        Math.max(webSubTimings.verifyWithinMs, attempts > 1 ? webSubTimings.retryAfterMs(attempts - 1) : 0),
    };
    if (unverified)
      before.lastError = `The hub accepted the last request but did not verify it; can it reach ${this.#opts.publicUrl}/websub/?`;
    if (!(await subs.updateSubscription(sub.feedId, before))) return true; // the feed was removed
    try {
      await sendSubscriptionRequest(
        {
          mode: "subscribe",
          hubUrl: sub.hubUrl,
          topicUrl: sub.topicUrl,
          callbackUrl: callbackUrl(this.#opts.publicUrl, callbackId),
          secret,
          leaseSeconds: this.#opts.leaseSeconds ?? webSubTimings.requestedLeaseSeconds,
        },
        { dispatcher: this.#opts.dispatcher },
      );
      // Nothing more to save: the hub's verification (callback-routes.ts) resets the attempts.
      return true;
    } catch (error) {
      await subs.updateSubscription(sub.feedId, {
        lastError: error instanceof HubRequestError ? error.message : "The subscription request failed.",
        nextAttemptAt: now + webSubTimings.retryAfterMs(attempts),
      });
      return false;
    }
  }
}
