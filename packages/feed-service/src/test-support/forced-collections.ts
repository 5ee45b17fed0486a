/**
 * How many full collections were forced (collect-garbage.ts) in this thread while `run` ran: V8
 * marks a collection asked for by `gc()` as forced, which none of its own is.
 *
 * @example
 * assert.equal(await forcedCollections(() => warmUp()), 1);
 */
import { constants, PerformanceObserver } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";

export async function forcedCollections(run: () => unknown): Promise<number> {
  let forced = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const { detail } = entry as unknown as { detail: { kind: number; flags: number } };
      if (
        detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR &&
        (detail.flags & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) !== 0
      )
        forced++;
    }
  });
  observer.observe({ entryTypes: ["gc"] });
  try {
    await run();
    // The entries of a collection reach the observer on a later turn of the event loop.
    await sleep(50);
  } finally {
    observer.disconnect();
  }
  return forced;
}
