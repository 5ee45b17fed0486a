// The database server's CPU per search of the latency bench's search mix (feed-service-latency
// .bench.mjs, part 2: 100 searches drawn with the seed from the corpus's 2,000 commonest terms) on
// PostgreSQL, in process: each search run alone through the store, and the CPU every process of
// the server ran meanwhile counted (/proc/<pid>/schedstat of the postmaster's children, Linux),
// so a loaded machine stretches the wall time but not the figure. Each round runs every search
// twice (the second pass is the one summed: the first pays for pages other searches pushed out).
// With --baseline, each round runs the old build and then the new one (the order swapped every
// round), checks that both answered every search with the same rows and scores, and prints the
// searches by the new build's CPU, with the old's beside it.
// Usage: npx tsc -b && TMPDIR=<corpora> BENCH_PG_SHARED_BUFFERS_MB=1024 node bench/postgres-search-mix-cpu.bench.mjs
//          [--shape long-tail] [--posts N] [--baseline <old dist>] [--rounds 2] [--seed 1] [--top 30]
import { readdirSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { localPostmasterOf } from "./postgres-server-cpu.mjs";
import { drawSearchMix } from "./search-mix.mjs";
import { openShapeCorpus, openShapePostgres } from "./shape-corpus.mjs";

const { values } = parseArgs({
  options: {
    shape: { type: "string" },
    posts: { type: "string" },
    baseline: { type: "string" },
    rounds: { type: "string" },
    seed: { type: "string" },
    top: { type: "string" },
  },
});
const shape = values.shape ?? "long-tail";
const posts = Number(values.posts ?? 1_000_000);
const rounds = Number(values.rounds ?? 2);
const seed = Number(values.seed ?? 1);
const top = Number(values.top ?? 30);

async function build(dist) {
  const at = (file) => import(pathToFileURL(resolve(dist, file)).href);
  const { openStore } = await at("store/open-store.js");
  const { parseSearchQuery } = await at("search/parse-search-query.js");
  return { openStore, parseSearchQuery };
}
const builds = [["new", await build(new URL("../packages/feed-service/dist/", import.meta.url).pathname)]];
if (values.baseline) builds.unshift(["old", await build(values.baseline)]);

/** CPU ns every child of `postmaster` has run (the backends and the server's own workers). */
function serverNs(postmaster) {
  let ns = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) !== postmaster) continue;
      ns += Number(readFileSync(`/proc/${entry}/schedstat`, "utf8").split(" ")[0]);
    } catch {}
  }
  return ns;
}

const { manifest } = await openShapeCorpus(shape, posts);
const server = await openShapePostgres(shape, posts);
try {
  const first = await builds[0][1].openStore(server.url);
  const languages = (await first.aggregateLanguageData(Date.now()))
    .filter((l) => l.postCount > 0 && l.languageCode !== "und")
    .sort((a, b) => a.postCount - b.postCount);
  const minority = languages.find((l) => l.postCount >= 1000) ?? languages[0];
  await first.close();
  // The latency bench's languages: the smallest real language with 1,000 posts or more, and 1.
  const mix = drawSearchMix(
    manifest.terms.map(([t]) => t),
    [minority.languageId, 1],
    seed,
  );
  const label = (m) =>
    `${m.terms}${m.languageId ? ` [lang ${m.languageId}]` : ""} (${m.sort}${m.offset ? ", offset 20" : ""})`;
  const postmaster = await localPostmasterOf(server.url);
  if (postmaster === null) throw new Error("the PostgreSQL server is not a process of this machine");
  // Per build: the CPU ms of each search, per round; its answers.
  const spent = new Map(builds.map(([name]) => [name, mix.map(() => [])]));
  const answers = new Map();
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? builds : [...builds].reverse();
    for (const [name, { openStore, parseSearchQuery }] of order) {
      const store = await openStore(server.url);
      const load = loadavg()[0];
      let total = 0;
      try {
        for (let pass = 0; pass < 2; pass++) {
          for (const [i, m] of mix.entries()) {
            const before = serverNs(postmaster);
            const rows = await store.searchPosts({
              query: parseSearchQuery(m.terms),
              sort: m.sort,
              limit: 20,
              offset: m.offset,
              languageIds: m.languageId ? [m.languageId] : null,
            });
            const ms = (serverNs(postmaster) - before) / 1e6;
            if (pass === 1) {
              spent.get(name)[i].push(ms);
              total += ms;
            }
            const answer = rows.map((r) => `${r.postId}:${r.score}`).join(",");
            const seen = answers.get(i);
            if (seen === undefined) answers.set(i, answer);
            else if (seen !== answer) throw new Error(`${name} answered ${label(m)} otherwise`);
          }
        }
      } finally {
        await store.close();
      }
      console.log(
        `round ${round + 1} ${name}: ${total.toFixed(0)} ms of server CPU for the ${mix.length} searches (${(total / mix.length).toFixed(2)} ms a search), load ${load.toFixed(1)} at its start`,
      );
    }
  }
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const rowsOf = mix.map((m, i) => ({
    label: label(m),
    ms: Object.fromEntries(builds.map(([name]) => [name, mean(spent.get(name)[i])])),
  }));
  const names = builds.map(([name]) => name);
  console.log(`\nserver CPU ms per search, the mean of ${rounds} rounds, the ${top} costliest for new`);
  console.log(`| search | ${names.join(" | ")} |`);
  console.log(`|---|${names.map(() => "---|").join("")}`);
  for (const r of [...rowsOf].sort((a, b) => b.ms.new - a.ms.new).slice(0, top)) {
    console.log(`| ${r.label} | ${names.map((n) => r.ms[n].toFixed(1)).join(" | ")} |`);
  }
  const sum = (name, pick = () => true) =>
    rowsOf.filter((_r, i) => pick(mix[i])).reduce((s, r) => s + r.ms[name], 0);
  for (const [what, pick] of [
    ["all", () => true],
    ["relevance", (m) => m.sort === "relevance"],
    ["date", (m) => m.sort === "date"],
  ]) {
    console.log(
      `${what}: ${names.map((n) => `${n} ${sum(n, pick).toFixed(0)} ms`).join(", ")}${names.length > 1 ? ` (new / old ${(sum("new", pick) / sum("old", pick)).toFixed(2)})` : ""}`,
    );
  }
  console.log("answers: the same rows and scores from every build and round");
} finally {
  await server.stop();
}
