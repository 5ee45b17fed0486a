/**
 * The test runner's shared PostgreSQL (`scripts/run-tests.mjs` starts this file as a child): starts
 * one embedded server, prints its URL as one line on stdout, and stops and removes it when its
 * standard input closes (the runner ended, however it ended) or on SIGTERM/SIGINT.
 */
import { startEmbeddedPostgres } from "./test-postgres-server.js";

// Two test files run at once, each with pools of its own (the per-file servers allow 200).
const server = await startEmbeddedPostgres({ maxConnections: 400 });
process.stdout.write(`${server.url}\n`);
let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  server.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.stdin.on("end", stop);
process.stdin.on("close", stop);
process.stdin.resume();
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
