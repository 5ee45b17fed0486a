import assert from "node:assert/strict";
import { test } from "node:test";
import { IndentSlots } from "./indent-slots.js";

test("lowest free slot, freed on close, n mod slots when all are busy", () => {
  const slots = new IndentSlots(3);
  assert.equal(slots.acquire(0), 0);
  assert.equal(slots.acquire(1), 1);
  assert.equal(slots.acquire(2), 2);
  assert.equal(slots.acquire(3), 0); // all busy: 3 mod 3
  assert.equal(slots.acquire(7), 1); // all busy: 7 mod 3
  slots.release(3, 0); // 3 never owned slot 0: it stays with connection 0
  assert.equal(slots.acquire(8), 2);
  slots.release(1, 1);
  assert.equal(slots.acquire(9), 1);
  slots.release(0, 0);
  assert.equal(slots.acquire(10), 0);
  assert.equal(IndentSlots.indentFor(2), "        ");
});

test("no slots means no indent", () => {
  const slots = new IndentSlots(0);
  assert.equal(slots.acquire(5), 0);
  assert.equal(IndentSlots.indentFor(0), "");
});
