// The real `feed-service serve --no-ingest` as a child process on a free loopback port, for the
// benchmarks that measure the service as users run it. Runs the BUILT package.
import { spawn } from "node:child_process";

const ownTree = new URL("..", import.meta.url).pathname;

/**
 * Starts serve on `database` (with `extraArgs`, e.g. ["--no-warm"]), from this checkout or from
 * `tree` (another checkout's build, for two builds compared in turns); resolves once it listens,
 * with the child, its base URL, how long the start took (ms, spawn to listening: the database
 * warm-up included) and what it printed until then.
 */
export function startServe(database, extraArgs = [], { tree = ownTree } = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      [
        `${tree}/packages/feed-service/bin/feed-service.js`,
        "serve",
        "--no-ingest",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--database",
        database,
        ...extraArgs,
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const m = /listening on 127\.0\.0\.1:(\d+)/.exec(out);
      if (m)
        resolve({
          child,
          base: `http://127.0.0.1:${m[1]}`,
          startMs: performance.now() - started,
          output: out,
        });
    });
    child.stderr.on("data", (chunk) => process.stderr.write(chunk));
    child.once("exit", (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
  });
}

/** Stops a server from startServe (SIGTERM) and waits for it to exit. */
export async function stopServe({ child }) {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}
