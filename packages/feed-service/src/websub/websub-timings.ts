/**
 * The intervals of the subscriber's life, in one place (the README lists them). The
 * Recommendation leaves them to the subscriber; these follow what hubs in use expect.
 */
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export const webSubTimings = {
  /** hub.lease_seconds asked for: 10 days, the usual default of hubs. */
  requestedLeaseSeconds: 10 * 24 * 3600,
  /** Renewal when this share of the granted lease has passed. */
  renewAt: 0.85,
  /** A request the hub has not verified by then is sent again. */
  verifyWithinMs: 15 * MINUTE,
  /** After a denial the hub is asked again this much later. */
  deniedRetryMs: 24 * HOUR,
  /** A failed request is retried after 15 min x 2^(n-1), at most a day. */
  retryAfterMs(attempts: number): number {
    return Math.min(24 * HOUR, 15 * MINUTE * 2 ** Math.max(0, attempts - 1));
  },
  /**
   * While a subscription is active, pushes bring the news: the feed is still polled as a safety
   * net, but no more often than this.
   */
  safetyNetPollMs: 6 * HOUR,
} as const;
