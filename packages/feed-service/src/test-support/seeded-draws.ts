/**
 * Seeded draws in [0, 1) for tests that build their data at random: the same seed gives the same
 * sequence on every run, so a corpus drawn from it is the same and a failure can be replayed. Two
 * recurrences, because the tests' corpora were first drawn with both; each test keeps its own.
 */
import { SeededRandom } from "../demo/seeded-random.js";

/**
 * A linear congruential recurrence with the multiplier and increment of the C standard's sample
 * rand() (C11 7.22.2.2), mod 2^31 in doubles exactly as the tests first wrote it: the product can
 * pass 2^53 and round, and the corpora were drawn with that rounding, so the expression stays.
 */
export function lcgDraws(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** mulberry32, the demo corpus's generator (demo/seeded-random.ts), as a bare function. */
export function mulberry32Draws(seed: number): () => number {
  const random = new SeededRandom(seed);
  return () => random.next();
}
