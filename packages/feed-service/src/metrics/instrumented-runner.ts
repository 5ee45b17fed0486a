/**
 * The operation runner with its calls timed into the query-duration histogram (spec §5.4: query
 * durations by operation), whichever adapter made the call.
 */
import { performance } from "node:perf_hooks";
import { FeedServiceError } from "../errors.js";
import type { OperationRunner } from "../operations/operation-runner.js";
import type { ServiceMetrics } from "./service-metrics.js";

/** `ok`, or the error's code without its prefix in lower case (`bad_argument`, `query_timeout`, …). */
function outcomeOf(error: unknown): string {
  return error instanceof FeedServiceError ? error.code.replace(/^FEED_/, "").toLowerCase() : "error";
}

export function instrumentRunner(runner: OperationRunner, metrics: ServiceMetrics): OperationRunner {
  return {
    ...runner,
    async call(operation, args, context) {
      const started = performance.now();
      try {
        const records = await runner.call(operation, args, context);
        metrics.query(operation, "ok", (performance.now() - started) / 1000);
        return records;
      } catch (error) {
        metrics.query(operation, outcomeOf(error), (performance.now() - started) / 1000);
        throw error;
      }
    },
  };
}
