import assert from "node:assert/strict";
import { test } from "node:test";
import {
  nextFetchAfterError,
  nextFetchAfterSuccess,
  defaultSchedulePolicy as policy,
} from "./schedule-policy.js";

const now = Date.UTC(2025, 0, 8);
const hour = 3_600_000;

test("the next fetch follows how often the feed posts, within the bounds", () => {
  const every6h = Array.from({ length: 28 }, (_, i) => now - i * 6 * hour);
  assert.equal(nextFetchAfterSuccess(every6h, now) - now, 6 * hour);
  const busy = Array.from({ length: 5000 }, (_, i) => now - i * 60_000);
  assert.equal(nextFetchAfterSuccess(busy, now) - now, policy.minIntervalMs);
  assert.equal(nextFetchAfterSuccess([now - 30 * 24 * hour, null], now) - now, policy.maxIntervalMs);
});

test("errors back off exponentially up to the maximum, and Retry-After wins when longer", () => {
  const delays = [1, 2, 3, 4, 10, 50].map((n) => nextFetchAfterError(n, null, now) - now);
  assert.deepEqual(
    delays.slice(0, 4),
    [15, 30, 60, 120].map((m) => m * 60_000),
  );
  assert.equal(delays[4], policy.maxIntervalMs);
  assert.equal(delays[5], policy.maxIntervalMs);
  assert.equal(nextFetchAfterError(1, 2 * hour, now) - now, 2 * hour);
  assert.equal(nextFetchAfterError(5, 60_000, now) - now, 4 * hour);
});
