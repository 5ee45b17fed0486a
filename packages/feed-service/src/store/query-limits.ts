/**
 * The limits that keep one heavy call from holding up the others (spec §3, query deadline; §4,
 * Latency), shared by both dialects: the deadline of a query, how many may wait, and the errors a
 * call gets when it passes the deadline or finds the queue full.
 */
import { availableParallelism } from "node:os";
import { FeedServiceError } from "../errors.js";

export interface QueryLimits {
  /** A query still running this long after it was asked for is stopped (default 10 s). */
  readonly queryTimeoutMs?: number;
  /** Query threads for the heavy operations (SQLite; default: the number of cores). */
  readonly threads?: number;
  /** Calls that may wait for a heavy query slot before new ones are refused at once (default 256). */
  readonly maxQueued?: number;
}

export const defaultQueryTimeoutMs = 10_000;
export const defaultMaxQueued = 256;

export function defaultQueryThreads(): number {
  return Math.max(1, availableParallelism());
}

/** "10 s", "2.5 s", "300 ms": the deadline as a person reads it. */
function describeDeadline(ms: number): string {
  return ms >= 1000 ? `${Number((ms / 1000).toFixed(3))} s` : `${ms} ms`;
}

export function queryTimeoutError(timeoutMs: number): FeedServiceError {
  return new FeedServiceError(
    "FEED_QUERY_TIMEOUT",
    `The query ran past the ${describeDeadline(timeoutMs)} query deadline and was stopped; narrow it (a smaller limit or window, rarer words) or try again later.`,
  );
}

export function overloadedError(): FeedServiceError {
  return new FeedServiceError("FEED_OVERLOADED", "The service is busy; try again in a moment.");
}
