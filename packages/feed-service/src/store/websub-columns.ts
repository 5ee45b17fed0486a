/** The SQL both dialects share for the WebSub subscriptions table (see websub-store.ts). */
import type { WebSubChanges } from "./websub-store.js";

/** The column of each changeable field, for the dialects' UPDATE statements. */
export const webSubColumns: Readonly<Record<keyof WebSubChanges, string>> = {
  state: "state",
  callbackId: "callback_id",
  secret: "secret",
  leaseSeconds: "lease_seconds",
  leaseExpiresAt: "lease_expires_at",
  nextAttemptAt: "next_attempt_at",
  attempts: "attempts",
  lastError: "last_error",
  verifiedAt: "verified_at",
  lastPushAt: "last_push_at",
};

/** The SELECT list both dialects read a row with (aliases are the record's field names). */
export const webSubSelect = `feed_id AS "feedId", hub_url AS "hubUrl", topic_url AS "topicUrl", state,
  callback_id AS "callbackId", secret, lease_seconds AS "leaseSeconds",
  lease_expires_at AS "leaseExpiresAt", next_attempt_at AS "nextAttemptAt", attempts,
  last_error AS "lastError", discovered_at AS "discoveredAt", verified_at AS "verifiedAt",
  last_push_at AS "lastPushAt"`;
