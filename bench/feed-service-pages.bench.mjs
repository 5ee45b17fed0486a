// The web pages of the feed service against their budgets, on the 1,000,000-post demo corpus,
// through the real `feed-service serve --no-ingest` process (SQLite):
//   1. size: each page's HTML <= 60 KB, and its first load (the HTML plus the stylesheet, script
//      and icon it names, as a browser fetches them: gzip accepted, headers counted) <= 150 KB;
//   2. server time: p99 of /, a category, a feed and /languages <= 20 ms each (wrk -c1, one page
//      at a time; the figure is the round trip on loopback, so it slightly overstates the server);
//   3. /search: the search mix of the latency bench's targets (p99 <= 50 ms and >= 300 req/s),
//      wrk -c8 over 40 different searches as a person types them into the box (common, rare, AND,
//      OR, phrase, exclusion, other languages; both sorts; first and second pages). Each first
//      page also records the search in the history, as the search operation does.
// Load generator: wrk (C), one thread, on the same 2 cores as the server.
// Usage: npx tsc -b && node bench/feed-service-pages.bench.mjs [--posts N] [--seconds S]
import { writeFileSync } from "node:fs";
import { request } from "node:http";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { corpusNow, openCorpus } from "./feed-service-corpus.mjs";
import { startServe, stopServe } from "./serve-process.mjs";
import { runWrk } from "./wrk-load.mjs";

const { values } = parseArgs({ options: { posts: { type: "string" }, seconds: { type: "string" } } });
const loadAtStart = loadavg()[0];
const posts = Number(values.posts ?? 1_000_000);
const seconds = Number(values.seconds ?? 5);
const HTML_BUDGET_KB = 60;
const FIRST_LOAD_BUDGET_KB = 150;
const SERVER_P99_MS = 20;
const SEARCH_P99_MS = 50;
const SEARCH_RPS = 300;

// The corpus is pinned at corpusNow; the server's clock is today's. A window that reaches back to
// the corpus shows its clicks on /popular.
const daysToCorpus = Math.ceil((Date.now() - corpusNow) / 86_400_000) + 30;

/** [label, path]: every page of spec §5.3, first pages and deep ones. */
const pages = [
  ["recent", "/"],
  ["recent, page 2, two languages", "/?lang=1,3&page=2"],
  ["recent, page 20000", "/?page=20000"],
  ["search 'data', relevance", "/search?q=data"],
  ["search '性能 改善', date", `/search?q=${encodeURIComponent("性能 改善")}&sort=date`],
  ["search, no query", "/search"],
  ["popular", `/popular?days=${daysToCorpus}`],
  ["categories", "/categories"],
  ["category 1", "/categories/1"],
  ["smart categories", "/smart-categories"],
  ["smart category 1", "/smart-categories/1"],
  ["feeds", "/feeds"],
  ["feed 1", "/feeds/1"],
  ["languages", "/languages"],
];

const timedPages = [
  ["/", "/"],
  ["category", "/categories/1"],
  ["feed", "/feeds/1"],
  ["/languages", "/languages"],
];

const searches = [
  "the",
  "new",
  "data",
  "release",
  "update guide",
  "the new data",
  "web server",
  "open source",
  "data OR security OR performance",
  "rust OR go",
  "cache OR memory",
  '"open source"',
  '"deep dive"',
  "the -data",
  "security -privacy",
  "données",
  "daten",
  "datos",
  "sécurité",
  "データ",
  "性能 改善",
  "セキュリティ",
];

function searchPaths(rareWords) {
  const terms = [...searches, ...rareWords.slice(0, 40 - searches.length)];
  return terms.map((t, i) => {
    const sort = i % 2 === 0 ? "" : "&sort=date";
    const page = i % 3 === 0 ? "&page=2" : "";
    return `/search?q=${encodeURIComponent(t)}${sort}${page}`;
  });
}

function luaFor(name, paths) {
  const file = join(tmpdir(), `feed-service-pages-${name}.lua`);
  writeFileSync(
    file,
    `local paths = {${paths.map((p) => JSON.stringify(p)).join(",\n")}}
local counter = 0
request = function()
  counter = counter + 1
  return wrk.format("GET", paths[(counter % #paths) + 1])
end
`,
  );
  return file;
}

/** One GET as a browser makes it (gzip accepted); the bytes on the wire: status line, headers, body. */
function fetchBytes(base, path) {
  return new Promise((resolve, reject) => {
    const req = request(
      base + path,
      { headers: { "Accept-Encoding": "gzip", Accept: "text/html,*/*" } },
      (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => {
          const body = Buffer.concat(chunks);
          let headerBytes = `HTTP/1.1 ${res.statusCode} ${res.statusMessage}\r\n`.length + 2;
          for (let i = 0; i < res.rawHeaders.length; i += 2) {
            headerBytes += res.rawHeaders[i].length + 2 + Buffer.byteLength(res.rawHeaders[i + 1]) + 2;
          }
          resolve({ status: res.statusCode, body, wire: headerBytes + body.length, headers: res.headers });
        });
      },
    );
    req.on("error", reject);
    req.end();
  });
}

const kb = (bytes) => bytes / 1024;
const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : "—");
const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : "—");
const pad = (text, width) => String(text).padEnd(width);
const lpad = (text, width) => String(text).padStart(width);

// ---- run -------------------------------------------------------------------------------------

