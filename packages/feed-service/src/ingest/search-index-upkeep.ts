/**
 * Keeps the full-text index merged after ingest. Every write transaction leaves index segments
 * behind and FTS5's own automerge stops at a few per level, so a store built by many ingest
 * passes is spread over many segments and each search term costs one doclist per segment; a
 * search engine merges in the background for the same reason (Lucene's merge policy). This runs
 * the store's bounded merge steps: `feed-service ingest` until merged, `serve` a bounded number
 * after each pass, so that a merge of a large index spreads over passes instead of holding one.
 */
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type { Store } from "../store/store.js";

export interface SearchIndexMerge {
  /** Steps run (each one short write transaction per index). */
  readonly steps: number;
  /** True when the last step found nothing left to merge. */
  readonly merged: boolean;
  readonly durationMs: number;
}

export interface SearchIndexMergeOptions {
  /** Index pages a step writes per index (default: the store's). */
  readonly pages?: number;
  /** At most this many steps (default: until merged). */
  readonly maxSteps?: number;
  /** Stops between steps once aborted (serve stopping). */
  readonly signal?: AbortSignal;
  readonly onStep?: (steps: number) => void;
}

/**
 * Runs merge steps until the indexes are merged, `maxSteps` ran or `signal` aborted. A store
 * without the step (PostgreSQL: its GIN index has no segments) is merged at once.
 *
 * @example
 * const merge = await mergeSearchIndex(store, { maxSteps: 50 });
 * if (!merge.merged) console.log("more next time");
 */
export async function mergeSearchIndex(
  store: Store,
  opts: SearchIndexMergeOptions = {},
): Promise<SearchIndexMerge> {
  const started = Date.now();
  if (!store.mergeSearchIndexStep) return { steps: 0, merged: true, durationMs: 0 };
  const maxSteps = opts.maxSteps ?? Number.POSITIVE_INFINITY;
  let steps = 0;
  let merged = false;
  while (steps < maxSteps && opts.signal?.aborted !== true) {
    const more = await store.mergeSearchIndexStep(opts.pages);
    steps++;
    opts.onStep?.(steps);
    if (!more) {
      merged = true;
      break;
    }
    // Between steps, requests waiting on this thread run (a step holds the thread while it writes).
    await yieldToEventLoop();
  }
  return { steps, merged, durationMs: Date.now() - started };
}
