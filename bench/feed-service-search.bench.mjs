// Search on the 1,000,000-post SQLite corpus: 200 queries drawn from the demo's rare vocabulary
// (each word in at most 1% of posts), through the store's FTS5 search, against a LIKE scan of the
// same query over the same tables (the naive peer), in the same run; common terms reported apart.
// Usage: npx tsc -b && node bench/feed-service-search.bench.mjs [--posts N] [--like-queries K]
import { createRequire } from "node:module";
import { parseArgs } from "node:util";
import { corpusNow, openCorpus } from "./feed-service-corpus.mjs";

const { values } = parseArgs({ options: { posts: { type: "string" }, "like-queries": { type: "string" } } });
const posts = Number(values.posts ?? 1_000_000);
// A LIKE scan reads every post; on a million posts each takes seconds, so it runs a sample.
const likeQueries = Number(values["like-queries"] ?? 20);

const dist = new URL("../packages/feed-service/dist/", import.meta.url);
const { demoRareWords, demoTechTerms } = await import(new URL("demo/demo-vocabulary.js", dist).href);
const { parseSearchQuery } = await import(new URL("search/parse-search-query.js", dist).href);
const { createOperationRunner } = await import(new URL("operations/operation-runner.js", dist).href);
const Database = createRequire(new URL("../packages/feed-service/package.json", import.meta.url))(
  "better-sqlite3",
);

const { store, path } = await openCorpus(posts);

// A small deterministic generator, so that every run draws the same 200 queries.
let seed = 42;
const next = () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
};
const pick = (list) => list[Math.floor(next() * list.length)];
const queries = Array.from({ length: 200 }, () => {
  const r = next();
  if (r < 0.6) return pick(demoRareWords);
  if (r < 0.8) return `${pick(demoRareWords)} ${pick(demoRareWords)}`;
  return `${pick(demoRareWords)} OR ${pick(demoRareWords)}`;
});
const common = demoTechTerms.slice(0, 20).map((t) => t.toLowerCase());

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
// CPU time of this process per query, beside wall time: on a shared 2-core machine the wall
// figures include waiting for a core, the CPU figure much less so.
const cpuMs = new WeakMap();
function stats(ms) {
  const s = [...ms].sort((a, b) => a - b);
  return {
    p50: percentile(s, 50),
    p99: percentile(s, 99),
    mean: s.reduce((a, b) => a + b, 0) / s.length,
    cpu: (cpuMs.get(ms) ?? Number.NaN) / s.length,
    n: s.length,
  };
}
const timeMs = async (fn, into) => {
  const c = process.cpuUsage();
  const t = process.hrtime.bigint();
  await fn();
  const wall = Number(process.hrtime.bigint() - t) / 1e6;
  const used = process.cpuUsage(c);
  if (into) cpuMs.set(into, (cpuMs.get(into) ?? 0) + (used.user + used.system) / 1000);
  return wall;
};

const page = { limit: 20, offset: 0, languageIds: null };
const fts = async (q, sort = "relevance") => store.searchPosts({ ...page, query: parseSearchQuery(q), sort });

// Warm the page cache and statements alike for both contenders.
for (const q of queries.slice(0, 10)) await fts(q);

const ftsTimes = [];
for (const q of queries) ftsTimes.push(await timeMs(() => fts(q), ftsTimes));
const ftsDateTimes = [];
for (const q of queries) ftsDateTimes.push(await timeMs(() => fts(q, "date"), ftsDateTimes));
const commonTimes = [];
for (const q of common) commonTimes.push(await timeMs(() => fts(q), commonTimes));
// The whole operation: argument checks, parsing, FTS query, rows, and the history write.
const runner = createOperationRunner({ store, parseSearch: parseSearchQuery, now: () => corpusNow });
const opTimes = [];
for (const q of queries) {
  opTimes.push(
    await timeMs(
      () =>
        runner.call(
          "search",
          { limit: 20, offset: 0, searchTerms: q, sortBy: "", languageIds: "" },
          "http://localhost",
        ),
      opTimes,
    ),
  );
}

