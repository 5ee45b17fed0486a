/**
 * A full garbage collection of the calling thread's heap, once its warm-up is done. A warm-up
 * leaves its garbage and its survivors in the young generation and the old generation near its
 * first, small limit; without this the first call after start pays for them: the scavenge that
 * promotes the warm-up's survivors and the first mark-compact, in its own thread and in V8's
 * platform threads (spec §4 Latency: every first call). Node exposes no collection without
 * `--expose-gc`, so the flag is set for one new context's `gc` and set back at once.
 *
 * @returns whether a collection ran (false where the runtime refuses the flag)
 * @example
 * await warmUp();
 * collectGarbage();
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

export function collectGarbage(): boolean {
  try {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as unknown;
    if (typeof gc !== "function") return false;
    gc();
    return true;
  } catch {
    return false;
  } finally {
    // Only the context made above gets `gc`; later contexts (and the code they run) do not.
    setFlagsFromString("--no-expose-gc");
  }
}
