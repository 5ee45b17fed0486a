/**
 * collect-garbage.ts: a full collection of the calling thread's heap, and no `gc` left to the
 * contexts made afterwards.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { runInNewContext } from "node:vm";
import { forcedCollections } from "../test-support/forced-collections.js";
import { collectGarbage } from "./collect-garbage.js";

test("collectGarbage runs one full collection of this thread's heap", async () => {
  let ran = false;
  assert.equal(
    await forcedCollections(() => {
      ran = collectGarbage();
    }),
    1,
  );
  assert.equal(ran, true);
});

test("after collectGarbage a new context has no gc, as before it", () => {
  assert.equal(runInNewContext("typeof gc"), "undefined");
  collectGarbage();
  assert.equal(runInNewContext("typeof gc"), "undefined");
  assert.equal(typeof (globalThis as { gc?: unknown }).gc, "undefined");
});
