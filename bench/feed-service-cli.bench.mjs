#!/usr/bin/env node
// How long the built feed-service bin takes to answer the listing commands on a small SQLite
// database (the 100-post demo corpus), process start to exit, against the 0.3 s limit and against
// a bare `node -e ''` started in the same run (the part no command can save). Each command runs
// ROUNDS times, interleaved with the bare start so that both see the same machine load; the table
// shows the median and the slowest run. Needs the built package: run `npx tsc -b` first.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROUNDS = Number(process.env.ROUNDS ?? 15);
const LIMIT_MS = 300;
const bin = fileURLToPath(new URL("../packages/feed-service/bin/feed-service.js", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "feed-service-cli-bench-"));
const db = join(dir, "small.db");

function run(args) {
  const started = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  return ms;
}

const commands = [
  ["feeds", "list"],
  ["categories", "list"],
  ["languages", "list"],
  ["smart-categories", "list"],
  ["feeds", "list", "--json"],
  ["opml", "export"],
  ["--help"],
];

try {
  run([bin, "demo", "--posts", "100", "--now", "2026-01-15T12:00:00Z", "--database", db]);
  const bare = [];
  const times = new Map(commands.map((c) => [c.join(" "), []]));
  // One untimed run of each first: the OS caches the files every later run reads.
  for (const c of commands) run([bin, ...c, "--database", db]);
  for (let i = 0; i < ROUNDS; i++) {
    bare.push(run(["-e", ""]));
    for (const c of commands) times.get(c.join(" ")).push(run([bin, ...c, "--database", db]));
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const bareMs = median(bare);
  const rows = [
    ["node -e ''", bareMs, Math.max(...bare)],
    ...[...times].map(([name, xs]) => [`feed-service ${name}`, median(xs), Math.max(...xs)]),
  ];
  const pad = (s, n) => String(s).padEnd(n);
  console.log(`${ROUNDS} runs each, small SQLite database (100 demo posts, 45 feeds)`);
  console.log(
    `${pad("command", 36)}${pad("median ms", 11)}${pad("max ms", 9)}${pad("median/limit", 14)}median/node -e ''`,
  );
  for (const [name, med, max] of rows) {
    console.log(
      `${pad(name, 36)}${pad(med.toFixed(0), 11)}${pad(max.toFixed(0), 9)}${pad((med / LIMIT_MS).toFixed(2), 14)}${(med / bareMs).toFixed(2)}`,
    );
  }
  const listing = median(times.get("feeds list"));
  console.log(
    `ratio: feeds list / ${LIMIT_MS} ms limit = ${(listing / LIMIT_MS).toFixed(2)} (target <= 1.00); ` +
      `feeds list / node -e '' = ${(listing / bareMs).toFixed(2)}`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
