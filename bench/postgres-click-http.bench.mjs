// The PostgreSQL bench's /click row (feed-service-postgres.bench.mjs: one `serve --workers 1
// --no-ingest`, wrk -t1 -c8, GET /click/<id> on posts drawn at random between the least and the
// greatest id, one client address, so a repeat within 10 minutes is answered and not counted)
// on a shaped corpus's PostgreSQL copy, against 2,000 stored clicks/s, without that bench's
// migrate-data and ingest before each round. With --baseline, that build ("old") and this one
// ("new") in turns, R rounds, old first in odd rounds and new first in even ones, each build's
// click upkeep put in place before its run
// (postgres-click-upkeeps.mjs: the old build runs migration 64's, this one 66's; a build applies
// no migration to a database newer than it). --socket adds a run of this build in each round
// whose service reaches the server through its Unix-domain socket (`host=` the socket directory
// in the database URL) instead of TCP on 127.0.0.1; with three builds the order also turns every
// two rounds, so 6 rounds put each build in each place twice. Per run: requests/s, p50/p99, clicks stored and how
// many were a post's first, and per stored click the CPU of the service process and of the whole
// PostgreSQL server (all its processes); with --statements, pg_stat_statements (track all:
// triggers' statements under their own text) per stored click, the top --top. At the end the
// kept counts of the counted words (blocks, periods, clicked posts' words) are held to a count
// from the posts (made and rolled back). It writes clicks: run it on a COPY of the corpus tree.
//
//   TMPDIR=<copy tree> BENCH_PG_SHARED_BUFFERS_MB=1024 node bench/postgres-click-http.bench.mjs
//     --shape long-tail --posts 200000 [--seconds 10] [--baseline <old checkout>/packages/feed-service/dist
//     --rounds 3] [--click-connections 8] [--socket] [--statements --top 12]
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { startBenchPostgres } from "./feed-service-postgres-corpus.mjs";
import { clickUpkeeps, recountClickCounts, settleClickCounts } from "./postgres-click-upkeeps.mjs";
import { localPostmasterOf, processCpuMs, serverCpuMs } from "./postgres-server-cpu.mjs";
import { openShapePostgres, shapesFolder } from "./shape-corpus.mjs";
import { runWrkOnce } from "./wrk-load.mjs";

const { values } = parseArgs({
  options: {
    shape: { type: "string", default: "long-tail" },
    posts: { type: "string", default: "200000" },
    seconds: { type: "string", default: "10" },
    rounds: { type: "string", default: "3" },
    baseline: { type: "string" },
    "click-connections": { type: "string", default: "8" },
    statements: { type: "boolean" },
    socket: { type: "boolean" },
    top: { type: "string", default: "12" },
  },
});
const seconds = Number(values.seconds);
const clickGoalPerSecond = 2_000;
const dist = new URL("../packages/feed-service/dist/", import.meta.url);
const { default: pg } = await import(createRequire(new URL("../package.json", dist)).resolve("pg"));
const upkeeps = await clickUpkeeps(dist);
const writers = [{ name: "new", folder: dist, upkeep: upkeeps.current }];
if (values.socket) writers.push({ name: "new, socket", folder: dist, upkeep: upkeeps.current, socket: true });
if (values.baseline)
  writers.unshift({
    name: "old",
    folder: pathToFileURL(`${resolve(values.baseline)}/`),
    upkeep: upkeeps.migration64,
  });
for (const w of writers) w.bin = new URL("../bin/feed-service.js", w.folder).pathname;

// The corpus built (and stopped) first unless its PostgreSQL copy is there (this bench reads no
// SQLite file), then its server started again (with the statistics on).
const folder = join(shapesFolder, `${values.shape}-${values.posts}-postgres`);
if (!existsSync(join(folder, "READY")))
  await (await openShapePostgres(values.shape, Number(values.posts))).stop();
