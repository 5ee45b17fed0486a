// The search operators' worst cases (search-operator-cases.mjs, read from each corpus) through the
// operation table as every adapter calls it, in this process: a quicker loop than the latency
// bench (which times the same cases over SOAP), and a fair comparison of two builds. With
// --baseline, each call runs on the baseline build and on this one alternately, on the same
// database, so that the machine's load weighs on both alike; the table gives each build's first
// call and median of --repeats more, and the ratio of each to the 50 ms target (spec §4). The
// commonest word alone (no operator: the word plans) comes first, the peer read beside them.
//
//   npx tsc -b && TMPDIR=<your copy tree> node bench/search-operators-bench.mjs
//     [--shape demo,long-tail,...] [--posts N] [--backends sqlite,postgres]
//     [--baseline <a copy of packages/feed-service/dist from the other build>]
//     [--calls REGEX] [--repeats 5] [--cpu] [--phrases]
//
// --phrases adds a phrase of the two commonest words with each operator (phraseCases).
//
// --no-migrate (PostgreSQL) opens each build's store on the database as it is, without its
// migrations (the store's read pools with the store's read settings, as openPostgresStore makes
// them): to compare plans on a corpus that a build's newer migration must not change (the 1M
// PostgreSQL folders are too large to copy). A build's reads of tables the database lacks fail;
// `feed:` then resolves through feeds(), as it does on stores without feedNames().
//
// --sql-before FILE / --sql-after FILE (PostgreSQL) run a file of SQL on the database once its server
// is up and before the stores open, and again before it stops, whatever the outcome: to measure
// a newer migration's objects on a folder that must keep its schema, made by hand and dropped after.
//
// --cpu times each call by this process's CPU time (user + system) instead of the clock: on a
// shared machine under load a SQLite call (synchronous, in this thread) waits for a core as long
// again as it runs, and the clock measures that wait; its CPU time does not. PostgreSQL calls run
// in the server, so --cpu is for SQLite only.
//
// The corpora are the shaped bench corpora (shape-corpus.mjs) under TMPDIR: copy them first when a
// build adds a migration (opening migrates them). A baseline dist must sit where Node finds the
// package's dependencies (under this repository, e.g. node_modules/.baseline/dist, with native/ and package.json beside it), and must know
// the database's schema.
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { loadBuilds, openUnmigrated } from "./builds-under-test.mjs";
import {
  describeOperators,
  operatorCases,
  phraseCases,
  probeOperators,
  wordPeers,
} from "./search-operator-cases.mjs";
import { openShapeCorpus, openShapePostgres } from "./shape-corpus.mjs";

const { values } = parseArgs({
  options: {
    shape: { type: "string", multiple: true },
    posts: { type: "string" },
    backends: { type: "string" },
    baseline: { type: "string" },
    calls: { type: "string" },
    repeats: { type: "string" },
    cpu: { type: "boolean" },
    phrases: { type: "boolean" },
    "no-migrate": { type: "boolean" },
    "sql-before": { type: "string" },
    "sql-after": { type: "string" },
  },
});
const shapeNames = (values.shape ?? ["demo"]).flatMap((name) => name.split(","));
const posts = Number(values.posts ?? 1_000_000);
const backends = (values.backends ?? "sqlite,postgres").split(",");
const repeats = Number(values.repeats ?? 5);
const TARGET_MS = 50;

const builds = await loadBuilds(values.baseline);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : "—");

const clock = values.cpu
  ? () => {
      const { user, system } = process.cpuUsage();
      return (user + system) / 1000;
    }
  : () => performance.now();

async function timed(runner, args) {
  const started = clock();
  try {
    const rows = await runner.call("search", { languageIds: "", ...args }, { baseUrl: "http://localhost" });
    return {
      ms: clock() - started,
      rows: rows.length,
      // The page and its scores: both builds must give the same posts, each with the same score.
      ids: rows.map((r) => `${r.postId}:${r.score}`).join(","),
    };
  } catch (error) {
    return { ms: Number.POSITIVE_INFINITY, rows: 0, fault: error.code ?? error.message, ids: "" };
  }
}

