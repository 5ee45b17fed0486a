// Chunks are forwarded first and logged at the end of the turn, in the order they were read,
// and at once when a Finished line needs them or when a bulk transfer has queued 64 KiB.
import assert from "node:assert/strict";
import { test } from "node:test";
import { setImmediate as turnEnd } from "node:timers/promises";
import { type ChunkLogger, ChunkLogQueue, DRAIN_NOW_BYTES } from "./chunk-log-queue.js";

function recorder(name: string, into: string[]): ChunkLogger {
  return { logChunk: (chunk) => into.push(`${name}:${chunk.toString("latin1")}`) };
}

test("queued chunks are logged at the end of the turn, in read order across directions", async () => {
  const logged: string[] = [];
  const queue = new ChunkLogQueue();
  const c = recorder("C", logged);
  const s = recorder("S", logged);
  // More than the arrays' first capacity, interleaved.
  const expected: string[] = [];
  for (let k = 0; k < 150; k++) {
    const [who, name] = k % 3 === 0 ? [s, "S"] : [c, "C"];
    queue.push(who, Buffer.from(String(k)));
    expected.push(`${name}:${k}`);
  }
  assert.deepEqual(logged, [], "nothing is logged while the turn forwards");
  assert.equal(queue.length, 150);
  await turnEnd();
  assert.deepEqual(logged, expected);
  assert.equal(queue.length, 0);
});

test("drain() logs what waits now, and 64 KiB queued drains at once", () => {
  const logged: string[] = [];
  const queue = new ChunkLogQueue();
  const c = recorder("C", logged);
  queue.push(c, Buffer.from("a"));
  queue.drain();
  assert.deepEqual(logged, ["C:a"]);
  queue.push(c, Buffer.from("b"));
  queue.push(c, Buffer.alloc(DRAIN_NOW_BYTES - 1, "x"));
  assert.equal(logged.length, 3, "the chunk that reaches the limit is logged with those before it");
  assert.equal(logged[1], "C:b");
  assert.equal(queue.length, 0);
});
