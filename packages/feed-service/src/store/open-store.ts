/**
 * Opens the store named by a `--database` value (spec §6): a file path, `sqlite:<path>`,
 * `:memory:`, or a `postgres://` URL (optionally with a read replica for the query side).
 */
import { resolve } from "node:path";
import { badArgument } from "../errors.js";
import type { QueryLimits } from "./query-limits.js";
import type { Store } from "./store.js";

export interface OpenStoreOptions {
  /** A read replica (`postgres://` only) that serves the reads of the 16 operations. */
  readLocation?: string;
  /**
   * Serve the reads of the 16 operations off the calling thread, with a deadline and a bounded
   * queue (what `serve` does): a SQLite file gets a pool of query threads. Left out, every SQLite
   * call runs on the calling thread (the admin commands, ingest, tests of the store itself).
   * PostgreSQL reads always run with a deadline and a heavy lane; `queryTimeoutMs` sets it.
   */
  queryLimits?: QueryLimits;
}

const postgresUrl = /^postgres(ql)?:\/\//i;

/**
 * @example
 * const store = await openStore("./data/feeds.db");
 * const memory = await openStore(":memory:");
 * const shared = await openStore("postgres://feeds@db/feeds", { readLocation: "postgres://feeds@replica/feeds" });
 */
export async function openStore(location: string, options: OpenStoreOptions = {}): Promise<Store> {
  const value = location.trim();
  if (value === "") {
    throw badArgument(
      "The database must be a file path, sqlite:<path>, :memory: or a postgres:// URL; got nothing.",
    );
  }
  const readLocation = options.readLocation?.trim() || undefined;
  if (postgresUrl.test(value)) {
    if (readLocation !== undefined && !postgresUrl.test(readLocation)) {
      throw badArgument("The read database must be a postgres:// URL, like the database it replicates.");
    }
    // PostgreSQL always reads with the deadline (statement_timeout) and a heavy lane; serve's
    // --query-timeout sets the deadline, --heavy-queries (or else --workers) the lane's width.
    const limits = options.queryLimits ?? {};
    // Each backend's modules (and its driver) load only when a database of that kind opens: a
    // command on a SQLite file never waits for pg, nor one on PostgreSQL for better-sqlite3.
    const { openPostgresStore } = await import("./postgres/postgres-store.js");
    return openPostgresStore({
      url: value,
      readUrl: readLocation,
      ...(limits.queryTimeoutMs === undefined ? {} : { queryTimeoutMs: limits.queryTimeoutMs }),
      ...(limits.threads === undefined ? {} : { heavyConcurrency: limits.threads }),
      ...(limits.processes === undefined ? {} : { processes: limits.processes }),
    });
  }
  if (readLocation !== undefined) {
    throw badArgument("A read database can only be given with a postgres:// database; SQLite has one file.");
  }
  const { openSqliteStore } = await import("./sqlite/sqlite-store.js");
  if (value === ":memory:" || value === "sqlite::memory:") return openSqliteStore(":memory:");
  const path = value.startsWith("sqlite:") ? value.slice("sqlite:".length) : value;
  if (path === "" || /^[a-z][a-z0-9+.-]*:\/\//i.test(path)) {
    throw badArgument(
      `The database must be a file path, sqlite:<path>, :memory: or a postgres:// URL; got ${JSON.stringify(location)}.`,
    );
  }
  const file = resolve(path);
  const store = openSqliteStore(file);
  if (!options.queryLimits) return store;
  // The service answers only once its query threads can: otherwise the first calls after start
  // wait for threads to boot and open their connections (about half a second on a 2-core machine).
  const { SqlitePooledStore } = await import("./sqlite/sqlite-pooled-store.js");
  const pooled = new SqlitePooledStore(store, file, options.queryLimits);
  await pooled.ready();
  return pooled;
}
