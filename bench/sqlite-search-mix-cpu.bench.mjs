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
// --shape takes several shapes (comma-separated): each round runs every shape's mix, so that the
// shapes are compared in the same run. --stages times every SQL statement of each search as well
// (statement-trace.mjs) and prints, per shape and build, the CPU by class of search (one word,
// AND, OR, phrase, exclusion, language filter; by sort; by offset), each class's costliest
// statements and the --top costliest searches (the tracing adds its own cost to every statement).
// Usage: npx tsc -b && node bench/sqlite-search-mix-cpu.bench.mjs [--shape demo[,long-tail...]] [--posts N]
//          [--baseline <old dist, native/ beside it>] [--rounds 3] [--passes 3] [--seed 1]
//          [--stages] [--top 15]
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
    stages: { type: "boolean" },
    top: { type: "string" },
  },
});
const passes = Number(values.passes ?? 3);

if (values.child !== undefined) {
  // One build's run: `--child <dist> --db <file> --mix <json of the searches>`.
  const at = (file) => import(pathToFileURL(join(values.child, file)).href);
  const { processCpu, trace, traceStatements } = await import("./statement-trace.mjs");
  if (values.stages) await traceStatements(values.child);
  const { openSqliteReader, openSqliteDatabase } = await at("store/sqlite/sqlite-connection.js");
  const { SqliteStore } = await at("store/sqlite/sqlite-store.js");
  const { parseSearchQuery } = await at("search/parse-search-query.js");
  const reader = new SqliteStore(openSqliteReader(values.db));
  const writer = new SqliteStore(openSqliteDatabase(values.db));
  const mix = JSON.parse(readFileSync(values.mix, "utf8"));
  const cpu = processCpu;
  const warmStart = cpu();
  await reader.warmSearchLengths();
  const warmMs = cpu() - warmStart;
  const spent = { relevance: [0, 0], date: [0, 0] };
  // With --stages: each search's CPU and its statements' (text -> ms), summed over the counted passes.
  const searches = mix.map(() => ({ ms: 0, statements: new Map() }));
  // The first pass compiles statements and code; it is not counted.
  for (let pass = 0; pass <= passes; pass++) {
    for (const s of mix) {
      const query = parseSearchQuery(s.terms);
      if (values.stages) trace.spent = new Map();
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
        if (values.stages) {
          const one = searches[mix.indexOf(s)];
          one.ms += ms / passes;
          for (const [text, e] of trace.spent)
            one.statements.set(text, (one.statements.get(text) ?? 0) + e.ms / passes);
        }
      }
      trace.spent = null;
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
      searches: values.stages
        ? searches.map((x) => ({ ms: x.ms, statements: [...x.statements] }))
        : undefined,
    }),
  );
  process.exit(0);
}

const { openShapeCorpus } = await import("./shape-corpus.mjs");
const { openStore } = await import("./feed-service-corpus.mjs");
const { drawSearchMix } = await import("./search-mix.mjs");
const shapes = (values.shape ?? "demo").split(",");
const scratch = mkdtempSync(join(tmpdir(), "sqlite-search-mix-"));

/** A shape's corpus and its mix (written to a file for the children). */
async function shapeMix(shape) {
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
  const mixFile = join(scratch, `mix-${shape}.json`);
  writeFileSync(mixFile, JSON.stringify(mix));
  return { shape, path, posts: manifest.posts, mix, mixFile };
}

/** The class of a mix search (bench/search-mix.mjs draws these kinds). */
function classOf({ terms, languageIds }) {
  if (languageIds !== null) return "language";
  if (terms.includes(" OR ")) return "OR";
  if (terms.startsWith('"')) return "phrase";
  if (terms.includes(" -")) return "exclusion";
  if (terms.includes(" ")) return "AND";
  return "one word";
}

