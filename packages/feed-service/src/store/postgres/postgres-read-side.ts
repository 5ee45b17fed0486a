/**
 * The read side of the PostgreSQL store: the pool the 16 operations read from, with the query
 * deadline (spec §3) as the server's `statement_timeout` on each of its connections, and a lane
 * for the heavy reads. Heavy reads (search, the ranked lists, language data, deep pages) may hold
 * at most `heavyConcurrency` connections, fewer than the pool has, so that the cheap reads
 * (catalogue lists, first pages) always find one; a heavy read that finds the lane's queue full is
 * refused at once (FEED_OVERLOADED) instead of piling up behind slow ones.
 */
import type pg from "pg";
import { badArgument, FeedServiceError } from "../../errors.js";
import { defaultHeavyQueries } from "../query-limits.js";
import type { Sql } from "./postgres-connection.js";
import { ReadLane } from "./postgres-read-lane.js";

export interface ReadSideOptions {
  /** Connections of the read pool (default 10). */
  poolSize?: number;
  /** The query deadline in milliseconds (default 10,000). */
  queryTimeoutMs?: number;
  /**
   * Heavy reads running at once (default: one fewer than the cores, at least 1, below the pool
   * size; see defaultHeavyQueries in query-limits.ts). More than the cores only queue on them
   * and hold the light reads behind (figures in bench/NOTES.md).
   */
  heavyConcurrency?: number;
  /** Processes of one service sharing the cores, for the default heavyConcurrency (default 1). */
  processes?: number;
  /** Heavy reads waiting at most before more are refused (default 64). */
  heavyQueueLimit?: number;
}

export type ResolvedReadSideOptions = Required<ReadSideOptions>;

function wholeNumber(name: string, value: number | undefined, min: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < min) {
    throw badArgument(`The PostgreSQL ${name} must be a whole number of ${min} or more; got ${value}.`);
  }
  return value;
}

/** Checks the options and fills in the defaults. */
export function resolveReadSideOptions(options: ReadSideOptions): ResolvedReadSideOptions {
  const poolSize = wholeNumber("pool size", options.poolSize, 1, 10);
  const heavyConcurrency = wholeNumber(
    "heavy query concurrency",
    options.heavyConcurrency,
    1,
    Math.max(1, Math.min(defaultHeavyQueries("postgres", options.processes), poolSize - 1)),
  );
  if (poolSize > 1 && heavyConcurrency >= poolSize) {
    throw badArgument(
      `The PostgreSQL heavy query concurrency must be below the pool size (${poolSize}), so that cheap reads always find a connection; got ${heavyConcurrency}.`,
    );
  }
  return {
    poolSize,
    queryTimeoutMs: wholeNumber("query timeout (ms)", options.queryTimeoutMs, 1, 10_000),
    heavyConcurrency,
    heavyQueueLimit: wholeNumber("heavy query queue limit", options.heavyQueueLimit, 0, 64),
    processes: wholeNumber("process count", options.processes, 1, 1),
  };
}

/** The deadline error, naming the deadline in seconds as a person would write it. */
export function queryTimeoutError(timeoutMs: number, cause?: unknown): FeedServiceError {
  const seconds = Number((timeoutMs / 1000).toFixed(3));
  return new FeedServiceError(
    "FEED_QUERY_TIMEOUT",
    `The query ran longer than the ${seconds}-second query deadline and was stopped; narrow it or try again.`,
    { cause },
  );
}

export class PostgresReadSide {
  readonly pool: pg.Pool;
  readonly options: ResolvedReadSideOptions;
  readonly #heavy: ReadLane;

  /** `pool` must have been opened with the setting `statement_timeout: options.queryTimeoutMs`. */
  constructor(pool: pg.Pool, options: ResolvedReadSideOptions) {
    this.pool = pool;
    this.options = options;
    this.#heavy = new ReadLane({
      concurrency: options.heavyConcurrency,
      queueLimit: options.heavyQueueLimit,
      waitTimeoutMs: options.queryTimeoutMs,
      onWaitTimeout: () => queryTimeoutError(options.queryTimeoutMs),
    });
  }

  /** Heavy reads running and waiting now. */
  get heavyLoad(): { running: number; waiting: number } {
    return this.#heavy.load;
  }

  /** A read of bounded, small cost: straight to the pool. */
  cheap<T>(read: (sql: Sql) => Promise<T>): Promise<T> {
    return this.#deadline(read(this.pool));
  }

  /** A read that may take a while: through the heavy lane. */
  heavy<T>(read: (sql: Sql) => Promise<T>): Promise<T> {
    return this.#deadline(this.#heavy.run(() => read(this.pool)));
  }

  /** Either lane, as `heavy` says. */
  read<T>(heavy: boolean, read: (sql: Sql) => Promise<T>): Promise<T> {
    return heavy ? this.heavy(read) : this.cheap(read);
  }

  async #deadline<T>(promise: Promise<T>): Promise<T> {
    try {
      return await promise;
    } catch (error) {
      if (error instanceof FeedServiceError && error.code === "FEED_QUERY_TIMEOUT") {
        throw queryTimeoutError(this.options.queryTimeoutMs, error.cause);
      }
      throw error;
    }
  }

  end(): Promise<void> {
    return this.pool.end();
  }
}
