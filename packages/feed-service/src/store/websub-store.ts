/**
 * A feed's WebSub subscription (W3C WebSub Recommendation, subscriber side) as the store keeps it:
 * one row per feed whose documents name a hub, from discovery through the subscription's life.
 * Instants are epoch milliseconds (UTC), as everywhere in the store.
 */

/**
 * - `discovered`: the feed names a hub; no subscription asked for yet (or WebSub is off).
 * - `pending`: a subscription was asked for; the hub has not verified it yet.
 * - `active`: the hub verified it; pushes are accepted until `leaseExpiresAt`.
 * - `denied`: the hub refused it (hub.mode=denied); asked again after a day.
 * - `expired`: the lease ran out without a renewal being verified; asked again at once.
 */
export type WebSubState = "discovered" | "pending" | "active" | "denied" | "expired";

export const webSubStates: readonly WebSubState[] = ["discovered", "pending", "active", "denied", "expired"];

export interface WebSubSubscription {
  feedId: number;
  hubUrl: string;
  /** hub.topic: the feed's self URL, else the URL it was fetched from. */
  topicUrl: string;
  state: WebSubState;
  /** The unguessable last segment of the callback URL; null until the first subscription request. */
  callbackId: string | null;
  /** hub.secret of the subscription (never logged, never answered). */
  secret: string | null;
  /** The lease the hub granted in its last verification, in seconds. */
  leaseSeconds: number | null;
  leaseExpiresAt: number | null;
  /** When the subscriber should act next: subscribe, renew, or retry. */
  nextAttemptAt: number;
  /** Failed subscription requests in a row (drives the backoff). */
  attempts: number;
  lastError: string | null;
  discoveredAt: number;
  verifiedAt: number | null;
  lastPushAt: number | null;
}

/** What a fetch found: the hub to subscribe at and the topic to subscribe to. */
export interface HubLink {
  hubUrl: string;
  topicUrl: string;
}

/** The fields a step of the subscription's life changes (identity and discovery stay). */
export type WebSubChanges = Partial<
  Omit<WebSubSubscription, "feedId" | "hubUrl" | "topicUrl" | "discoveredAt">
>;

/** The store's side of WebSub, on both dialects. */
export interface WebSubStore {
  /**
   * Records what a fetch of the feed found. A new hub or topic starts the subscription over (new
   * callback and secret at the next request); `null` (no hub any more) forgets the row. Returns
   * the row as it now is.
   */
  recordHubLink(feedId: number, found: HubLink | null, now: number): Promise<WebSubSubscription | undefined>;
  subscriptionByFeed(feedId: number): Promise<WebSubSubscription | undefined>;
  subscriptionByCallback(callbackId: string): Promise<WebSubSubscription | undefined>;
  /** Rows whose next attempt has come, soonest first. */
  dueSubscriptions(now: number, limit: number): Promise<WebSubSubscription[]>;
  /** Every row, by feed id (for `feeds list`). */
  subscriptions(): Promise<WebSubSubscription[]>;
  /** Saves the given fields of a feed's row; false when there is no such row. */
  updateSubscription(feedId: number, changes: WebSubChanges): Promise<boolean>;
}
