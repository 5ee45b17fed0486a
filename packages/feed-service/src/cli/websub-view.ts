/**
 * A feed's WebSub subscription as `feeds list` shows it: the state in the table, and in `--json`
 * the hub, topic, lease, last push, next attempt and last error. Never the secret, nor the
 * callback id (the callback URL is all a forger would need besides the secret).
 */
import type { WebSubState, WebSubSubscription } from "../store/websub-store.js";
import { isoOrNull } from "./output.js";

export interface WebSubView {
  state: WebSubState;
  hubUrl: string;
  topicUrl: string;
  leaseExpiresAt: string | null;
  lastPushAt: string | null;
  nextAttemptAt: string;
  lastError: string | null;
}

/** An active subscription whose lease has run out (no renewal verified) shows as expired. */
export function webSubView(sub: WebSubSubscription, now: number): WebSubView {
  const lapsed = sub.state === "active" && sub.leaseExpiresAt !== null && sub.leaseExpiresAt <= now;
  return {
    state: lapsed ? "expired" : sub.state,
    hubUrl: sub.hubUrl,
    topicUrl: sub.topicUrl,
    leaseExpiresAt: isoOrNull(sub.leaseExpiresAt),
    lastPushAt: isoOrNull(sub.lastPushAt),
    nextAttemptAt: isoOrNull(sub.nextAttemptAt)!,
    lastError: sub.lastError,
  };
}
