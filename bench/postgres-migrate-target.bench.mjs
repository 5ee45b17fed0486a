// migrate-data of one SQLite file (opened by the copy's SQLite endpoint, which reads it and never
// migrates it) into a NEW embedded PostgreSQL folder of its own, timed against the goal of the
// 1,000,000-post demo in 5 minutes (3,333 posts/s); prints where the time went (the copy's steps)
// and the load average sampled every 15 s, then stops the server and DELETES the folder. For a
// copy too big to keep twice (the 1M demo: feed-service-postgres.bench.mjs would fill its cached
// corpus first and then copy again).
// Usage: npx tsc -b && TMPDIR=<your tree> nice -n 5 node bench/postgres-migrate-target.bench.mjs
//   --from <sqlite file> [--shared-buffers-mb 2048]
import { rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startEmbeddedPostgres } from "./embedded-postgres-server.mjs";

const { values } = parseArgs({
  options: { from: { type: "string" }, "shared-buffers-mb": { type: "string" } },
});
if (!values.from) throw new Error("--from <sqlite file> is required");
const dist = new URL("../packages/feed-service/dist/", import.meta.url);
const { migrateData } = await import(new URL("migrate/migrate-data.js", dist).href);
const goalPostsPerSecond = 1_000_000 / 300;
const folder = join(tmpdir(), "feed-toolkit-bench", `migrate-target-${process.pid}`);
const server = await startEmbeddedPostgres(folder, {
  settings: [
    `shared_buffers=${Number(values["shared-buffers-mb"] ?? 2048)}MB`,
    "max_connections=50",
    "maintenance_work_mem=512MB",
  ],
});
const loads = [];
const sample = () => loads.push(loadavg()[0]);
sample();
const sampler = setInterval(sample, 15_000);
const stamp = () => new Date().toISOString().slice(11, 19);
try {
  const started = performance.now();
  process.stderr.write(`${stamp()} migrate-data from ${values.from}\n`);
  const summary = await migrateData({
    from: values.from,
    to: server.url,
    batchSize: 5000,
    onStep: (step, ms) => process.stderr.write(`  ${stamp()} ${step}: ${(ms / 1000).toFixed(1)} s\n`),
  });
  const seconds = (performance.now() - started) / 1000;
  sample();
  clearInterval(sampler);
  const posts = summary.tables.find((t) => t.table === "posts").rows;
  const [size] = (await server.query("SELECT pg_size_pretty(pg_database_size('postgres')) AS size")).rows;
  console.log(`\n| migrate-data, ${posts} posts (${size.size}) | s |\n|---|---:|`);
  console.log(
    `| whole copy | ${seconds.toFixed(1)} (${(posts / seconds).toFixed(0)} posts/s, ${(posts / seconds / goalPostsPerSecond).toFixed(2)} of the goal: ${(posts / goalPostsPerSecond / seconds).toFixed(2)} of 5 minutes scaled to ${posts} posts) |`,
  );
  for (const { step, ms } of summary.steps) console.log(`| ${step} | ${(ms / 1000).toFixed(1)} |`);
  console.log(`\nload average (1 min) every 15 s: ${loads.map((l) => l.toFixed(1)).join(" ")}`);
} finally {
  clearInterval(sampler);
  await server.stop();
  rmSync(folder, { recursive: true, force: true });
}
