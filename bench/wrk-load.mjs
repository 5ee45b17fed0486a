// One wrk run as both feed-service benchmarks use it: a 2 s warm-up so that JIT and page cache are
// settled for every contender alike, then the measured run with --latency. wrk is a C load
// generator: a Node one would take a core from the server on this 2-core machine.
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);
const unitMs = { us: 0.001, ms: 1, s: 1000 };

/**
 * Runs wrk (asynchronously, so servers in the calling process keep serving) against `url` with the
 * Lua script `lua`; returns requests per second, p50 and p99 in ms, non-2xx/3xx count and socket errors.
 * `measure`, when given, is called just before the measured run (not the warm-up); the function it
 * returns is called just after, and its value is the result's `measured`.
 */
export async function runWrk({ url, lua, connections, seconds, measure }) {
  await run("wrk", ["-t1", `-c${connections}`, "-d2s", "-s", lua, url]);
  const measured = measure?.();
  const result = await runWrkOnce({ url, lua, connections, seconds });
  return measured === undefined ? result : { ...result, measured: measured() };
}

/** One measured wrk run without the warm-up (for runs that must overlap another load). */
export async function runWrkOnce({ url, lua, connections, seconds }) {
  const { stdout: out } = await run("wrk", [
    "-t1",
    `-c${connections}`,
    `-d${seconds}s`,
    "--latency",
    "-s",
    lua,
    url,
  ]);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  const p50 = /\s50%\s+([\d.]+)(us|ms|s)\b/.exec(out);
  const p99 = /\s99%\s+([\d.]+)(us|ms|s)\b/.exec(out);
  const errors = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  const socketErrors = /Socket errors: (.*)/.exec(out)?.[1] ?? "none";
  const ms = (m) => (m ? Number(m[1]) * unitMs[m[2]] : Number.NaN);
  return { rps, p50: ms(p50), p99: ms(p99), errors, socketErrors };
}
