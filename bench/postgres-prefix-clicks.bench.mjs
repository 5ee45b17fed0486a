// Searches by clicks whose words no statistic counts (a prefix: `pro* la`, `pro*`, `the* the`) on
// PostgreSQL, at the pages that cost most: the first, one deep among the clicked matches (the
// last page the clicked matches fill), a fixed offset (5,000) and the deepest page, at limits 10 and
// 1,000. Two builds in this process on one database, call by call in turns (the build that goes
// first swaps from case to case), through the operation table as every adapter calls it: each
// build's first call and median of --repeats more, the ratio of each to the 50 ms target (spec
// §4), whether both gave the same page. Each word's matches and clicked matches are counted first
// (the deep pages' offsets come from them). No migration runs (--no-migrate's stores,
// builds-under-test.mjs): the database must be at a schema both builds read.
//
//   npx tsc -b && BENCH_PG_SHARED_BUFFERS_MB=1024 node bench/pg-folder-run.mjs <a copy of the 200k long-tail's PostgreSQL folder> \
//     sh -c 'node bench/postgres-prefix-clicks.bench.mjs --url "$PG_URL" --baseline <the old build's dist> [--terms "pro* la"] [--repeats 5] [--swap]'
//
// --swap: the build that goes first in each case is the other one (the first call of a case reads
// pages the other build's first call then finds in the cache): run once with and once without.
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { loadBuilds, openUnmigrated } from "./builds-under-test.mjs";

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    baseline: { type: "string" },
    terms: { type: "string", multiple: true },
    repeats: { type: "string", default: "5" },
    swap: { type: "boolean" },
  },
});
const TARGET_MS = 50;
const repeats = Number(values.repeats);
const builds = await loadBuilds(values.baseline);
const newest = builds.at(-1);
const at = (file) => import(new URL(`store/postgres/${file}`, `file://${newest.folder}/`).href);
const { planOf, OPERATOR_EXPRESSION } = await at("postgres-operator-plan.js");
const { rows } = await at("postgres-connection.js");

const opened = [];
for (const build of builds) {
  const store = await openUnmigrated(build, values.url);
  opened.push({
    build,
    store,
    runner: build.createOperationRunner({ store, parseSearch: build.parseSearchQuery }),
  });
}
const { default: pg } = await import("pg");
const client = new pg.Client({ connectionString: values.url });
await client.connect();

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : "—");

async function timed(runner, args) {
  const started = performance.now();
  try {
    const found = await runner.call("search", { languageIds: "", ...args }, { baseUrl: "http://localhost" });
    return { ms: performance.now() - started, rows: found.length, ids: found.map((r) => r.postId).join(",") };
  } catch (error) {
    return { ms: Number.POSITIVE_INFINITY, rows: 0, fault: error.code ?? error.message, ids: "" };
  }
}

try {
  const cases = [];
  for (const terms of values.terms ?? ["pro* la", "pro*", "the* the"]) {
    // The matches and the clicked matches, through the operators' index (the plan's own query).
    const plan = planOf(newest.parseSearchQuery(terms), null);
    const [counted] = await rows(
      client,
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE p.clicks > 0)::int AS clicked
        FROM posts p WHERE ${OPERATOR_EXPRESSION} @@ $1::tsquery`,
      [plan.index],
    );
    console.log(`'${terms}': ${counted.n} matches, ${counted.clicked} of them clicked`);
    for (const limit of [10, 1000]) {
      const offsets = new Set([
        0,
        5000,
        Math.max(0, counted.clicked - limit),
        Math.max(0, counted.n - limit),
      ]);
      for (const offset of [...offsets].sort((a, b) => a - b)) {
        const where =
          offset === Math.max(0, counted.n - limit) && offset > 0
            ? " (deepest)"
            : offset === counted.clicked - limit
              ? " (last clicked)"
              : "";
        cases.push([
          `'${terms}' clicks, offset ${offset}${where}, limit ${limit}`,
          { searchTerms: terms, sortBy: "clicks", limit, offset },
        ]);
      }
    }
  }
  const loadBefore = loadavg()[0];
  const head = [
    "call",
    ...opened.flatMap(({ build }) => [`${build.name} first`, `${build.name} median`, `${build.name} ratio`]),
    "rows",
  ];
  if (opened.length > 1) head.push("same page", "new/old median");
  console.log(`| ${head.join(" | ")} |`);
  console.log(`|${head.map(() => "---").join("|")}|`);
  const over = opened.map(() => 0);
  for (const [c, [label, args]] of cases.entries()) {
    const runs = opened.map(() => []);
    const firsts = [];
    const order = opened.map((_, b) => b);
    // --swap: the other build first in each case (a second run gives each build each first call).
    if ((c % 2 === 1) !== (values.swap === true)) order.reverse();
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
    if (opened.length > 1) {
      cells.push(firsts.every((f) => f.ids === firsts[0].ids) ? "yes" : "NO");
      cells.push((median(runs.at(-1)) / median(runs[0])).toFixed(2));
    }
    console.log(`| ${cells.join(" | ")} |`);
  }
  console.log(
    `   ratio = max(first, median of ${repeats}) / ${TARGET_MS} ms; over target: ${opened.map(({ build }, b) => `${build.name} ${over[b]} of ${cases.length}`).join(", ")}; load average ${loadBefore.toFixed(1)} before, ${loadavg()[0].toFixed(1)} after (2 cores, shared)`,
  );
} finally {
  await client.end();
  for (const { store } of opened) await store.close();
}
