// Runs a command with a PostgreSQL server started on a bench folder as the latency bench starts it
// (startBenchPostgres), its database's URL in PGURL, and stops the server after, whatever the
// command's outcome (the 1M folders must not be left with a server running).
//
//   node bench/with-bench-postgres.mjs <folder> <command> [args...]   (e.g. sh -c '... "$PGURL" ...')
import { spawnSync } from "node:child_process";
import { startBenchPostgres } from "./feed-service-postgres-corpus.mjs";

const [folder, command, ...args] = process.argv.slice(2);
const server = await startBenchPostgres(folder);
let status = 1;
try {
  const url = server.url.replace(/\/postgres$/, "/feeds");
  const { rows } = await server.query(
    "SELECT datname FROM pg_database WHERE datname NOT IN ('template0', 'template1')",
  );
  const dbs = rows.map((r) => r.datname);
  const db = dbs.includes("feeds") ? url : server.url;
  process.stderr.write(`server up: databases ${dbs.join(", ")}; PGURL=${db}\n`);
  status = spawnSync(command, args, { stdio: "inherit", env: { ...process.env, PGURL: db } }).status ?? 1;
} finally {
  await server.stop();
}
process.exit(status);