const builds = [
  { name: "new", dist: fileURLToPath(new URL("../packages/feed-service/dist", import.meta.url)) },
];
if (values.baseline) builds.unshift({ name: "old", dist: resolve(values.baseline) });
const self = fileURLToPath(import.meta.url);
const rows = [];
const corpora = [];
try {
  for (const shape of shapes) corpora.push(await shapeMix(shape));
  for (let round = 1; round <= Number(values.rounds ?? 3); round++) {
    const order = round % 2 === 1 ? builds : [...builds].reverse();
    for (const corpus of corpora) {
      for (const build of order) {
        const load = loadavg()[0];
        const out = execFileSync(
          process.execPath,
          [
            self,
            "--child",
            build.dist,
            "--db",
            corpus.path,
            "--mix",
            corpus.mixFile,
            "--passes",
            String(passes),
            ...(values.stages ? ["--stages"] : []),
          ],
          { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
        );
        rows.push({
          round,
          shape: corpus.shape,
          build: build.name,
          load,
          ...JSON.parse(out.trim().split("\n").at(-1)),
        });
      }
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
const f2 = (x) => x.toFixed(2);
console.log(
  `sqlite search mix, in process: 100 searches x ${passes} passes per run, CPU ms per search (${corpora.map((c) => `${c.shape} ${c.posts} posts`).join(", ")})`,
);
console.log("| round | shape | build | load | all | relevance | date | warm-up ms | new / old (all) |");
console.log("|---|---|---|---|---|---|---|---|---|");
for (const r of rows) {
  const old = rows.find((o) => o.round === r.round && o.shape === r.shape && o.build === "old");
  const ratio = r.build === "new" && old ? f2(r.all / old.all) : "";
  console.log(
    `| ${r.round} | ${r.shape} | ${r.build} | ${r.load.toFixed(1)} | ${f2(r.all)} | ${f2(r.relevance)} | ${f2(r.date)} | ${r.warmMs.toFixed(0)} | ${ratio} |`,
  );
}
if (values.stages) {
  const top = Number(values.top ?? 15);
  // A statement's text, short: its first words and, for a walk of the full-text index, what follows
  // its MATCH (which tells the relevance statements apart).
  const short = (text) => {
    const t = text.replace(/sampled_bm25\([^)]*\)/g, "bm25(..)");
    const at = t.indexOf("MATCH ?");
    return at < 0 || at > 140 ? t.slice(0, 110) : `${t.slice(0, 40)} … ${t.slice(at, at + 60)}`;
  };
  for (const corpus of corpora) {
    for (const build of builds) {
      const runs = rows.filter((r) => r.shape === corpus.shape && r.build === build.name);
      // Each search's CPU and statements, averaged over the rounds.
      const per = corpus.mix.map((search, i) => {
        const statements = new Map();
        for (const run of runs) {
          for (const [text, ms] of run.searches[i].statements)
            statements.set(text, (statements.get(text) ?? 0) + ms / runs.length);
        }
        const ms = runs.reduce((sum, run) => sum + run.searches[i].ms, 0) / runs.length;
        return { search, kind: classOf(search), ms, statements };
      });
      const total = per.reduce((sum, p) => sum + p.ms, 0);
      console.log(
        `\n${corpus.shape}, ${build.name}: CPU ms per search by class (mean of ${runs.length} runs; the mix ${f2(total / per.length)} ms a search)`,
      );
      console.log(
        "| class | sort | n | ms per search | share of the mix | statements' share of its ms | costliest statement (ms per search) |",
      );
      console.log("|---|---|---|---|---|---|---|");
      const groups = new Map();
      for (const p of per) {
        for (const key of [
          `${p.kind}|${p.search.sort}`,
          `${p.kind}|all`,
          `all, offset ${p.search.offset}|all`,
        ]) {
          const g = groups.get(key) ?? [];
          g.push(p);
          groups.set(key, g);
        }
      }
      for (const [key, g] of [...groups].sort((a, b) => a[0].localeCompare(b[0]))) {
        const [kind, sort] = key.split("|");
        const ms = g.reduce((sum, p) => sum + p.ms, 0);
        const statements = new Map();
        for (const p of g)
          for (const [text, v] of p.statements) statements.set(text, (statements.get(text) ?? 0) + v);
        const inStatements = [...statements.values()].reduce((a, b) => a + b, 0);
        const [costliest, costliestMs] = [...statements].sort((a, b) => b[1] - a[1])[0] ?? ["", 0];
        console.log(
          `| ${kind} | ${sort} | ${g.length} | ${f2(ms / g.length)} | ${((100 * ms) / total).toFixed(1)} % | ${((100 * inStatements) / ms).toFixed(0)} % | ${f2(costliestMs / g.length)} ${short(costliest)} |`,
        );
      }
      console.log(
        `\nthe ${top} costliest searches (${corpus.shape}, ${build.name}): ms, then its statements' ms`,
      );
      for (const p of [...per].sort((a, b) => b.ms - a.ms).slice(0, top)) {
        const s = p.search;
        const label = `${s.terms}${s.languageIds ? ` [lang ${s.languageIds}]` : ""} (${s.sort}${s.offset ? `, offset ${s.offset}` : ""})`;
        const parts = [...p.statements]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 3)
          .map(([text, ms]) => `${f2(ms)} ${short(text)}`);
        console.log(
          `  ${f2(p.ms).padStart(6)}  ${label} [${p.kind}]\n          ${parts.join("\n          ")}`,
        );
      }
    }
  }
}
