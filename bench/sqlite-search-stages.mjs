// Where a SQLite search spends, statement by statement, in this process: each call's CPU time
// (the process's, from getrusage: a loaded machine's waits for a core do not count; the kernel's
// per-thread schedstat counts in scheduler ticks, 4 ms here, too coarse for a call), the CPU time
// of each SQL statement the store ran for it
// (its StatementCache wrapped: every all/get/run/iterate timed, summed by statement text) and the
// rest (JavaScript: parsing, plans, the rows' records, garbage collection). With --baseline, the
// same calls through the other build's store first, alternating call by call (which build goes
// first swaps per call), each call's page compared between the builds. Read only: the searches
// write only their history. Each statement also counts the read syscalls it made (Linux
// /proc/self/io): the pages SQLite read from the OS, which a first call pays for and a warm one
// does not. --call runs any operation instead of a search: its name, then its arguments as JSON
// as the operation reads them (e.g. `--call 'getPostsByCategory {"categoryId": 2, "offset": 53238,
// "sincepost": 1}'`); each --call is one case, as each --terms is.
//
//   npx tsc -b && node bench/sqlite-search-stages.mjs --db <corpus.db> [--baseline <other dist>]
//     [--terms "guide" --terms "title:new guide" ...] [--sort clicks] [--limit 1000]
//     [--offset 0] [--languages "3"] [--call 'NAME {ARGS}' ...] [--warm] [--repeats 5] [--top 6]
//     [--baseline-db <file>] [--new-first]
// --baseline-db: the baseline build opens that file instead (the same corpus before a migration
// of the new build's: a copy the new build migrated, the original the old one reads as it was);
// the pages are still compared, scores included.
// --warm runs a heavy query thread's start warm-up on each store first (the build's own,
// store/sqlite/sqlite-thread-warm.js, where it has one: each search form and sort on words no post
// holds, every row's length, the rankings' tables, the search indexes), so that a first call here
// pays what a served first call pays, and prints what that warm-up cost (CPU, read syscalls).
import { loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { loadBuilds } from "./builds-under-test.mjs";
import { processCpu, readCalls, trace, traceStatements } from "./statement-trace.mjs";

const { values } = parseArgs({
  options: {
    db: { type: "string" },
    baseline: { type: "string" },
    "baseline-db": { type: "string" },
    terms: { type: "string", multiple: true },
    call: { type: "string", multiple: true },
    sort: { type: "string" },
    limit: { type: "string" },
    offset: { type: "string" },
    languages: { type: "string" },
    repeats: { type: "string" },
    warm: { type: "boolean" },
    "new-first": { type: "boolean" },
    top: { type: "string" },
  },
});
if (!values.db) throw new Error("--db <a SQLite corpus> is required");
const terms = values.terms ?? (values.call ? [] : ["guide"]);
const sortBy = values.sort ?? "clicks";
const limit = Number(values.limit ?? 1000);
const offset = Number(values.offset ?? 0);
// Language ids as the operation takes them (comma-separated; empty: every language).
const languageIds = values.languages ?? "";
const repeats = Number(values.repeats ?? 5);
const top = Number(values.top ?? 6);
const TARGET_MS = 50;

/**
 * The heavy query thread's warm-up (sqlite-read-worker.ts warmUp): the build's own
 * (store/sqlite/sqlite-thread-warm.js), or for a build without that module a copy of what its
 * thread ran then (each sort on a word no post holds, every row's length, the rankings' tables).
 */
async function warmLikeAQueryThread(store, build) {
  await store.recentPosts({ limit: 1, offset: 0, languageIds: null });
  const own = await import(pathToFileURL(`${build.folder}/store/sqlite/sqlite-thread-warm.js`).href).catch(
    () => null,
  );
  if (own) return own.warmHeavyThread(store, "qzxjvkwqzxjvkwqzxjvkwqzx", "vkwqzxjvkwqzxjvkwqzxjvkw");
  const query = build.parseSearchQuery("qzxjvkwqzxjvkwqzxjvkwqzx");
  const now = Date.now();
  for (const sort of ["relevance", "date", "clicks"]) {
    for (const languageIds of [null, [1]]) {
      await store.searchPosts({ query, sort, limit: 1000, offset: 0, languageIds });
    }
  }
  await store.mostPopularPosts({ since: now, limit: 1000, categoryId: null });
  await store.mostPopularFeeds({ since: now, limit: 1000 });
  await store.mostProlificFeeds({ since: now, limit: 1000 });
  await store.warmSearchLengths();
  await store.warmRankingTables();
}

const builds = await loadBuilds(values.baseline);
const opened = [];
const warmups = [];
for (const build of builds) {
  await traceStatements(build.folder);
  const store = await build.openStore(
    build.name === "old" ? (values["baseline-db"] ?? values.db) : values.db,
  );
  if (values.warm) {
    // What the warm-up costs a heavy query thread at start (it runs before the thread says ready).
    const [cpu, reads] = [processCpu(), readCalls()];
    await warmLikeAQueryThread(store, build);
    warmups.push(`${build.name} ${(processCpu() - cpu).toFixed(1)} ms CPU, ${readCalls() - reads} reads`);
  }
  opened.push({
    build,
    store,
    runner: build.createOperationRunner({ store, parseSearch: build.parseSearchQuery }),
  });
}

/** The cases: each search's terms, then each --call's operation and arguments. */
const cases = [
  ...terms.map((searchTerms) => ({
    label: `'${searchTerms}'`,
    name: "search",
    args: { languageIds, searchTerms, sortBy, limit, offset },
  })),
  ...(values.call ?? []).map((call) => {
    const space = call.indexOf(" ");
    const name = space < 0 ? call : call.slice(0, space);
    return { label: call, name, args: space < 0 ? {} : JSON.parse(call.slice(space + 1)) };
  }),
];

async function timed(runner, { name, args }) {
  trace.spent = new Map();
  const started = processCpu();
  const rows = await runner.call(name, args, { baseUrl: "http://localhost" });
  const ms = processCpu() - started;
  const statements = [...trace.spent].sort((a, b) => b[1].ms - a[1].ms);
  trace.spent = null;
  return { ms, statements, page: rows.map((r) => `${r.postId}:${r.score ?? ""}`).join(",") };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const f1 = (x) => x.toFixed(1);
console.log(
  `search stages, ${values.db}${values["baseline-db"] ? ` (old: ${values["baseline-db"]})` : ""}, ${sortBy}, limit ${limit}, offset ${offset}${languageIds === "" ? "" : `, languages ${languageIds}`} (process CPU ms; first call${values.warm ? " after the query thread's warm-up" : ""}, then median of ${repeats}); load average ${loadavg()[0].toFixed(1)} (2 cores, shared)`,
);
if (warmups.length > 0) console.log(`the warm-up: ${warmups.join("; ")}`);
for (const [c, testCase] of cases.entries()) {
  const runs = opened.map(() => []);
  const order = opened.map((_, b) => b);
  // The first call of a case pays the pages the OS no longer holds; the other build's then finds
  // them: which build goes first swaps per case, and --new-first swaps the whole order (a run of
  // one case each way).
  if ((c % 2 === 1) !== (values["new-first"] === true)) order.reverse();
  for (let i = 0; i <= repeats; i++) {
    for (const b of i % 2 === 0 ? order : [...order].reverse())
      runs[b].push(await timed(opened[b].runner, testCase));
  }
  const same = runs.every((r) => r[0].page === runs[0][0].page);
  console.log(
    `\n${testCase.label}${opened.length > 1 ? `: same page in both builds: ${same ? "yes" : "NO"}` : ""}`,
  );
  for (const [b, { build }] of opened.entries()) {
    const [first, ...rest] = runs[b];
    const warm = median(rest.map((r) => r.ms));
    const statementMs = (r) => r.statements.reduce((sum, [, e]) => sum + e.ms, 0);
    console.log(
      `  ${build.name}: first ${f1(first.ms)} (statements ${f1(statementMs(first))}), median ${f1(warm)} (statements ${f1(median(rest.map(statementMs)))}); ratio ${(Math.max(first.ms, warm) / TARGET_MS).toFixed(2)}x of ${TARGET_MS} ms`,
    );
    // Each statement's median over the warm calls (0 when a call did not run it), beside its first.
    const texts = new Set(runs[b].flatMap((r) => r.statements.map(([text]) => text)));
    const rows = [...texts].map((text) => {
      const at = (r) => r.statements.find(([t]) => t === text)?.[1];
      return { text, first: at(first), warm: median(rest.map((r) => at(r)?.ms ?? 0)) };
    });
    rows.sort((x, y) => y.warm + (y.first?.ms ?? 0) - (x.warm + (x.first?.ms ?? 0)));
    for (const row of rows.slice(0, top)) {
      const e = row.first;
      console.log(
        `    ${f1(e?.ms ?? 0).padStart(6)} / ${f1(row.warm).padStart(5)} ms  x${e?.calls ?? 0}, ${e?.rows ?? 0} rows, ${e?.reads ?? 0} reads  ${row.text.slice(0, 130)}`,
      );
    }
  }
}
for (const { store } of opened) await store.close();
