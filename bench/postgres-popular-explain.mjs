// EXPLAIN (ANALYZE, BUFFERS) of every statement one PostgreSQL most-popular-posts call runs, on a
// read connection as the service leaves it after its start warm-up: the tables and indexes loaded
// into shared buffers (postgres-warm.ts), every read connection warmed (postgres-connection-warm.ts),
// the search planning read and popular posts answered once in each way (warmPopularPosts). The call
// runs through the store's own code on the connection the pool hands out next, each statement
// explained just before it runs for its rows, so that round 1's plans show the first reads; round 2
// repeats it. Reads only (no migration runs); windows as the newest N clicks or daysBack.
//   npx tsc -b && node bench/postgres-popular-explain.mjs --url postgres://... \
//     --newest 90000 [--days 483] [--limit 1000] [--category 3] [--plans] [--skip-warm]
//     [--dist <another build's packages/feed-service/dist>]
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    newest: { type: "string", multiple: true },
    days: { type: "string", multiple: true },
    limit: { type: "string" },
    category: { type: "string" },
    plans: { type: "boolean" },
    "skip-warm": { type: "boolean" },
    dist: { type: "string" },
  },
});
const dist = values.dist
  ? pathToFileURL(`${resolve(values.dist)}/`)
  : new URL("../packages/feed-service/dist/", import.meta.url);
const imp = (p) => import(new URL(p, dist).href);
const { openPostgresPool } = await imp("store/postgres/postgres-connection.js");
const { ConnectionWarmUp } = await imp("store/postgres/postgres-connection-warm.js");
const { warmPostgres } = await imp("store/postgres/postgres-warm.js");
const { readSearchPlanning } = await imp("store/postgres/postgres-search-plan.js");
const { mostPopularPosts, warmPopularPosts } = await imp("store/postgres/postgres-popular-posts.js");

const connections = new ConnectionWarmUp();
// The read pool as postgres-store.ts opens it (READ_SETTINGS, the store's type parsers).
const pool = await openPostgresPool({
  url: values.url,
  max: 10,
  createSchema: false,
  settings: { work_mem: "32MB", enable_seqscan: "off", max_parallel_workers_per_gather: 0, jit: "off" },
  onConnect: connections.onConnect,
});
if (!values["skip-warm"]) {
  const started = performance.now();
  const report = await warmPostgres(pool, undefined, undefined, connections);
  await connections.fill(pool, 10);
  await readSearchPlanning(pool);
  await warmPopularPosts(pool);
  console.log(
    `warm-up ${((performance.now() - started) / 1000).toFixed(1)} s, ${Math.round(report.bytes / 2 ** 20)} MB in shared buffers, ${Math.round((report.prefetchedBytes ?? 0) / 2 ** 20)} MB prefetched`,
  );
}

const DAY = 86_400_000;
const windows = [];
for (const n of values.newest ?? []) {
  const { rows } = await pool.query(
    "SELECT clicked_at::float8 AS at FROM clicks ORDER BY clicked_at DESC OFFSET $1 LIMIT 1",
    [Number(n) - 1],
  );
  windows.push({ label: `newest ${n} clicks`, since: rows[0].at });
}
for (const d of values.days ?? [])
  windows.push({ label: `daysBack ${d}`, since: Date.now() - Number(d) * DAY });

const limit = Number(values.limit ?? 1000);
const categoryId = values.category === undefined ? null : Number(values.category);
const client = await pool.connect();
const pid = (await client.query("SELECT pg_backend_pid() AS pid")).rows[0].pid;
for (const w of windows) {
  for (const round of [1, 2]) {
    // Each statement is explained before it runs for its rows: round 1's plans are first reads.
    let count = 0;
    const recorder = {
      query: async (sqlText, params) => {
        const text = typeof sqlText === "object" ? sqlText.text : sqlText;
        const args = typeof sqlText === "object" ? sqlText.values : params;
        const { rows } = await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT TEXT) ${text}`, args);
        const lines = rows.map((r) => r["QUERY PLAN"]);
        const time = lines.find((l) => l.startsWith("Execution Time")) ?? "";
        const buffers = lines.find((l) => l.trim().startsWith("Buffers")) ?? "";
        console.log(`  #${count++} ${time}; ${buffers.trim()}: ${text.replace(/\s+/g, " ").slice(0, 160)}`);
        if (values.plans) for (const l of lines) console.log(`     ${l}`);
        return client.query(sqlText, params);
      },
    };
    console.log(
      `\n${w.label} limit ${limit}${categoryId === null ? "" : ` category ${categoryId}`}, round ${round} on backend ${pid}:`,
    );
    const found = await mostPopularPosts(recorder, { since: w.since, limit, categoryId });
    const started = performance.now();
    await mostPopularPosts(client, { since: w.since, limit, categoryId });
    console.log(
      `  ${found.length} rows; the call alone after: ${(performance.now() - started).toFixed(1)} ms`,
    );
  }
}
client.release();
await pool.end();
