/**
 * The entry point of a `serve --workers N` worker process: runs `serve` with the arguments the
 * primary handed over in the environment. Inside a worker, `serve` listens through the cluster (the
 * port is shared) and starts the background ingest only in worker 1. Started outside a cluster it
 * runs `serve` like the command line does (the cluster test starts its primary this way).
 */
import { main } from "../cli.js";
import { CLUSTER_ARGV_ENV } from "./serve-cluster.js";

const argv = JSON.parse(process.env[CLUSTER_ARGV_ENV] ?? "[]") as string[];
main(["serve", ...argv]).then(
  (code) => {
    process.exitCode = code;
    // A stopped worker leaves at once, even if a keep-alive socket or timer lingers.
    process.exit();
  },
  (error) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