const corpus = await openCorpus(posts);
await corpus.store.close();
const { demoRareWords } = await import(
  new URL("../packages/feed-service/dist/demo/demo-vocabulary.js", import.meta.url).href
);
const server = await startServe(corpus.path);
const sizes = [];
const timings = [];
let search;
let apiSearch;
try {
  for (const [label, path] of pages) {
    const page = await fetchBytes(server.base, path);
    if (page.status !== 200)
      throw new Error(`${path} answered ${page.status}: ${page.body.toString().slice(0, 300)}`);
    const html = page.body.toString("utf8");
    const assets = [
      /<link rel="stylesheet" href="([^"]+)">/.exec(html)?.[1],
      /<script src="([^"]+)" defer>/.exec(html)?.[1],
      /<link rel="icon" type="image\/svg\+xml" href="([^"]+)">/.exec(html)?.[1],
    ];
    if (assets.some((a) => a === undefined)) throw new Error(`${path} does not name its three assets`);
    let firstLoad = page.wire;
    for (const asset of assets) firstLoad += (await fetchBytes(server.base, asset)).wire;
    sizes.push({ label, path, html: page.body.length, firstLoad });
  }
  for (const [label, path] of timedPages) {
    // The first request after a write reads every operation afresh; later ones while the data is
    // unchanged reuse the records of pure operations (src/web/record-cache.ts). A click is a write.
    // A click on a random post (a repeated click within 10 minutes would not be written).
    const clickPost = 1 + Math.floor(Math.random() * (posts - 1));
    await fetch(`${server.base}/click/${clickPost}`, { redirect: "manual" });
    const started = performance.now();
    await fetchBytes(server.base, path);
    const cold = performance.now() - started;
    const lua = luaFor(label.replace(/\W/g, ""), [path]);
    timings.push({
      label,
      path,
      cold,
      ...(await runWrk({ url: server.base, lua, connections: 1, seconds })),
    });
  }
  const paths = searchPaths(demoRareWords);
  const mixLua = luaFor("search-mix", paths);
  search = await runWrk({ url: server.base, lua: mixLua, connections: 8, seconds: seconds * 2 });
  // The peer: the same searches through the JSON API, i.e. the search operation without a page.
  const apiPaths = paths.map((p) => {
    const q = new URLSearchParams(p.slice("/search?".length));
    const page = Number(q.get("page") ?? 1);
    const sort = q.get("sort") ?? "";
    return `/api/v1/search?q=${encodeURIComponent(q.get("q"))}&limit=26&offset=${(page - 1) * 25}&sortBy=${sort}`;
  });
  apiSearch = await runWrk({
    url: server.base,
    lua: luaFor("api-search-mix", apiPaths),
    connections: 8,
    seconds: seconds * 2,
  });
} finally {
  await stopServe(server);
}

console.log(
  `feed-service web pages, ${posts.toLocaleString("en")} posts (SQLite), real serve process, wrk ${seconds} s per page.`,
);
// What else ran on the machine: the 1-minute load average at the start and at the end of the run.
console.log(
  `Machine: ${availableParallelism()} cores; load average ${loadAtStart.toFixed(2)} at the start, ${loadavg()[0].toFixed(2)} at the end.\n`,
);
console.log(`1. size (KB; HTML budget ${HTML_BUDGET_KB} KB, first load budget ${FIRST_LOAD_BUDGET_KB} KB)`);
console.log(
  `   ${pad("page", 32)} ${lpad("HTML", 7)} ${lpad("ratio", 6)} ${lpad("first load", 11)} ${lpad("ratio", 6)}`,
);
let over = 0;
for (const s of sizes) {
  const htmlRatio = kb(s.html) / HTML_BUDGET_KB;
  const loadRatio = kb(s.firstLoad) / FIRST_LOAD_BUDGET_KB;
  if (htmlRatio > 1 || loadRatio > 1) over++;
  console.log(
    `   ${pad(s.label, 32)} ${lpad(f1(kb(s.html)), 7)} ${lpad(f2(htmlRatio), 6)} ${lpad(f1(kb(s.firstLoad)), 11)} ${lpad(f2(loadRatio), 6)}`,
  );
}
console.log(`   pages over a size budget: ${over}`);
console.log(`\n2. server time (wrk -c1, ms; budget p99 <= ${SERVER_P99_MS} ms)`);
console.log(
  "   cold = the first request after a write (every operation read afresh); wrk figures reuse records",
);
console.log(
  `   ${pad("page", 14)} ${pad("path", 16)} ${lpad("cold", 6)} ${lpad("req/s", 7)} ${lpad("p50", 6)} ${lpad("p99", 6)} ${lpad("ratio", 6)} errors`,
);
for (const t of timings) {
  console.log(
    `   ${pad(t.label, 14)} ${pad(t.path, 16)} ${lpad(f1(t.cold), 6)} ${lpad(f1(t.rps), 7)} ${lpad(f1(t.p50), 6)} ${lpad(f1(t.p99), 6)} ${lpad(f2(t.p99 / SERVER_P99_MS), 6)} ${t.errors} (${t.socketErrors})`,
  );
}
console.log(
  `\n3. /search mix (40 searches, wrk -c8 ${seconds * 2} s; targets p99 <= ${SEARCH_P99_MS} ms and >= ${SEARCH_RPS} req/s)`,
);
for (const [label, m] of [
  ["/search pages", search],
  ["/api/v1/search (peer)", apiSearch],
]) {
  console.log(
    `   ${pad(label, 22)} req/s ${lpad(f1(m.rps), 6)} (ratio ${f2(m.rps / SEARCH_RPS)}), p50 ${lpad(f1(m.p50), 6)} ms, p99 ${lpad(f1(m.p99), 6)} ms (ratio ${f2(m.p99 / SEARCH_P99_MS)}), non-2xx ${m.errors} (${m.socketErrors})`,
  );
}
console.log("   The peer row is the search operation alone: the gap between the rows is what the page adds.");