// The server's socket in a directory of this run's own (TMPDIR), for --socket.
const socketDir = mkdtempSync(join(tmpdir(), "pg-socket-"));
// Writable by the server's user (the bench's server runs as `postgres` when the bench is root).
chmodSync(socketDir, 0o777);
const server = await startBenchPostgres(folder, {
  settings: [
    `unix_socket_directories=${socketDir}`,
    ...(values.statements
      ? [
          "shared_preload_libraries=pg_stat_statements",
          "pg_stat_statements.track=all",
          "pg_stat_statements.max=10000",
        ]
      : []),
  ],
});
/** The same database through the socket: pg takes `host` in the query string over the URL's host. */
const socketUrl = `${server.url}?host=${encodeURIComponent(socketDir)}`;
const admin = new pg.Client({ connectionString: server.url });
await admin.connect();
const postmaster = await localPostmasterOf(server.url);
const load = () => loadavg()[0].toFixed(1);

/** Starts `feed-service serve --workers 1` of `bin`; resolves with its URL, pid and a stop function. */
async function startService(bin, database) {
  const child = spawn(
    process.execPath,
    [
      bin,
      "serve",
      "--workers",
      "1",
      "--port",
      "0",
      "--host",
      "127.0.0.1",
      "--no-ingest",
      "--database",
      database,
    ],
    { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, FEED_SERVICE_DATABASE: "" } },
  );
  let out = "";
  let err = "";
  child.stdout.on("data", (c) => {
    out += c;
  });
  child.stderr.on("data", (c) => {
    err += c;
  });
  const port = await new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      const m = /listening on 127\.0\.0\.1:(\d+)/.exec(out);
      if (m) {
        clearInterval(timer);
        resolve(Number(m[1]));
      } else if (child.exitCode !== null) {
        clearInterval(timer);
        reject(new Error(`serve exited: ${err}`));
      }
    }, 50);
  });
  return {
    url: `http://127.0.0.1:${port}/`,
    pid: child.pid,
    stop: () =>
      new Promise((resolve) => {
        child.once("exit", resolve);
        child.kill("SIGTERM");
      }),
  };
}

const counts = async () =>
  (
    await admin.query(
      "SELECT (SELECT count(*) FROM clicks)::int AS clicks, (SELECT count(*) FROM clicked_posts)::int AS clicked",
    )
  ).rows[0];

/** One build's /click run: wrk for `seconds`, what it stored, and the CPU of both sides. */
async function timeClicks(writer) {
  await admin.query(writer.upkeep);
  await settleClickCounts(admin);
  const { rows } = await admin.query("SELECT min(id) AS lo, max(id) AS hi FROM posts");
  const lua = join(tmpdir(), `postgres-click-http-bench-${process.pid}.lua`);
  writeFileSync(
    lua,
    // A seed of its own each run: wrk's Lua seeds alike in every run, so each run would draw the
    // posts of the one before, whose clicks from this address within 10 minutes count once.
    `math.randomseed(${Math.floor(Math.random() * 2 ** 31)})
request = function()
  return wrk.format("GET", "/click/" .. math.random(${rows[0].lo}, ${rows[0].hi}))
end
`,
  );
  const service = await startService(writer.bin, writer.socket ? socketUrl : server.url);
  try {
    // One request first: the service opens its pools and reads the install secret.
    await fetch(new URL(`click/${rows[0].lo}`, service.url), { redirect: "manual" });
    if (values.statements) await admin.query("SELECT pg_stat_statements_reset()");
    const before = await counts();
    const loads = [load()];
    const service0 = processCpuMs(service.pid);
    const server0 = serverCpuMs(postmaster);
    const r = await runWrkOnce({
      url: service.url,
      lua,
      connections: Number(values["click-connections"]),
      seconds,
    });
    const serviceMs = processCpuMs(service.pid) - service0;
    const serverMs = serverCpuMs(postmaster) - server0;
    loads.push(load());
    // The service's connections that came through the socket (a client port of -1), as a check.
    const socketConnections = (
      await admin.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE client_port = -1 AND backend_type = 'client backend'",
      )
    ).rows[0].n;
    const after = await counts();
    const stored = after.clicks - before.clicks;
    const first = after.clicked - before.clicked;
    let statements = [];
    if (values.statements)
      statements = (
        await admin.query(
          `SELECT calls::int, total_exec_time::float8 AS ms, left(regexp_replace(query, '\\s+', ' ', 'g'), 100) AS q
            FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
              AND query NOT LIKE '%pg_stat_statements%'
            ORDER BY total_exec_time DESC LIMIT $1`,
          [Number(values.top)],
        )
      ).rows;
    return { ...r, stored, first, serviceMs, serverMs, loads, statements, socketConnections };
  } finally {
    await service.stop();
  }
}

