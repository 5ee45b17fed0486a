/**
 * The seeded draws give the sequences the tests' corpora were first drawn with (the copies each
 * test file held before they moved here): a change to either recurrence would change every
 * corpus built from it without any test failing for that reason.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { lcgDraws, mulberry32Draws } from "./seeded-draws.js";

/** Draws 0, 1, 2 and 999 of a sequence. */
function sample(next: () => number): number[] {
  const draws = Array.from({ length: 1000 }, next);
  return [draws[0]!, draws[1]!, draws[2]!, draws[999]!];
}

test("the LCG draws as the tests' copies drew (seed 7)", () => {
  assert.deepEqual(
    sample(lcgDraws(7)),
    [0.5970560554414988, 0.2992647886276245, 0.5422919988632202, 0.9941321909427643],
  );
});

test("the mulberry32 draws as the tests' copies drew (seed 19)", () => {
  assert.deepEqual(
    sample(mulberry32Draws(19)),
    [0.05854421923868358, 0.32688822830095887, 0.4525164095684886, 0.17246404057368636],
  );
});

test("each call starts its own sequence", () => {
  assert.deepEqual(sample(lcgDraws(7)), sample(lcgDraws(7)));
  assert.notDeepEqual(sample(lcgDraws(7)), sample(lcgDraws(8)));
});
