#!/usr/bin/env node
// Runs every benchmark script under bench/ (files named *.bench.mjs), one after the other, so that
// no two compete for this machine's two cores. `npm run bench -- <name>` runs the ones whose name
// contains <name>.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

const dir = fileURLToPath(new URL(".", import.meta.url));
const filter = process.argv[2] ?? "";
const scripts = readdirSync(dir)
  .filter((f) => f.endsWith(".bench.mjs") && f.includes(filter))
  .sort();
if (scripts.length === 0) {
  console.log(filter ? `no benchmark matches "${filter}"` : "no benchmarks yet");
  process.exit(0);
}
let failed = 0;
for (const script of scripts) {
  console.log(`\n=== ${script} ===`);
  const r = spawnSync(process.execPath, [script], { cwd: dir, stdio: "inherit" });
  if (r.status !== 0) failed++;
}
process.exit(failed === 0 ? 0 : 1);
