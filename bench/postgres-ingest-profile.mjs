// Where a PostgreSQL refresh's time goes, per post: the same refreshes as postgres-ingest.bench.mjs
// (a copy of the cached corpus database, the build's store opened on it and its background
// choice of counted words awaited first), applied once with the server's own accounting on:
// pg_stat_statements (track all, so the triggers' statements show under their own text) and
// track_functions, the WAL written (pg_current_wal_lsn), each GIN index's pending list
// (pgstatginindex) before and after, the statements the store sent (round trips), the CPU of
// this process and of the ingest backend, and this process's functions by self time (the V8
// profiler over the same span).
// Usage: npx tsc -b && TMPDIR=<corpus folder> BENCH_PG_SHARED_BUFFERS_MB=1024 node bench/postgres-ingest-profile.mjs
//   [--posts 100000] [--refreshes 100] [--per-refresh 50] [--dist <a build's packages/feed-service/dist>]
//   [--batch N] [--top 25]
// --batch N: the refreshes go N at a time through the store's applyFeedUpdates where the build
// has it (as ingest's FeedWriteBatch sends them), one by one otherwise.
import { Session } from "node:inspector/promises";
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { basename, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { openPostgresCorpus } from "./feed-service-postgres-corpus.mjs";
import { applyRefreshes, demoRefreshes } from "./postgres-ingest-refreshes.mjs";
import { processCpuMs } from "./postgres-server-cpu.mjs";

const { values } = parseArgs({
  options: {
    posts: { type: "string" },
    refreshes: { type: "string" },
    "per-refresh": { type: "string" },
    dist: { type: "string" },
    batch: { type: "string" },
    top: { type: "string" },
  },
});
const posts = Number(values.posts ?? 100_000);
const refreshCount = Number(values.refreshes ?? 100);
const batch = Number(values.batch ?? 1);
const perRefresh = Number(values["per-refresh"] ?? 50);
const top = Number(values.top ?? 25);
const dist = values.dist
  ? pathToFileURL(`${resolve(values.dist)}/`)
  : new URL("../packages/feed-service/dist/", import.meta.url);
// The driver the build's store loads (another checkout's own), so that its statements can be counted.
const { default: pg } = await import(createRequire(new URL("../package.json", dist)).resolve("pg"));
const { openStore } = await import(new URL("store/open-store.js", dist).href);

const corpus = await openPostgresCorpus(posts, {
  settings: [
    "shared_preload_libraries=pg_stat_statements",
    "pg_stat_statements.track=all",
    "pg_stat_statements.max=10000",
    "track_functions=all",
  ],
});
const admin = new pg.Client({ connectionString: corpus.url.replace(/\/postgres$/, "/template1") });
await admin.connect();
const database = `ingest_profile_${process.pid}`;
const ms = (x) => Number(x).toFixed(1);
try {
  await admin.query(`CREATE DATABASE ${database} TEMPLATE postgres STRATEGY FILE_COPY`);
  const url = corpus.url.replace(/\/postgres$/, `/${database}`);
  const check = new pg.Client({ connectionString: url });
  await check.connect();
  const store = await openStore(url);
  try {
    // The background choice of the counted words holds off writes while it counts: not ingest's cost.
    await store.recountCommonWords?.();
    const counted = (
      await check.query("SELECT count(*)::int AS n, count(lexeme)::int AS words FROM counted_searches")
    ).rows[0];
    await check.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    await check.query("CREATE EXTENSION IF NOT EXISTS pgstattuple");
    const gins = (
      await check.query(
        `SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
          WHERE a.amname = 'gin' AND i.indrelid = 'posts'::regclass ORDER BY 1`,
      )
    ).rows.map((r) => r.relname);
    const pending = async () => {
      const out = {};
      for (const g of gins) {
        const [r] = (
          await check.query("SELECT pending_pages, pending_tuples FROM pgstatginindex($1::regclass)", [g])
        ).rows;
        out[g] = r;
      }
      return out;
    };
    const feeds = await store.feeds();
    const refreshes = await demoRefreshes(feeds, {
      count: refreshCount,
      at: Date.now(),
      tag: "pf",
      dist,
      perRefresh,
    });
    const postCount = refreshes.reduce((n, r) => n + r.posts.length, 0);
    await admin.query("CHECKPOINT");
    const pendingBefore = await pending();
    await check.query("SELECT pg_stat_statements_reset()");
    await check.query("SELECT pg_stat_reset()");
    const [{ lsn: lsnBefore }] = (await check.query("SELECT pg_current_wal_lsn() AS lsn")).rows;
    const backends = async () =>
      (
        await check.query(
          "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()",
        )
      ).rows.map((r) => r.pid);
    const cpuBefore = new Map((await backends()).map((pid) => [pid, processCpuMs(pid)]));
    // Statements the store sends (each one a round trip): the driver's Client.query, counted.
    const proto = pg.Client.prototype;
    const query = proto.query;
    let sent = 0;
    proto.query = function (...args) {
      sent++;
      return query.apply(this, args);
    };
    const session = new Session();
    session.connect();
    await session.post("Profiler.enable");
    await session.post("Profiler.setSamplingInterval", { interval: 200 });
    await session.post("Profiler.start");
    const load = loadavg()[0];
    const client = process.cpuUsage();
    const started = process.hrtime.bigint();
    await applyRefreshes(store, refreshes, { batch });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const clientCpu = process.cpuUsage(client);
    const { profile } = await session.post("Profiler.stop");
    proto.query = query;
    let backendMs = 0;
    for (const pid of await backends()) backendMs += processCpuMs(pid) - (cpuBefore.get(pid) ?? 0);
    const [{ wal }] = (
      await check.query("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::float8 AS wal", [
        lsnBefore,
      ])
    ).rows;
    const pendingAfter = await pending();
    const per = (x) => (x / postCount).toFixed(3);
    const clientMs = (clientCpu.user + clientCpu.system) / 1000;
    console.log(
      `${postCount} posts in ${refreshes.length} refreshes (batch ${batch}${batch > 1 && !store.applyFeedUpdates ? ": the build has no applyFeedUpdates, one by one" : ""}), ${seconds.toFixed(2)} s, ${(postCount / seconds).toFixed(0)} posts/s (${(postCount / seconds / 3000).toFixed(2)} of 3,000), load ${load.toFixed(1)}-${loadavg()[0].toFixed(1)}`,
    );
    console.log(
      `counted searches ${counted.n} (${counted.words} of one lexeme); per post: client CPU ${per(clientMs)} ms, ingest backend CPU ${per(backendMs)} ms, statements sent ${per(sent)}, WAL ${(wal / postCount).toFixed(0)} bytes`,
    );
    console.log("GIN pending list (pages/tuples) before -> after:");
    for (const g of gins)
      console.log(
        `  ${g}: ${pendingBefore[g].pending_pages}/${pendingBefore[g].pending_tuples} -> ${pendingAfter[g].pending_pages}/${pendingAfter[g].pending_tuples}`,
      );
    const statements = (
      await check.query(
        `SELECT toplevel, calls, rows, total_exec_time AS t, wal_bytes::float8 AS wal,
            regexp_replace(query, '\\s+', ' ', 'g') AS q
          FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
          ORDER BY total_exec_time DESC LIMIT $1`,
        [top],
      )
    ).rows;
    const [{ all }] = (
      await check.query(
        "SELECT sum(total_exec_time) FILTER (WHERE toplevel)::float8 AS all FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())",
      )
    ).rows;
    console.log(
      `\nStatements by execution time (top-level total ${ms(all)} ms; nested ones are inside their caller's):`,
    );
    console.log(
      "| level | calls | rows | ms | us/post | WAL B/post | statement |\n|---|---:|---:|---:|---:|---:|---|",
    );
    for (const s of statements)
      console.log(
        `| ${s.toplevel ? "top" : "nested"} | ${s.calls} | ${s.rows} | ${ms(s.t)} | ${((s.t * 1000) / postCount).toFixed(0)} | ${(s.wal / postCount).toFixed(0)} | ${s.q.slice(0, 160)} |`,
      );
    const functions = (
      await check.query(
        "SELECT funcname, calls, total_time, self_time FROM pg_stat_user_functions ORDER BY total_time DESC LIMIT $1",
        [top],
      )
    ).rows;
    console.log(
      "\nFunctions (track_functions=all):\n| function | calls | total ms | self ms | us/post (total) |\n|---|---:|---:|---:|---:|",
    );
    for (const f of functions)
      console.log(
        `| ${f.funcname} | ${f.calls} | ${ms(f.total_time)} | ${ms(f.self_time)} | ${((f.total_time * 1000) / postCount).toFixed(0)} |`,
      );
    // The process's functions by self time (the samples' time deltas attributed to their node).
    const self = new Map(profile.nodes.map((n) => [n.id, 0]));
    profile.samples.forEach((id, i) => {
      self.set(id, self.get(id) + (profile.timeDeltas[i] ?? 0));
    });
    const byFunction = new Map();
    const byFile = new Map();
    for (const n of profile.nodes) {
      const f = n.callFrame;
      const file = f.url ? basename(f.url) : "(native)";
      const key = `${f.functionName || "(anonymous)"} ${file}:${f.lineNumber + 1}`;
      byFunction.set(key, (byFunction.get(key) ?? 0) + self.get(n.id));
      byFile.set(file, (byFile.get(file) ?? 0) + self.get(n.id));
    }
    const total = [...byFunction.values()].reduce((a, b) => a + b, 0);
    const idle = byFunction.get("(idle) (native):0") ?? 0;
    console.log(
      `\nThis process, V8 samples: ${ms(total / 1000)} ms sampled, ${ms(idle / 1000)} idle (waiting on the server); by file, us/post:`,
    );
    for (const [file, us] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, top))
      console.log(`  ${file}: ${(us / postCount).toFixed(1)}`);
    console.log("by function (self), us/post:");
    for (const [key, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top))
      console.log(`  ${key}: ${(us / postCount).toFixed(1)}`);
  } finally {
    await store.close();
    await check.end();
  }
} finally {
  await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin.end();
  await corpus.stop();
}
