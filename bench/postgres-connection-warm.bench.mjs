// First calls on a new PostgreSQL connection, with and without the read pool's per-connection
// warm-up (packages/feed-service/src/store/postgres/postgres-connection-warm.ts), on a shaped
// corpus (bench/shape-corpus.mjs). Separates the cold connection from cold buffers: after the
// start warm-up (postgres-warm.ts), every search is run once on another connection, so that its
// pages are in shared buffers; then, alternating, a fresh connection without the warm-up and one
// with it run each search first, then 3 more times (median: "warm"). Besides the times (inflated
// by load: compare within a round), it prints what a first call maps of the server's shared memory
// (RssShmem of that server process, /proc) and its page faults, which load does not change.
// The searches are drawn at random (seeded) from the corpus's 2,000 commonest indexed terms (the
// manifest's), in each order; the same draws for both ways.
// Usage: npx tsc -b && BENCH_PG_SHARED_BUFFERS_MB=1024 node bench/postgres-connection-warm.bench.mjs
//          [--shape long-tail] [--posts 200000] [--rounds 3] [--searches 6] [--seed 1]
// Linux only (reads /proc of the server process; run as the user the server runs as, or root).
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { openShapePostgres } from "./shape-corpus.mjs";
import { SeededRandom } from "./shape-vocabulary.mjs";

const { values } = parseArgs({
  options: {
    shape: { type: "string", default: "long-tail" },
    posts: { type: "string", default: "200000" },
    rounds: { type: "string", default: "3" },
    searches: { type: "string", default: "6" },
    seed: { type: "string", default: "1" },
  },
});
const dist = new URL("../packages/feed-service/dist/", import.meta.url);
const load = async (path) => import(new URL(path, dist).href);
const { openPostgresPool } = await load("store/postgres/postgres-connection.js");
const { ConnectionWarmUp } = await load("store/postgres/postgres-connection-warm.js");
const { warmPostgres } = await load("store/postgres/postgres-warm.js");
const { searchPosts } = await load("store/postgres/postgres-search-queries.js");
const { readSearchPlanning } = await load("store/postgres/postgres-search-plan.js");
const { parseSearchQuery } = await load("search/parse-search-query.js");

/** The read pool's settings (postgres-store.ts READ_SETTINGS and the default deadline). */
const settings = {
  work_mem: "32MB",
  enable_seqscan: "off",
  max_parallel_workers_per_gather: 0,
  jit: "off",
  statement_timeout: 10000,
};

const corpus = await openShapePostgres(values.shape, Number(values.posts));
const rng = new SeededRandom(Number(values.seed));
const terms = corpus.manifest.terms.map(([term]) => term).filter((t) => /^\p{L}+$/u.test(t));
const sorts = [
  ["relevance", 20],
  ["relevance", 1000],
  ["date", 1000],
  ["clicks", 1000],
];
const cases = Array.from({ length: Number(values.searches) }, (_, i) => {
  const term = terms[rng.int(0, Math.min(terms.length, 200) - 1)];
  const [sort, limit] = sorts[i % sorts.length];
  return {
    label: `'${term}' ${sort} limit ${limit}`,
    page: { query: parseSearchQuery(term), sort, offset: 0, limit, languageIds: null },
  };
});

/** RssShmem (KB) and minor faults of one server process. */
function processMemory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return { shmem: Number(/RssShmem:\s+(\d+)/.exec(status)[1]), faults: Number(stat[7]) };
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

try {
  const loader = await openPostgresPool({ url: corpus.url, max: 1, createSchema: false, settings });
  const started = performance.now();
  const report = await warmPostgres(loader, undefined, undefined, new ConnectionWarmUp());
  console.log(
    `${values.shape} ${values.posts} posts; start warm-up ${((performance.now() - started) / 1000).toFixed(1)} s, ${Math.round(report.bytes / 2 ** 20)} MB into shared buffers; load ${loadavg()[0].toFixed(2)}`,
  );
  // Every page of the searches into shared buffers: what is left is the cold connection.
  for (const { page } of cases) for (let i = 0; i < 2; i++) await searchPosts(loader, page);
  const results = new Map(cases.map((c) => [c.label, { none: [], warm: [] }]));
  const warmUps = [];
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const way of round % 2 === 0 ? ["none", "warm"] : ["warm", "none"]) {
      const warmUp = way === "warm" ? new ConnectionWarmUp() : null;
      // Sets the tables the start warm-up loaded (all hits by now).
      if (warmUp) await warmPostgres(loader, undefined, undefined, warmUp);
      const pool = await openPostgresPool({
        url: corpus.url,
        max: 1,
        createSchema: false,
        settings,
        ...(warmUp ? { onConnect: warmUp.onConnect } : {}),
      });
      try {
        const pid = (await pool.query("SELECT pg_backend_pid() AS pid")).rows[0].pid;
        if (warmUp) warmUps.push(warmUp.timings[0]);
        await readSearchPlanning(pool);
        for (const { label, page } of cases) {
          const before = processMemory(pid);
          let t = performance.now();
          await searchPosts(pool, page);
          const first = performance.now() - t;
          const after = processMemory(pid);
          const again = [];
          for (let i = 0; i < 3; i++) {
            t = performance.now();
            await searchPosts(pool, page);
            again.push(performance.now() - t);
          }
          results.get(label)[way].push({
            first,
            warm: median(again),
            faults: after.faults - before.faults,
            shmemMb: (after.shmem - before.shmem) / 1024,
            load: loadavg()[0],
          });
        }
      } finally {
        await pool.end();
      }
    }
  }
  await loader.end();
  console.log(
    `per-connection warm-up: ${warmUps.map((ms) => `${ms.toFixed(0)} ms`).join(", ")} (a connection each round)`,
  );
  console.log(
    "| search | way | first ms (each round) | warm ms | first / warm | faults | shared memory mapped MB | load |",
  );
  console.log("|---|---|---|---|---|---|---|---|");
  for (const { label } of cases) {
    for (const way of ["none", "warm"]) {
      const runs = results.get(label)[way];
      const ratio = median(runs.map((r) => r.first / r.warm));
      console.log(
        `| ${label} | ${way === "none" ? "cold connection" : "warmed connection"} | ${runs.map((r) => r.first.toFixed(1)).join(", ")} | ${median(runs.map((r) => r.warm)).toFixed(1)} | ${ratio.toFixed(2)}x | ${median(runs.map((r) => r.faults))} | ${median(runs.map((r) => r.shmemMb)).toFixed(1)} | ${runs.map((r) => r.load.toFixed(1)).join(", ")} |`,
      );
    }
  }
} finally {
  await corpus.stop();
}
