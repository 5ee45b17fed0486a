/**
 * The entry point of a `serve --workers N` worker process: runs `serve` with the arguments the
 * primary handed over in the environment. Inside a worker, `serve` listens through the cluster (the
 * port is shared) and starts the background ingest only in worker 1. Started outside a cluster it
 * runs `serve` like the command line does (the cluster test starts its primary this way).
 */
import { main } from "../cli.js";
import { CLUSTER_ARGV_ENV, isClusterWorker } from "./serve-cluster.js";

// Ctrl-C in a terminal signals the whole process group: a worker gets SIGINT itself, then the
// primary's SIGTERM while it is stopping. The first signal starts the stop (serve listens for it);
// later ones must not kill the worker half-way (the primary's SIGKILL after 10 s ends a hung one).
// Only inside a cluster: started alone, a second signal still ends this process at once.
if (isClusterWorker()) {
  const ignore = () => {};
  process.on("SIGINT", ignore);
  process.on("SIGTERM", ignore);
}

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
