// Starts the server of a bench PostgreSQL folder, runs a command with its URL in PG_URL, stops the
// server: for by-hand tools (postgres-operator-explain.mjs) on a folder shared with other runs,
// inside a lock of that folder held for the whole run.
//
//   node bench/pg-folder-run.mjs <folder> <command...>   (e.g. sh -c 'node x.mjs --url "$PG_URL"')
import { spawnSync } from "node:child_process";
import { startBenchPostgres } from "./feed-service-postgres-corpus.mjs";

const [folder, ...command] = process.argv.slice(2);
const server = await startBenchPostgres(folder);
try {
  spawnSync(command[0], command.slice(1), { stdio: "inherit", env: { ...process.env, PG_URL: server.url } });
} finally {
  await server.stop();
}
