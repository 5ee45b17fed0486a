// The output feeds suite (output-feeds.suite.ts) on SQLite; postgres-service.test.ts runs the same
// suite on PostgreSQL. Then the change clock on its own.
import assert from "node:assert/strict";
import { test } from "node:test";
import { sqliteBackend } from "../test-support/test-backends.js";
import { ChangeClock } from "./change-clock.js";
import { outputFeedsSuite } from "./output-feeds.suite.js";

outputFeedsSuite(sqliteBackend);

test("the change clock moves on with every new answer, even within one second, and only then", () => {
  const clock = new ChangeClock(2);
  const t = Date.UTC(2026, 0, 1, 12, 0, 0, 400);
  assert.equal(clock.lastModified("/a", '"1"', t), Date.UTC(2026, 0, 1, 12, 0, 0));
  assert.equal(clock.lastModified("/a", '"1"', t + 60_000), Date.UTC(2026, 0, 1, 12, 0, 0));
  assert.equal(clock.lastModified("/a", '"2"', t + 100), Date.UTC(2026, 0, 1, 12, 0, 1));
  assert.equal(clock.lastModified("/b", '"1"', t), Date.UTC(2026, 0, 1, 12, 0, 0));
  clock.lastModified("/c", '"1"', t + 5000);
  assert.equal(
    clock.lastModified("/a", '"2"', t + 9000),
    Date.UTC(2026, 0, 1, 12, 0, 9),
    "the oldest URL was forgotten",
  );
});
