// First calls after a start, two builds alternating on one PostgreSQL bench folder: each round
// starts the server afresh for each build (empty shared buffers), runs that build's start warm-up
// (store.warmCache: postgres-warm.ts, the read pool's connections), then each search once (the
// first call) and --repeats more times (the median). What the start warm-up leaves outside shared
// buffers shows in the first calls; the medians are the same statements warm. The searches: the
// corpus's commonest word, then --searches words drawn at random (seeded) from its 200 commonest
// (the manifest's), each by clicks at limit 1000, by date at offset 5000 and by relevance; the
// same draws for both builds. The folder is opened without migrating it (builds-under-test.mjs's
// openUnmigrated): both builds must know its schema. --migrate first opens it once with this
// build's store, which applies its migrations (never on the shared 1M folders).
//
//   npx tsc -b && TMPDIR=<folder> flock -w 2400 /tmp/long-tail-pg.lock \
//     node bench/postgres-first-calls.bench.mjs --shape long-tail --baseline <main's dist> [--rounds 2]
//     [--searches 3] [--repeats 3] [--seed 1] [--posts 1000000]
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadBuilds, openUnmigrated } from "./builds-under-test.mjs";
import { startBenchPostgres } from "./feed-service-postgres-corpus.mjs";
import { shapesFolder } from "./shape-corpus.mjs";
import { SeededRandom } from "./shape-vocabulary.mjs";

const { values } = parseArgs({
  options: {
    shape: { type: "string", default: "long-tail" },
    posts: { type: "string", default: "1000000" },
    baseline: { type: "string" },
    rounds: { type: "string", default: "2" },
    searches: { type: "string", default: "3" },
    repeats: { type: "string", default: "3" },
    seed: { type: "string", default: "1" },
    migrate: { type: "boolean" },
  },
});
const { shape, posts } = values;
const folder = join(shapesFolder, `${shape}-${posts}-postgres`);
const manifest = JSON.parse(readFileSync(join(shapesFolder, `${shape}-${posts}.json`), "utf8"));
const builds = await loadBuilds(values.baseline);
const rng = new SeededRandom(Number(values.seed));
const terms = manifest.terms.map(([term]) => term).filter((t) => /^\p{L}+$/u.test(t));
const words = [terms[0]];
while (words.length < 1 + Number(values.searches)) {
  const t = terms[rng.int(1, Math.min(terms.length, 200) - 1)];
  if (!words.includes(t)) words.push(t);
}
const pages = [
  ["clicks", 0, 1000],
  ["date", 5000, 20],
  ["relevance", 0, 20],
];
const cases = words.flatMap((word) =>
  pages.map(([sort, offset, limit]) => ({
    label: `'${word}' ${sort} offset ${offset} limit ${limit}`,
    word,
    sort,
    offset,
    limit,
  })),
);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const la = () => loadavg()[0].toFixed(1);

/** One start of the server for `build`: its warm-up, then each case's first call and repeats. */
async function run(build) {
  const server = await startBenchPostgres(folder);
  try {
    const load = la();
    const store = await openUnmigrated(build, server.url);
    try {
      const started = performance.now();
      const report = await store.warmCache();
      const warmS = (performance.now() - started) / 1000;
      // The server's CPU time for a call (its backends' schedstat, Linux): the machine's load does
      // not inflate it as it does the wall time; reading pages from the OS cache counts in it.
      const { rows: backends } = await server.query(
        "SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()",
      );
      const cpu = () =>
        backends.reduce((sum, { pid }) => {
          try {
            return sum + Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
          } catch {
            return sum;
          }
        }, 0);
      const results = [];
      for (const c of cases) {
        const page = {
          query: build.parseSearchQuery(c.word),
          sort: c.sort,
          offset: c.offset,
          limit: c.limit,
          languageIds: null,
        };
        const times = [];
        const cpus = [];
        let ids = "";
        for (let i = 0; i <= Number(values.repeats); i++) {
          const c0 = cpu();
          const t = performance.now();
          const found = await store.searchPosts(page);
          times.push(performance.now() - t);
          cpus.push(cpu() - c0);
          if (i === 0) ids = found.map((p) => p.postId ?? p.id).join(",");
        }
        results.push({
          first: times[0],
          median: median(times.slice(1)),
          cpuFirst: cpus[0],
          cpuMedian: median(cpus.slice(1)),
          ids,
        });
      }
      return { load, loadAfter: la(), warmS, report, results };
    } finally {
      await store.close();
    }
  } finally {
    await server.stop();
  }
}

if (values.migrate) {
  const server = await startBenchPostgres(folder);
  try {
    await (await builds.at(-1).openStore(server.url)).close();
  } finally {
    await server.stop();
  }
}
console.log(`first calls after a start, ${shape} ${posts}, builds ${builds.map((b) => b.name).join(" / ")}`);
const all = builds.map(() => []);
for (let round = 0; round < Number(values.rounds); round++) {
  const order = builds.map((_, b) => b);
  if (round % 2 === 1) order.reverse();
  for (const b of order) {
    const r = await run(builds[b]);
    all[b].push(r);
    console.log(
      `round ${round + 1} ${builds[b].name}: load ${r.load} -> ${r.loadAfter}, warm-up ${r.warmS.toFixed(1)} s, loaded ${Math.round(r.report.bytes / 2 ** 20)} MB${r.report.skipped ? ` (${r.report.skipped})` : ""}`,
    );
  }
}
const head = [
  "call",
  ...builds.flatMap((b) => [
    `${b.name} first (per round)`,
    `${b.name} median`,
    `${b.name} server CPU first (per round) / median`,
  ]),
  "same page",
];
console.log(`\n| ${head.join(" | ")} |\n|${head.map(() => "---").join("|")}|`);
for (const [i, c] of cases.entries()) {
  const cells = builds.flatMap((_, b) => [
    all[b].map((r) => r.results[i].first.toFixed(1)).join(", "),
    median(all[b].map((r) => r.results[i].median)).toFixed(1),
    `${all[b].map((r) => r.results[i].cpuFirst.toFixed(1)).join(", ")} / ${median(all[b].map((r) => r.results[i].cpuMedian)).toFixed(1)}`,
  ]);
  const same = all.flat().every((r) => r.results[i].ids === all[0][0].results[i].ids);
  console.log(`| ${c.label} | ${cells.join(" | ")} | ${same ? "yes" : "NO"} |`);
}
for (const [b, build] of builds.entries()) {
  const firsts = all[b].flatMap((r) => r.results.map((x) => x.first));
  const over = firsts.filter((ms) => ms > 50).length;
  const sum = (key) => all[b].reduce((a, r) => a + r.results.reduce((x, y) => x + y[key], 0), 0).toFixed(0);
  console.log(
    `${build.name}: first calls over 50 ms ${over} of ${firsts.length}; median first ${median(firsts).toFixed(1)} ms; server CPU of all first calls ${sum("cpuFirst")} ms, of their medians ${sum("cpuMedian")} ms`,
  );
}
