// Ingest on PostgreSQL alone, two builds alternating: each run copies the cached corpus database
// (CREATE DATABASE ... TEMPLATE, so every run starts from the same pages, without migrate-data's
// minutes), opens it with the build's store (its migrations run there, untimed), applies the same
// refreshes of 50 new demo posts (postgres-ingest-refreshes.mjs) and times them against the goal
// of 3,000 posts/s, with the CPU time of this process and of the server over the same span, then
// digests every table so that the builds' rows can be compared (same digest: same rows).
// Usage: npx tsc -b && BENCH_PG_SHARED_BUFFERS_MB=1024 node bench/postgres-ingest.bench.mjs
//   [--posts 100000] [--baseline <another build's packages/feed-service/dist>] [--rounds 3]
//   [--refreshes 200] [--per-refresh 50] [--batch N]
// --batch N: N refreshes at a time through the store's applyFeedUpdates (ingest's group commit,
// FeedWriteBatch; an ingest pass has at most 16 refreshes in flight), where the build has it; a
// build without it writes them one by one, as ingest then does. The store's background choice of
// the counted words (which holds off writes while it counts) ends before the timed span.
// Rounds alternate the order (old, new; new, old; ...), so a drift of the machine's load
// falls on both builds.
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { openPostgresCorpus } from "./feed-service-postgres-corpus.mjs";
import { applyRefreshes, demoRefreshes } from "./postgres-ingest-refreshes.mjs";
import { postmasterOf, processCpuMs, serverCpuMs } from "./postgres-server-cpu.mjs";

const { values } = parseArgs({
  options: {
    posts: { type: "string" },
    baseline: { type: "string" },
    rounds: { type: "string" },
    refreshes: { type: "string" },
    "per-refresh": { type: "string" },
    batch: { type: "string" },
  },
});
const posts = Number(values.posts ?? 100_000);
const rounds = Number(values.rounds ?? 3);
const refreshCount = Number(values.refreshes ?? 200);
const perRefresh = Number(values["per-refresh"] ?? 50);
const batch = Number(values.batch ?? 1);
const goal = 3_000;
const dist = new URL("../packages/feed-service/dist/", import.meta.url);
const { default: pg } = await import(
  createRequire(new URL("../packages/feed-service/package.json", import.meta.url)).resolve("pg")
);
const loadBuild = async (name, folder) => ({
  name,
  ...(await import(new URL("store/open-store.js", folder).href)),
});
const builds = [await loadBuild("new", dist)];
if (values.baseline) builds.unshift(await loadBuild("old", pathToFileURL(`${resolve(values.baseline)}/`)));

/** md5 of every table's rows (sorted as text), so two runs' results can be compared. */
async function digest(client) {
  const tables = (
    await client.query(
      "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations' ORDER BY 1",
    )
  ).rows.map((r) => r.tablename);
  const parts = [];
  for (const t of tables) {
    const { rows } = await client.query(
      `SELECT md5(coalesce(string_agg(t::text, ',' ORDER BY t::text), '')) AS h FROM "${t}" t`,
    );
    parts.push(`${t}:${rows[0].h}`);
  }
  return parts;
}

const corpus = await openPostgresCorpus(posts);
const adminUrl = corpus.url.replace(/\/postgres$/, "/template1");
const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
const at = Date.now();
const runs = [];
const digests = new Map();
try {
  const postmaster = postmasterOf(Number((await admin.query("SELECT pg_backend_pid() AS pid")).rows[0].pid));
  for (let round = 1; round <= rounds; round++) {
    const order = round % 2 === 1 ? builds : [...builds].reverse();
    for (const build of order) {
      const database = `ingest_bench_${process.pid}`;
      await admin.query(`CREATE DATABASE ${database} TEMPLATE postgres STRATEGY FILE_COPY`);
      const url = corpus.url.replace(/\/postgres$/, `/${database}`);
      try {
        const store = await build.openStore(url);
        const check = new pg.Client({ connectionString: url });
        await check.connect();
        try {
          await store.recountCommonWords?.();
          const feeds = await store.feeds();
          const refreshes = await demoRefreshes(feeds, { count: refreshCount, at, tag: "ab", perRefresh });
          await admin.query("CHECKPOINT");
          const backendsAt = async () =>
            (
              await admin.query(
                "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend' AND pid <> $2",
                [database, (await check.query("SELECT pg_backend_pid() AS pid")).rows[0].pid],
              )
            ).rows.map((r) => r.pid);
          const before = new Map((await backendsAt()).map((pid) => [pid, processCpuMs(pid)]));
          const load = loadavg()[0];
          const server = serverCpuMs(postmaster);
          const client = process.cpuUsage();
          const started = process.hrtime.bigint();
          const stored = await applyRefreshes(store, refreshes, { batch });
          const seconds = Number(process.hrtime.bigint() - started) / 1e9;
          const clientCpu = process.cpuUsage(client);
          const serverMs = serverCpuMs(postmaster) - server;
          let backendMs = 0;
          for (const pid of await backendsAt()) backendMs += processCpuMs(pid) - (before.get(pid) ?? 0);
          const run = {
            round,
            build: build.name,
            seconds,
            rate: stored / seconds,
            clientS: (clientCpu.user + clientCpu.system) / 1e6,
            serverS: serverMs / 1000,
            backendS: backendMs / 1000,
            load: [load, loadavg()[0]],
          };
          await store.close();
          const parts = await digest(check);
          run.digest = parts;
          runs.push(run);
          process.stderr.write(
            `round ${round} ${build.name}: ${stored} posts in ${seconds.toFixed(2)} s (${run.rate.toFixed(0)}/s), client CPU ${run.clientS.toFixed(2)} s, server CPU ${run.serverS.toFixed(2)} s (ingest backend ${run.backendS.toFixed(2)} s), load ${run.load.map((l) => l.toFixed(1)).join("-")}\n`,
          );
          if (!digests.has(build.name)) digests.set(build.name, parts);
        } finally {
          await check.end();
        }
      } finally {
        await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      }
    }
  }
} finally {
  await admin.end();
  await corpus.stop();
}

const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : "n/a");
const first = runs[0].digest;
const differing = (parts) => parts.filter((p, i) => p !== first[i]).map((p) => p.split(":")[0]);
console.log(
  `\n| round | build | s | posts/s (ratio to ${goal}) | client CPU s | server CPU s | ingest backend CPU s | load (1 min) | tables unlike the first run's |`,
);
console.log("|---:|---|---:|---:|---:|---:|---:|---|---|");
for (const r of runs) {
  console.log(
    `| ${r.round} | ${r.build} | ${fmt(r.seconds, 2)} | ${fmt(r.rate)} (${fmt(r.rate / goal, 2)}) | ${fmt(r.clientS, 2)} | ${fmt(r.serverS, 2)} | ${fmt(r.backendS, 2)} | ${fmt(r.load[0], 1)}-${fmt(r.load[1], 1)} | ${differing(r.digest).join(", ") || "none"} |`,
  );
}
for (const build of builds) {
  const mine = runs.filter((r) => r.build === build.name);
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(
    `${build.name}: median ${fmt(median(mine.map((r) => r.rate)))} posts/s (${fmt(median(mine.map((r) => r.rate)) / goal, 2)} of ${goal}), median server CPU ${fmt(median(mine.map((r) => r.serverS)), 2)} s, client CPU ${fmt(median(mine.map((r) => r.clientS)), 2)} s`,
  );
}
