/**
 * `feed-service serve --workers N`: N processes serving one port (node:cluster). The primary only
 * supervises: it forks the workers, passes their output through (each line tagged with the worker's
 * number), restarts a worker that dies, and on SIGINT/SIGTERM stops them all. Every worker opens
 * its own store connection; only worker 1 runs the background ingest (ingest claims would keep
 * several schedulers safe, but one is enough and keeps the others free for requests).
 */
import cluster, { type Worker } from "node:cluster";
import { extname } from "node:path";
import { fileURLToPath } from "node:url";
import type { Output } from "../console-output.js";

/** Set in a worker's environment: the `serve` arguments, as JSON. */
export const CLUSTER_ARGV_ENV = "FEED_SERVICE_CLUSTER_ARGV";
/** Set to 1 in the environment of the one worker that runs the background ingest. */
export const CLUSTER_INGEST_ENV = "FEED_SERVICE_CLUSTER_INGEST";

export interface ServeClusterOptions {
  workers: number;
  /** The `serve` arguments, handed to every worker unchanged. */
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  output: Output;
  stopSignal: Promise<string>;
  /** Restarts allowed within `restartWindowMs` before the primary gives up (default 5 in 30 s). */
  maxRestarts?: number;
  restartWindowMs?: number;
}

/** True in a process that `runServeCluster` started as a worker. */
export function isClusterWorker(): boolean {
  return cluster.isWorker && process.env[CLUSTER_ARGV_ENV] !== undefined;
}

/** Whether this process should run the background ingest: always outside a cluster, worker 1 in one. */
export function runsIngestInCluster(): boolean {
  return !isClusterWorker() || process.env[CLUSTER_INGEST_ENV] === "1";
}

function workerEntry(): string {
  // The same extension as this module: .ts when run from source (tests), .js when built.
  const self = fileURLToPath(import.meta.url);
  return fileURLToPath(new URL(`./serve-entry${extname(self)}`, import.meta.url));
}

/** Forwards a stream's lines, each tagged with the worker's number. */
function forwardLines(
  stream: NodeJS.ReadableStream | null,
  tag: string,
  write: (text: string) => void,
): void {
  if (!stream) return;
  let pending = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => {
    pending += chunk;
    const lines = pending.split("\n");
    pending = lines.pop()!;
    for (const line of lines) write(`${tag} ${line}\n`);
  });
  stream.on("end", () => {
    if (pending !== "") write(`${tag} ${pending}\n`);
  });
}

/**
 * Runs the workers until the stop signal (exit code 0) or until workers keep dying (exit code 1).
 *
 * @example
 * const code = await runServeCluster({ workers: 2, argv: ["--port", "8080"], env: process.env,
 *   output: processOutput, stopSignal });
 */
export async function runServeCluster(options: ServeClusterOptions): Promise<number> {
  const { output } = options;
  const maxRestarts = options.maxRestarts ?? 5;
  const windowMs = options.restartWindowMs ?? 30_000;
  cluster.setupPrimary({ exec: workerEntry(), args: [], silent: true });
  const slots = new Map<Worker, number>();
  const listened = new Set<number>();
  const restarts: number[] = [];
  let stopping = false;
  let failed = false;
  let resolveGiveUp!: () => void;
  const gaveUp = new Promise<void>((r) => {
    resolveGiveUp = r;
  });

  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(options.env)) if (v !== undefined) env[k] = v;
  const fork = (slot: number) => {
    const worker = cluster.fork({
      ...env,
      [CLUSTER_ARGV_ENV]: JSON.stringify(options.argv),
      [CLUSTER_INGEST_ENV]: slot === 1 ? "1" : "0",
    });
    slots.set(worker, slot);
    forwardLines(worker.process.stdout, `[worker ${slot}]`, (t) => output.out(t));
    forwardLines(worker.process.stderr, `[worker ${slot}]`, (t) => output.err(t));
  };

  const onListening = (worker: Worker, address: { address: string | null; port: number }) => {
    const slot = slots.get(worker)!;
    if (listened.has(slot)) return;
    listened.add(slot);
    if (listened.size === options.workers) {
      output.out(
        `feed-service: ${options.workers} workers listening on ${address.address ?? "0.0.0.0"}:${address.port}\n`,
      );
    }
  };
  const onExit = (worker: Worker, code: number | null, signal: string | null) => {
    const slot = slots.get(worker)!;
    slots.delete(worker);
    if (stopping) return;
    const why = signal ? `signal ${signal}` : `code ${code}`;
    const now = Date.now();
    while (restarts.length > 0 && restarts[0]! < now - windowMs) restarts.shift();
    if (!listened.has(slot) || restarts.length >= maxRestarts) {
      output.err(
        `feed-service: worker ${slot} exited (${why}) ${listened.has(slot) ? "too often" : "before it could serve"}; stopping\n`,
      );
      failed = true;
      resolveGiveUp();
      return;
    }
    restarts.push(now);
    output.err(`feed-service: worker ${slot} exited (${why}); starting a new one\n`);
    fork(slot);
  };
  cluster.on("listening", onListening);
  cluster.on("exit", onExit);
  try {
    for (let slot = 1; slot <= options.workers; slot++) fork(slot);
    const signal = await Promise.race([options.stopSignal, gaveUp.then(() => null)]);
    if (signal) output.out(`feed-service: ${signal}, stopping ${options.workers} workers\n`);
    stopping = true;
    await stopWorkers(slots, output);
    return failed ? 1 : 0;
  } finally {
    cluster.off("listening", onListening);
    cluster.off("exit", onExit);
  }
}

/**
 * SIGTERM to every worker (each closes its server and store), SIGKILL after 10 s; a worker that
 * ends otherwise than by its own clean stop (exit 0) is reported.
 */
async function stopWorkers(slots: ReadonlyMap<Worker, number>, output: Output): Promise<void> {
  await Promise.all(
    [...slots].map(
      ([worker, slot]) =>
        new Promise<void>((resolve) => {
          if (worker.isDead()) return resolve();
          const timer = setTimeout(() => worker.process.kill("SIGKILL"), 10_000);
          worker.once("exit", (code: number | null, signal: string | null) => {
            clearTimeout(timer);
            if (code !== 0) {
              output.err(
                `feed-service: worker ${slot} did not stop cleanly (${signal ? `signal ${signal}` : `code ${code}`})\n`,
              );
            }
            resolve();
          });
          worker.process.kill("SIGTERM");
        }),
    ),
  );
}
