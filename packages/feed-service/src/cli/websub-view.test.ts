import assert from "node:assert/strict";
import { test } from "node:test";
import type { WebSubSubscription } from "../store/websub-store.js";
import { webSubView } from "./websub-view.js";

const T = Date.UTC(2026, 0, 10);
const active: WebSubSubscription = {
  feedId: 1,
  hubUrl: "https://hub.test/",
  topicUrl: "https://blog.test/feed",
  state: "active",
  callbackId: "Zr7QWJ0kq9wX8uVd3mN1bHc5TfYgLs2A",
  secret: "never-shown",
  leaseSeconds: 1000,
  leaseExpiresAt: T + 1_000_000,
  nextAttemptAt: T + 850_000,
  attempts: 0,
  lastError: null,
  discoveredAt: T,
  verifiedAt: T,
  lastPushAt: null,
};

test("the view: ISO instants, no secret or callback, and a lapsed lease shows as expired", () => {
  const view = webSubView(active, T + 1);
  assert.deepEqual(view, {
    state: "active",
    hubUrl: "https://hub.test/",
    topicUrl: "https://blog.test/feed",
    leaseExpiresAt: "2026-01-10T00:16:40.000Z",
    lastPushAt: null,
    nextAttemptAt: "2026-01-10T00:14:10.000Z",
    lastError: null,
  });
  assert.equal(webSubView(active, T + 1_000_000).state, "expired");
  assert.equal(webSubView({ ...active, state: "denied" }, T + 2_000_000).state, "denied");
});
