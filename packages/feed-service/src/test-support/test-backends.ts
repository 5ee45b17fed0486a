/**
 * The databases the end-to-end suites run on, so that one suite body runs unchanged on SQLite and
 * on a real PostgreSQL. A backend hands out fresh, empty databases as `--database` locations for
 * `openStore`: SQLite a file in its own temp folder, PostgreSQL a new database on one embedded
 * server per test file (started on first use, so SQLite-only files never start one).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestPostgres, type TestPostgres } from "./test-postgres-server.js";

export interface TestDatabase {
  /** What `openStore` (and `--database`) takes to open it, from any number of connections. */
  readonly location: string;
  /** Removes it (its files); a no-op where the backend's `stop` removes everything anyway. */
  drop(): void;
}

export interface TestBackend {
  readonly name: "sqlite" | "postgres";
  newDatabase(): Promise<TestDatabase>;
  /** Stops what the backend started (the embedded server); call it from the file's `after`. */
  stop(): Promise<void>;
}

/** SQLite: every database a file in a new temp folder, removed by `drop`. */
export const sqliteBackend: TestBackend = {
  name: "sqlite",
  async newDatabase() {
    const folder = mkdtempSync(join(tmpdir(), "feed-service-test-"));
    return {
      location: join(folder, "feeds.db"),
      drop: () => rmSync(folder, { recursive: true, force: true }),
    };
  },
  async stop() {},
};

/**
 * PostgreSQL: one embedded server, started by the first `newDatabase`, a new database per call.
 *
 * @example
 * const backend = postgresBackend();
 * after(() => backend.stop());
 * soapOperationsSuite(backend);
 */
export function postgresBackend(): TestBackend {
  let server: Promise<TestPostgres> | undefined;
  let count = 0;
  return {
    name: "postgres",
    async newDatabase() {
      server ??= startTestPostgres();
      count += 1;
      return { location: await (await server).createDatabase(`service_${count}`), drop() {} };
    },
    async stop() {
      if (server !== undefined) await (await server).stop();
    },
  };
}
