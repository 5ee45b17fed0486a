// PostgreSQL plain-word searches (no operators: the word plans of postgres-search-queries.ts) on
// the shaped corpora, old build against new on the same database, alternating call by call, as
// search-operators-bench.mjs compares the operator rows: the latency bench's word rows (the two
// commonest words ANDed and one excluding the other, the commonest word and the commonest word of
// the smallest language within it, by relevance and by date at offset 1000) and searches drawn
// at random from the corpus's own 200 commonest words and its languages (--seed). Each row: each
// build's first call and median of --repeats more, the ratio of the larger to the 50 ms target
// (spec §4), and whether both builds gave the same page (ids and scores).
//
//   npx tsc -b && node bench/postgres-word-rows.bench.mjs --shape minority-english \
//     --baseline packages/feed-service/dist-main [--no-migrate] [--draws 6] [--seed 1] \
//     [--repeats 5] [--calls REGEX] [--swap]
//
// --no-migrate opens each build's store without its migrations (see search-operators-bench.mjs):
// for the 1M PostgreSQL folders, which a newer migration must not change.
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { loadBuilds, openUnmigrated } from "./builds-under-test.mjs";
import { openShapeCorpus, openShapePostgres } from "./shape-corpus.mjs";
import { SeededRandom } from "./shape-vocabulary.mjs";

const { values } = parseArgs({
  options: {
    shape: { type: "string", multiple: true },
    posts: { type: "string" },
    baseline: { type: "string" },
    calls: { type: "string" },
    repeats: { type: "string" },
    draws: { type: "string" },
    seed: { type: "string" },
    "no-migrate": { type: "boolean" },
    swap: { type: "boolean" },
  },
});
const shapeNames = (values.shape ?? ["minority-english"]).flatMap((name) => name.split(","));
const posts = Number(values.posts ?? 1_000_000);
const repeats = Number(values.repeats ?? 5);
const draws = Number(values.draws ?? 6);
const TARGET_MS = 50;

const builds = await loadBuilds(values.baseline);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : "—");

async function timed(runner, args) {
  const started = performance.now();
  try {
    const rows = await runner.call("search", { languageIds: "", ...args }, { baseUrl: "http://localhost" });
    return {
      ms: performance.now() - started,
      rows: rows.length,
      ids: rows.map((r) => `${r.postId}:${r.score}`).join(","),
    };
  } catch (error) {
    return { ms: Number.POSITIVE_INFINITY, rows: 0, fault: error.code ?? error.message, ids: "" };
  }
}

const search = (terms, sortBy = "relevance", { limit = 20, offset = 0, languageIds = "" } = {}) => ({
  searchTerms: terms,
  sortBy,
  limit: String(limit),
  offset: String(offset),
  languageIds: String(languageIds),
});

/** The rows: the latency bench's word rows, then `draws` random draws of words and a language. */
async function wordRows(store, manifest, parseSearchQuery) {
  const terms = manifest.terms.map(([term]) => term);
  const languages = (await store.aggregateLanguageData(Date.now()))
    .filter((l) => l.postCount > 0 && l.languageCode !== "und")
    .sort((a, b) => a.postCount - b.postCount);
  const minority = languages.find((l) => l.postCount >= 1000) ?? languages[0];
  // As the latency bench: of the 20 commonest terms, the one with the most matches in that language.
  let minorityTerm = { term: terms[0], count: -1 };
  for (const term of terms.slice(0, 20)) {
    const count = await store.countSearchMatches({
      query: parseSearchQuery(term),
      languageIds: [minority.languageId],
      cap: 10_000_000,
    });
    if (count > minorityTerm.count) minorityTerm = { term, count };
  }
  const [w1, w2] = terms;
  const m = minority.languageId;
  const mc = minority.languageCode;
  const rows = [
    [`'${w1} ${w2}' relevance`, search(`${w1} ${w2}`)],
    [`'${w1} -${w2}' relevance`, search(`${w1} -${w2}`)],
    [`'${w1}' relevance in ${mc}`, search(w1, "relevance", { languageIds: m })],
    [`'${w1}' date offset 1000 in ${mc}`, search(w1, "date", { offset: 1000, languageIds: m })],
    [`'${minorityTerm.term}' relevance in ${mc}`, search(minorityTerm.term, "relevance", { languageIds: m })],
    [
      `'${minorityTerm.term}' date offset 1000 in ${mc}`,
      search(minorityTerm.term, "date", { offset: 1000, languageIds: m }),
    ],
  ];
  const rng = new SeededRandom(Number(values.seed ?? 1));
  const pick = (list) => list[Math.floor(rng.next() * list.length)];
  const common = terms.slice(0, 200);
  for (let i = 0; i < draws; i++) {
    const a = pick(common);
    let b = pick(common);
    while (b === a) b = pick(common);
    const l = pick(languages);
    rows.push(
      [`draw ${i}: '${a} ${b}' relevance`, search(`${a} ${b}`)],
      [`draw ${i}: '${a} -${b}' relevance`, search(`${a} -${b}`)],
      [
        `draw ${i}: '${a}' relevance in ${l.languageCode}`,
        search(a, "relevance", { languageIds: l.languageId }),
      ],
      [
        `draw ${i}: '${a}' date offset 1000 in ${l.languageCode}`,
        search(a, "date", { offset: 1000, languageIds: l.languageId }),
      ],
    );
  }
  return rows;
}

for (const shape of shapeNames) {
  const { path, manifest } = await openShapeCorpus(shape, posts);
  const postgres = await openShapePostgres(shape, posts);
  const opened = [];
  try {
    for (const build of builds) {
      const store = values["no-migrate"]
        ? await openUnmigrated(build, postgres.url)
        : await build.openStore(postgres.url);
      opened.push({
        build,
        store,
        runner: build.createOperationRunner({ store, parseSearch: build.parseSearchQuery }),
      });
    }
    const last = opened.at(-1);
    const cases = (await wordRows(last.store, manifest, last.build.parseSearchQuery)).filter(
      ([label]) => !values.calls || new RegExp(values.calls).test(label),
    );
    const loadBefore = loadavg()[0];
    console.log(`\nPostgreSQL word rows, shape ${shape} (${path})`);
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
      // Alternating builds call by call; the build that goes first swaps from case to case.
      const order = opened.map((_, b) => b);
      // --swap: the other build first on each case (a second run then gives each build the first
      // calls the first run gave the other).
      if ((c + (values.swap ? 1 : 0)) % 2 === 1) order.reverse();
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
    await postgres.stop();
  }
}
