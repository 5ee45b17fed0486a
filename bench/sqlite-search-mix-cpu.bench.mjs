// CPU time per search of the latency bench's search mix (feed-service-latency.bench.mjs, part 2:
// 100 searches drawn with the seed from the corpus's 2,000 commonest terms) on SQLite, in process:
// one read-only connection as a query thread holds it (its warm-up included), a second connection
// recording each first page's search as `serve` does (up to schema 24 every search wrote the
// history into the posts' file, which the reader saw as a change of the database; from 25 it
// writes a file of its own), and only the searches' own CPU counted.
// Without the HTTP, SOAP and thread hops of the server, this is the query threads' share of a
// request, steadier than wrk's figures on a loaded machine. With --baseline, each round runs the
// old build and the new one in processes of their own (each loads its own SQLite extension),
// alternating which goes first, and prints new / old.
// Usage: npx tsc -b && node bench/sqlite-search-mix-cpu.bench.mjs [--shape demo] [--posts N]
//          [--baseline <old dist, native/ beside it>] [--rounds 3] [--passes 3] [--seed 1]
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    shape: { type: "string" },
    posts: { type: "string" },
    baseline: { type: "string" },
    rounds: { type: "string" },
    passes: { type: "string" },
    seed: { type: "string" },
    child: { type: "string" },
    db: { type: "string" },
    mix: { type: "string" },
  },
});
const passes = Number(values.passes ?? 3);

if (values.child !== undefined) {
  // One build's run: `--child <dist> --db <file> --mix <json of the searches>`.
  const at = (file) => import(pathToFileURL(join(values.child, file)).href);
  const { openSqliteReader, openSqliteDatabase } = await at("store/sqlite/sqlite-connection.js");
  const { SqliteStore } = await at("store/sqlite/sqlite-store.js");
  const { parseSearchQuery } = await at("search/parse-search-query.js");
  const reader = new SqliteStore(openSqliteReader(values.db));
  const writer = new SqliteStore(openSqliteDatabase(values.db));
  const mix = JSON.parse(readFileSync(values.mix, "utf8"));
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const warmStart = cpu();
  await reader.warmSearchLengths();
  const warmMs = cpu() - warmStart;
  const spent = { relevance: [0, 0], date: [0, 0] };
  // The first pass compiles statements and code; it is not counted.
  for (let pass = 0; pass <= passes; pass++) {
    for (const s of mix) {
      const query = parseSearchQuery(s.terms);
      const start = cpu();
      await reader.searchPosts({
        query,
        sort: s.sort,
        limit: 20,
        offset: s.offset,
        languageIds: s.languageIds,
      });
      const ms = cpu() - start;
      if (pass > 0) {
        spent[s.sort][0] += ms;
        spent[s.sort][1]++;
      }
      if (s.offset === 0) await writer.recordSearch(s.terms, Date.now());
    }
  }
  await reader.close();
  await writer.close();
  const all = spent.relevance[0] + spent.date[0];
  const n = spent.relevance[1] + spent.date[1];
  console.log(
    JSON.stringify({
      warmMs,
      all: all / n,
      relevance: spent.relevance[0] / spent.relevance[1],
      date: spent.date[0] / spent.date[1],
    }),
  );
  process.exit(0);
}

const { openShapeCorpus } = await import("./shape-corpus.mjs");
const { openStore } = await import("./feed-service-corpus.mjs");
const { drawSearchMix } = await import("./search-mix.mjs");
const shape = values.shape ?? "demo";
const { path, manifest } = await openShapeCorpus(shape, Number(values.posts ?? 1_000_000));
// The languages of the mix's filtered searches, as the latency bench picks them: the smallest real
// language with at least 1,000 posts, and language 1.
const store = await openStore(path);
let minority;
try {
  const languages = (await store.aggregateLanguageData(Date.now()))
    .filter((l) => l.postCount > 0 && l.languageCode !== "und")
    .sort((a, b) => a.postCount - b.postCount);
  minority = (languages.find((l) => l.postCount >= 1000) ?? languages[0]).languageId;
} finally {
  await store.close();
}
// The latency bench's mix (bench/search-mix.mjs), its language filters as lists of one.
const mix = drawSearchMix(
  manifest.terms.map(([term]) => term),
  [minority, 1],
  Number(values.seed ?? 1),
).map(({ terms, sort, offset, languageId }) => ({
  terms,
  sort,
  offset,
  languageIds: languageId === null ? null : [languageId],
}));
const scratch = mkdtempSync(join(tmpdir(), "sqlite-search-mix-"));
const mixFile = join(scratch, "mix.json");
writeFileSync(mixFile, JSON.stringify(mix));

const builds = [
  { name: "new", dist: fileURLToPath(new URL("../packages/feed-service/dist", import.meta.url)) },
];
if (values.baseline) builds.unshift({ name: "old", dist: resolve(values.baseline) });
const self = fileURLToPath(import.meta.url);
const rows = [];
try {
  for (let round = 1; round <= Number(values.rounds ?? 3); round++) {
    const order = round % 2 === 1 ? builds : [...builds].reverse();
    for (const build of order) {
      const load = loadavg()[0];
      const out = execFileSync(
        process.execPath,
        [self, "--child", build.dist, "--db", path, "--mix", mixFile, "--passes", String(passes)],
        { encoding: "utf8" },
      );
      rows.push({ round, build: build.name, load, ...JSON.parse(out.trim().split("\n").at(-1)) });
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
const f2 = (x) => x.toFixed(2);
console.log(
  `sqlite search mix, in process: ${mix.length} searches x ${passes} passes per run, CPU ms per search (${shape}, ${manifest.posts} posts)`,
);
console.log("| round | build | load | all | relevance | date | warm-up ms | new / old (all) |");
console.log("|---|---|---|---|---|---|---|---|");
for (const r of rows) {
  const old = rows.find((o) => o.round === r.round && o.build === "old");
  const ratio = r.build === "new" && old ? f2(r.all / old.all) : "";
  console.log(
    `| ${r.round} | ${r.build} | ${r.load.toFixed(1)} | ${f2(r.all)} | ${f2(r.relevance)} | ${f2(r.date)} | ${r.warmMs.toFixed(0)} | ${ratio} |`,
  );
}