for (const shape of shapeNames) {
  const { path, manifest } = await openShapeCorpus(shape, posts);
  for (const backend of backends) {
    const postgres = backend === "postgres" ? await openShapePostgres(shape, posts) : null;
    const location = postgres?.url ?? path;
    const opened = [];
    const runSql = async (file) => {
      if (!postgres || !file) return;
      const { default: pg } = await import("pg");
      const client = new pg.Client({ connectionString: location });
      await client.connect();
      const started = performance.now();
      try {
        const results = [await client.query(readFileSync(file, "utf8"))].flat();
        const shown = results.at(-1)?.rows ?? [];
        console.log(
          `(${file}: ${((performance.now() - started) / 1000).toFixed(1)} s) ${JSON.stringify(shown)}`,
        );
      } finally {
        await client.end();
      }
    };
    try {
      await runSql(values["sql-before"]);
      for (const build of builds) {
        const store =
          postgres && values["no-migrate"]
            ? await openUnmigrated(build, location)
            : await build.openStore(location);
        opened.push({
          build,
          store,
          runner: build.createOperationRunner({ store, parseSearch: build.parseSearchQuery }),
        });
      }
      const ops = await probeOperators(opened.at(-1).store, path, manifest);
      const cases = [
        ...wordPeers(ops),
        ...operatorCases(ops),
        ...(values.phrases ? phraseCases(ops) : []),
      ].filter(([label]) => !values.calls || new RegExp(values.calls).test(label));
      const loadBefore = loadavg()[0];
      console.log(
        `\nsearch operators, shape ${shape}, ${backend}${values.cpu ? " (CPU ms)" : ""}: ${describeOperators(ops)}`,
      );
      const head = [
        "call",
        ...opened.flatMap(({ build }) => [
          `${build.name} first`,
          `${build.name} median`,
          `${build.name} ratio`,
        ]),
        "rows",
      ];
      if (opened.length > 1) head.push("same page");
      console.log(`| ${head.join(" | ")} |`);
      console.log(`|${head.map(() => "---").join("|")}|`);
      const over = opened.map(() => 0);
      for (const [c, [label, args]] of cases.entries()) {
        const runs = opened.map(() => []);
        const firsts = [];
        // Alternating builds, call by call: the first call of each, then `repeats` more each. The
        // build that goes first swaps from case to case: the first call of a case reads pages
        // that the other build's first call then finds in the system's cache.
        const order = opened.map((_, b) => b);
        if (c % 2 === 1) order.reverse();
        for (let i = 0; i <= repeats; i++) {
          for (const b of order) {
            const r = await timed(opened[b].runner, args);
            if (i === 0) firsts[b] = r;
            else runs[b].push(r.ms);
          }
        }
        const cells = [label];
        opened.forEach((_, b) => {
          const ratio = Math.max(firsts[b].ms, median(runs[b])) / TARGET_MS;
          if (ratio > 1 || firsts[b].fault) over[b]++;
          cells.push(
            f1(firsts[b].ms),
            f1(median(runs[b])),
            firsts[b].fault ? `fault ${firsts[b].fault}` : `${ratio.toFixed(2)}x`,
          );
        });
        cells.push(String(firsts.at(-1).rows));
        if (opened.length > 1) cells.push(firsts.every((f) => f.ids === firsts[0].ids) ? "yes" : "NO");
        console.log(`| ${cells.join(" | ")} |`);
      }
      console.log(
        `   ratio = max(first, median of ${repeats}) / ${TARGET_MS} ms; over target: ${opened.map(({ build }, b) => `${build.name} ${over[b]} of ${cases.length}`).join(", ")}; load average ${loadBefore.toFixed(1)} before, ${loadavg()[0].toFixed(1)} after (2 cores, shared)`,
      );
    } finally {
      for (const { store } of opened) await store.close();
      await runSql(values["sql-after"]);
      await postgres?.stop();
    }
  }
}
