/**
 * When to fetch a feed next. After a success the interval follows how often the feed posts
 * (Miniflux's "entry frequency" policy): a week divided by the number of entries dated within the
 * last week, bounded by a minimum and a maximum. After a failure it backs off exponentially from
 * the minimum, up to the maximum, and never sooner than the server's Retry-After.
 */
export interface SchedulePolicy {
  /** Shortest interval between fetches of one feed (default 15 minutes). */
  minIntervalMs: number;
  /** Longest interval, for quiet feeds and the backoff ceiling (default 24 hours). */
  maxIntervalMs: number;
}

export const defaultSchedulePolicy: SchedulePolicy = {
  minIntervalMs: 15 * 60_000,
  maxIntervalMs: 24 * 60 * 60_000,
};

const week = 7 * 24 * 60 * 60_000;

/**
 * The next fetch time after a successful fetch.
 *
 * @example
 * // 28 entries in the last week: every 6 hours
 * nextFetchAfterSuccess(dates, Date.now(), defaultSchedulePolicy);
 */
export function nextFetchAfterSuccess(
  entryDates: ReadonlyArray<number | null>,
  now: number,
  policy: SchedulePolicy = defaultSchedulePolicy,
): number {
  const recent = entryDates.filter((d) => d !== null && d > now - week && d <= now).length;
  const interval = recent === 0 ? policy.maxIntervalMs : week / recent;
  return now + Math.round(Math.min(policy.maxIntervalMs, Math.max(policy.minIntervalMs, interval)));
}

/**
 * The next fetch time after the `errorCount`-th consecutive failure (1 = the first).
 *
 * @example
 * nextFetchAfterError(3, null, now); // now + 1 hour (15 min × 2²)
 */
export function nextFetchAfterError(
  errorCount: number,
  retryAfterMs: number | null,
  now: number,
  policy: SchedulePolicy = defaultSchedulePolicy,
): number {
  const exponent = Math.min(Math.max(errorCount - 1, 0), 30);
  const backoff = Math.min(policy.maxIntervalMs, policy.minIntervalMs * 2 ** exponent);
  const wait =
    retryAfterMs === null ? backoff : Math.max(backoff, Math.min(retryAfterMs, 7 * policy.maxIntervalMs));
  return now + wait;
}
