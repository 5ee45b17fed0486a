import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const cli = fileURLToPath(new URL("./run-cli.ts", import.meta.url));

/** The relay's command line in a child process, with its output collected. */
export interface RelayProcess {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves to the exit code once the process has exited. */
  exited: Promise<number | null>;
}

export function spawnRelay(args: string[]): RelayProcess {
  const child = spawn(process.execPath, ["--import", "tsx", cli, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = once(child, "exit").then(([code]) => code as number | null);
  return { child, ...collectedOutput(child), exited };
}

/** What a child process writes to its standard output and error, collected as it comes. */
export function collectedOutput(child: ChildProcess): { stdout: () => string; stderr: () => string } {
  let out = "";
  let err = "";
  child.stdout!.setEncoding("utf8").on("data", (s: string) => {
    out += s;
  });
  child.stderr!.setEncoding("utf8").on("data", (s: string) => {
    err += s;
  });
  return { stdout: () => out, stderr: () => err };
}

/** A process's resident set and its peak so far, in MiB, from /proc. */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? Number.NaN);
  return { rss: kib("VmRSS") / 1024, peak: kib("VmHWM") / 1024 };
}
