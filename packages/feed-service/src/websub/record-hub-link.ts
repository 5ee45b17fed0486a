/**
 * What a polled fetch tells WebSub: the hub and topic it found are recorded on the feed (whether
 * or not this process subscribes: `serve --public-url` does), and while the feed's subscription
 * is active the poll becomes a slow safety net. A failure here never fails the refresh: the posts
 * matter more than the hub.
 */
import type { Store } from "../store/store.js";
import type { HubLink } from "../store/websub-store.js";
import { webSubTimings } from "./websub-timings.js";

/**
 * Records the feed's hub and returns the earliest next poll the subscription allows (null: poll
 * as the schedule says).
 *
 * @example
 * const floor = await recordHubLink(store, feed.feedId, discoverHub(fetched.links, fetched.url, doc.metadata), now);
 * nextFetchAt = Math.max(scheduled, floor ?? 0);
 */
export async function recordHubLink(
  store: Store,
  feedId: number,
  found: HubLink | null,
  now: number,
): Promise<number | null> {
  try {
    const sub = await store.websub.recordHubLink(feedId, found, now);
    const active = sub?.state === "active" && (sub.leaseExpiresAt ?? 0) > now;
    return active ? now + webSubTimings.safetyNetPollMs : null;
  } catch {
    return null;
  }
}