const fmt = (n, d = 0) =>
  Number.isFinite(n)
    ? n.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d })
    : "-";
try {
  if (values.statements) await admin.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
  const unclicked = (await admin.query("SELECT count(*)::int AS n FROM posts WHERE clicks = 0")).rows[0].n;
  console.log(
    `\n/click through HTTP, ${values.shape}-${values.posts} (PostgreSQL), 1 service process, wrk -t1 -c${values["click-connections"]} ${seconds} s, random posts, one client address; ${fmt(unclicked)} posts unclicked at the start`,
  );
  console.log(
    `| round | build | req/s | stored/s (ratio to ${fmt(clickGoalPerSecond)}) | of them first clicks | p50 / p99 ms | non-2xx/3xx | service CPU µs / request, / stored click | server CPU µs / request, / stored click | load |`,
  );
  console.log("|---|---|---:|---:|---:|---|---:|---:|---:|---|");
  const rounds = values.baseline || values.socket ? Number(values.rounds) : 1;
  const runs = [];
  for (let round = 1; round <= rounds; round++) {
    // The order reversed every other round (a run leaves the next one its writes to clean up), and
    // with three builds also turned by one every two rounds, so each takes every place in turn.
    const order = round % 2 === 1 ? writers : [...writers].reverse();
    const turn = writers.length > 2 ? Math.floor((round - 1) / 2) % writers.length : 0;
    for (const writer of [...order.slice(turn), ...order.slice(0, turn)]) {
      const run = await timeClicks(writer);
      runs.push({ round, writer, run });
      console.log(
        `| ${round} | ${writer.name}${writer.socket ? ` (${run.socketConnections} connections on it)` : ""} | ${fmt(run.rps)} | ${fmt(run.stored / seconds)} (${fmt(run.stored / seconds / clickGoalPerSecond, 2)}) | ${fmt(run.first)} (${fmt((100 * run.first) / Math.max(1, run.stored))} %) | ${fmt(run.p50, 2)} / ${fmt(run.p99, 1)} | ${run.errors} | ${fmt((run.serviceMs * 1000) / Math.max(1, run.rps * seconds))}, ${fmt((run.serviceMs * 1000) / Math.max(1, run.stored))} | ${fmt((run.serverMs * 1000) / Math.max(1, run.rps * seconds))}, ${fmt((run.serverMs * 1000) / Math.max(1, run.stored))} | ${run.loads.join("-")} |`,
      );
    }
  }
  if (values.statements)
    for (const { round, writer, run } of runs) {
      console.log(
        `\n${writer.name} round ${round}: statements, µs per stored click (calls per stored click)`,
      );
      for (const s of run.statements)
        console.log(
          `  ${fmt((s.ms * 1000) / Math.max(1, run.stored), 1).padStart(9)}  (${fmt(s.calls / Math.max(1, run.stored), 2)})  ${s.q}`,
        );
    }
  const d = await recountClickCounts(admin, upkeeps);
  console.log(
    `\nkept against a count from the posts: ${d.blocks} of ${d.nblocks} block rows differ, ${d.periods} of ${d.nperiods} period entries differ; ${d.words} of ${d.clicked} clicked posts' words differ (rows of words no longer counted, left out: ${d.stalePeriods} period rows, ${d.staleWords} clicked posts' words holding one)`,
  );
} finally {
  // This build's upkeep left in place: the database is at its schema.
  await admin.query(upkeeps.current).catch(() => {});
  await admin.end();
  await server.stop();
  rmSync(socketDir, { recursive: true, force: true });
}
