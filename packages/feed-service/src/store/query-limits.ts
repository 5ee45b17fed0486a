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
  /**
   * Heavy reads (searches, rankings, deep pages) run at once by this process: SQLite query
   * threads, PostgreSQL connections (default: defaultHeavyQueries).
   */
  readonly threads?: number;
  /** Processes of one service sharing this machine's cores (serve --workers; default 1). */
  readonly processes?: number;
  /** Calls that may wait for a heavy query slot before new ones are refused at once (default 256). */
  readonly maxQueued?: number;
}

export const defaultQueryTimeoutMs = 10_000;
export const defaultMaxQueued = 256;

/**
 * Heavy reads at once per process by default. SQLite: one query thread per core, at a lower CPU
 * priority than the request thread (sqlite-pooled-store.ts). PostgreSQL: one fewer than the cores
 * (at least one): its server processes cannot be given a lower priority from here, so a core is
 * left to the light reads, a trade of heavy throughput for their latency (figures from a 2-core
 * machine in bench/NOTES.md; a PostgreSQL server on its own machine deserves more, with
 * `serve --heavy-queries`). Divided among `processes` sharing the cores.
 */
export function defaultHeavyQueries(dialect: "sqlite" | "postgres", processes = 1): number {
  const cores = availableParallelism();
  return Math.max(1, Math.floor((dialect === "sqlite" ? cores : cores - 1) / Math.max(1, processes)));
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
