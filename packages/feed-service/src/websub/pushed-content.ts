/**
 * A pushed feed document (WebSub content distribution, §7) goes through the same stages as a
 * polled one: decode, parse and normalise (process-document.ts), then the store stage
 * (store-document.ts). A push changes no fetch state: the feed's polling schedule, ETag and
 * health stay as the last poll left them.
 */
import { FeedServiceError } from "../errors.js";
import { processFeedDocument } from "../ingest/process-document.js";
import { storeDocument } from "../ingest/store-document.js";
import type { FeedUpdateResult, Store } from "../store/store.js";
import type { WebSubStore, WebSubSubscription } from "../store/websub-store.js";

export interface PushedDocument {
  body: Uint8Array;
  contentType: string | null;
  contentLanguage: string | null;
}

export type PushOutcome =
  | ({ kind: "stored" } & FeedUpdateResult)
  /** Not a feed we can read: recorded on the subscription; a retry by the hub would not help. */
  | { kind: "unreadable"; message: string }
  /** The feed is gone (removed while the push was on its way). */
  | { kind: "gone" };

/**
 * Stores a pushed document's posts for the subscription's feed. Throws only when the store
 * fails (the caller answers 503 so that the hub tries again).
 *
 * @example
 * const outcome = await storePushedDocument(store, store.websub, subscription, { body, contentType, contentLanguage: null }, Date.now());
 */
export async function storePushedDocument(
  store: Store,
  subscriptions: WebSubStore,
  sub: WebSubSubscription,
  pushed: PushedDocument,
  now: number,
): Promise<PushOutcome> {
  const feed = await store.feedById(sub.feedId);
  if (!feed) return { kind: "gone" };
  let doc: ReturnType<typeof processFeedDocument>;
  try {
    doc = processFeedDocument(pushed.body, pushed.contentType, sub.topicUrl, now, pushed.contentLanguage);
  } catch (error) {
    if (!(error instanceof FeedServiceError)) throw error;
    const message = `push: ${error.message}`.slice(0, 500);
    await subscriptions.updateSubscription(sub.feedId, { lastPushAt: now, lastError: message });
    return { kind: "unreadable", message };
  }
  const result = await storeDocument({ store }, feed, doc, { sourceUrl: sub.topicUrl, now, fetchState: {} });
  await subscriptions.updateSubscription(sub.feedId, { lastPushAt: now, lastError: null });
  return { kind: "stored", ...result };
}
