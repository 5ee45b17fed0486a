// What the refreshed click levels (migration 60, postgres-click-levels.ts) cost /click: rounds of
// --clicks `record_click` calls (the /click writer's one-click call) from --connections
// connections at once, each round with one refresh of the levels taken halfway (as the store
// takes it after REFRESH_CLICKS clicks) or none, alternating. Per round: the backends' CPU per
// click (/proc/<backend>/schedstat of the click connections and of the refresh's; root or the
// server's user), the clicks' latency (median, 99th percentile, max) and the refresh's CPU and
// wall. The click path itself has no trigger of the migration (its triggers fire on clicks
// deleted, moved or truncated and on a post's category or date), so the difference is the refresh.
// It WRITES clicks and migrates the database to this build's schema: run it on a copy of your own.
//
//   npx tsc -b && node bench/with-bench-postgres.mjs <a copy's folder> sh -c \
//     'node bench/postgres-click-levels-refresh.mjs --url "$PGURL" [--clicks 2000] [--rounds 4] [--connections 8]'
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    clicks: { type: "string" },
    rounds: { type: "string" },
    connections: { type: "string" },
  },
});
const dist = new URL("../packages/feed-service/dist/", import.meta.url);
const imp = (p) => import(new URL(p, dist).href);
const { openPostgresPool } = await imp("store/postgres/postgres-connection.js");
const { migratePostgres } = await imp("store/postgres/postgres-migrations.js");
const { refreshClickLevels } = await imp("store/postgres/postgres-click-levels.js");

const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");
const clicks = Number(values.clicks ?? 2000);
const rounds = Number(values.rounds ?? 4);
const connections = Number(values.connections ?? 8);

const migrating = await openPostgresPool({ url: values.url, max: 1 });
const started = performance.now();
const [{ v: before }] = (await migrating.query("SELECT max(version) AS v FROM schema_migrations")).rows;
const reached = await migratePostgres(migrating);
console.log(
  `schema ${before} -> ${reached} in ${((performance.now() - started) / 1000).toFixed(1)} s (load ${load()})`,
);
await migrating.end();

const pool = await openPostgresPool({ url: values.url, max: connections, createSchema: false });
const refreshPool = await openPostgresPool({ url: values.url, max: 1, createSchema: false });
const clients = await Promise.all(Array.from({ length: connections }, () => pool.connect()));
const pids = [];
for (const c of clients) pids.push((await c.query("SELECT pg_backend_pid() AS pid")).rows[0].pid);
const [{ pid: refreshPid }] = (await refreshPool.query("SELECT pg_backend_pid() AS pid")).rows;
const cpuOf = (pid) => Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
const cpu = () => [...pids, refreshPid].reduce((sum, pid) => sum + cpuOf(pid), 0);
await refreshClickLevels(refreshPool);

const posts = (
  await clients[0].query("SELECT id FROM posts TABLESAMPLE BERNOULLI (5) REPEATABLE (7) LIMIT $1", [
    clicks * rounds,
  ])
).rows.map((r) => r.id);
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

console.log(
  `\n${clicks} record_click calls a round from ${connections} connections; backends' CPU per click, latency ms`,
);
console.log(
  "| round | refresh | CPU µs a click | latency median / p99 / max | refresh CPU / wall ms | load |",
);
console.log("|---|---|---|---|---|---|");
let next = 0;
for (let r = 0; r < rounds * 2; r++) {
  const refresh = r % 2 === 1;
  const latencies = [];
  let done = 0;
  let refreshed = null;
  const cpu0 = cpu();
  const at = Date.now();
  await Promise.all(
    clients.map(async (client, c) => {
      for (let i = c; i < clicks; i += connections) {
        const post = posts[next++ % posts.length];
        const t0 = performance.now();
        await client.query("SELECT record_click($1, $2, $3, $4)", [post, `lv-${r}-${i}`, at + i, at + i - 1]);
        latencies.push(performance.now() - t0);
        if (++done === clicks / 2 && refresh) {
          const rc0 = cpuOf(refreshPid);
          const w0 = performance.now();
          refreshed = refreshClickLevels(refreshPool).then((report) => ({
            report,
            cpu: cpuOf(refreshPid) - rc0,
            wall: performance.now() - w0,
          }));
        }
      }
    }),
  );
  const ended = refreshed ? await refreshed : null;
  const perClick = ((cpu() - cpu0) / clicks) * 1000;
  console.log(
    `| ${r + 1} | ${refresh ? `yes (${ended.report.posts} posts)` : "no"} | ${perClick.toFixed(0)} | ${pct(latencies, 0.5).toFixed(2)} / ${pct(latencies, 0.99).toFixed(2)} / ${Math.max(...latencies).toFixed(2)} | ${ended ? `${ended.cpu.toFixed(1)} / ${ended.wall.toFixed(1)}` : "-"} | ${load()} |`,
  );
}
for (const c of clients) c.release();
await pool.end();
await refreshPool.end();