// The peer: LIKE over the same text columns and feed name, same filter logic, newest first.
const db = new Database(path, { readonly: true });
const wordClause = "(p.title LIKE ? OR p.excerpt LIKE ? OR p.content LIKE ? OR f.name LIKE ?)";
function likeSql(q) {
  const params = [];
  const word = (w) => {
    params.push(...Array(4).fill(`%${w}%`));
    return wordClause;
  };
  let where;
  if (q.includes(" OR ")) where = q.split(" OR ").map(word).join(" OR ");
  else where = q.split(" ").map(word).join(" AND ");
  return {
    sql: `SELECT p.id FROM posts p JOIN feeds f ON f.id = p.feed_id WHERE ${where} ORDER BY p.post_date DESC, p.id DESC LIMIT 20`,
    params,
  };
}
const likeTimes = [];
const ftsSampleTimes = [];
for (const q of queries.slice(0, likeQueries)) {
  const { sql, params } = likeSql(q);
  const stmt = db.prepare(sql);
  likeTimes.push(await timeMs(() => stmt.all(...params), likeTimes));
  ftsSampleTimes.push(await timeMs(() => fts(q, "date"), ftsSampleTimes));
}
// How rare the words really are in this corpus (design: at most 1% of posts).
const countStmt = db.prepare("SELECT count(*) AS n FROM posts_fts WHERE posts_fts MATCH ?");
const share = (w) => countStmt.get(`"${w}"`).n / posts;
const rareShares = demoRareWords.slice(0, 30).map(share);
const commonShares = common.slice(0, 5).map((w) =>
  share(
    w
      .replace(/[^a-z0-9]/g, " ")
      .trim()
      .split(" ")[0],
  ),
);
db.close();
await store.close();

const f = (n) => n.toFixed(2);
console.log(
  `search, ${posts.toLocaleString("en")} posts, limit 20; ${queries.length} rare-term queries (60% one word, 20% two ANDed, 20% OR)`,
);
console.log(
  "corpus: built by the demo generator, then FTS5 'optimize' (segments merged after the bulk load)",
);
console.log(
  `rare words hit ${f(Math.min(...rareShares) * 100)}–${f(Math.max(...rareShares) * 100)}% of posts; common terms ${f(Math.min(...commonShares) * 100)}–${f(Math.max(...commonShares) * 100)}%`,
);
console.log(
  "| what                                   | queries | p50 ms  | p99 ms  | mean ms | CPU ms/query |",
);
console.log(
  "|----------------------------------------|---------|---------|---------|---------|--------------|",
);
const line = (name, s) =>
  console.log(
    `| ${name.padEnd(38)} | ${String(s.n).padStart(7)} | ${f(s.p50).padStart(7)} | ${f(s.p99).padStart(7)} | ${f(s.mean).padStart(7)} | ${f(s.cpu).padStart(12)} |`,
  );
const fr = stats(ftsTimes);
line("FTS5, by relevance (store)", fr);
line("FTS5, by date (store)", stats(ftsDateTimes));
line("search operation (runner, relevance)", stats(opTimes));
line("FTS5, common terms (store, relevance)", stats(commonTimes));
const ls = stats(likeTimes);
const fs = stats(ftsSampleTimes);
line("LIKE scan, newest first (peer)", ls);
line("FTS5, same queries, newest first", fs);
console.log(
  `ratio LIKE ÷ FTS (newest first) on the same ${ls.n} queries: p50 ${(ls.p50 / fs.p50).toFixed(2)}×, p99 ${(ls.p99 / fs.p99).toFixed(2)}×, mean ${(ls.mean / fs.mean).toFixed(2)}× (LIKE stops early on common words, scans everything on rare ones)`,
);
console.log(`targets: FTS p50 ≤ 5 ms (got ${f(fr.p50)}), p99 ≤ 50 ms (got ${f(fr.p99)})`);
