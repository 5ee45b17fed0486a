#!/usr/bin/env node
// Runs every `*.test.ts` under packages/*/src (or under the folders given as arguments) with
// node:test over the TypeScript sources (tsx), resolving workspace packages to their sources
// through the "source" export condition so that no rebuild is needed between edits.
import { spawnSync } from "node:child_process";
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
const result = spawnSync(
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
  { cwd: root, stdio: "inherit" },
);
process.exit(result.status ?? 1);
