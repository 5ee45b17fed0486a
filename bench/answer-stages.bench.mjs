// Where a 1,000-row answer's time goes beyond the store, stage by stage, old build against new in
// the same process and run. Per call (getMostRecentPosts limit 1000, a search at limit 1000) and
// build, each stage timed on its own:
//   store      the store method on the calling thread (SQLite: a store without query threads;
//              PostgreSQL: the store as serve opens it): statement(s) and post records;
//   pooled     the same call through serve's store (SQLite: the query threads), so pooled - store
//              is the hop to the thread and the records' transfer back (structured clone);
//   operation  the operation through the runner on the calling thread's store, less `store`:
//              tracking links, the items the adapters read;
//   soap       the SOAP endpoint on the items already in hand: request decoded, QueryBean rows laid
//              out and encoded into the response bytes (in slices, as served);
//   json       the JSON API's encoding of the same items into bytes;
//   served     the whole call over HTTP through createFeedServer (answer cache off) on serve's
//              store, timed by curl (a C client in a process of its own, as the latency bench
//              does).
// CPU ms are this thread's (/proc/self/task/<pid>/schedstat), except pooled and served: the
// process's (process.cpuUsage: the query threads and V8's helper threads too). The first round
// gives each stage's first call after the build's store opened; later rounds repeat the two
// encodings 5 times and average them; the medians of rounds 2 on are printed. The builds
// alternate call by call (which one goes first swaps each round); ratios are new / old. The
// answers are compared byte for byte between the builds (SOAP in hand and served, JSON).
// The old build is a dist folder (--baseline, e.g. node_modules/.baseline/dist); the SOAP package
// it imports resolves from beside it first, so put the old build's packages/soap (dist and
// package.json) at node_modules/.baseline/node_modules/@feed-toolkit/soap when the SOAP package
// differs, and its src/web/assets at node_modules/.baseline/src/web/assets (the pages read them).
// Usage: npx tsc -b && node bench/answer-stages.bench.mjs --db <1M SQLite corpus> | --postgres <url>
//          [--baseline <old dist>] [--rounds 7] [--search WORD] [--sort date]
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs, promisify } from "node:util";
import { loadBuilds } from "./builds-under-test.mjs";

const run = promisify(execFile);
const { values } = parseArgs({
  options: {
    db: { type: "string" },
    postgres: { type: "string" },
    baseline: { type: "string" },
    rounds: { type: "string" },
    search: { type: "string" },
    sort: { type: "string" },
  },
});
const location = values.postgres ?? values.db;
if (!location) throw new Error("--db <SQLite corpus> or --postgres <url>");
const rounds = Number(values.rounds ?? 7);
const repeats = 5;
const word = values.search ?? "the";
const sort = values.sort ?? "date";
const soapPath = "/webservices/FeedAggregator";
const baseUrl = "http://127.0.0.1";
const work = mkdtempSync(join(tmpdir(), "answer-stages-"));

const envelope = (op, params) =>
  '<?xml version="1.0" encoding="UTF-8"?><!--@NONCE@--><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" ' +
  'xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><soapenv:Body>' +
  `<ns1:${op} soapenv:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/" xmlns:ns1="http://webservices">` +
  Object.entries(params)
    .map(([name, [type, value]]) => `<${name} xsi:type="xsd:${type}">${value}</${name}>`)
    .join("") +
  `</ns1:${op}></soapenv:Body></soapenv:Envelope>`;

/** The calls: the store method and its arguments, the operation and its SOAP arguments. */
const calls = (parseSearchQuery) => [
  {
    label: "getMostRecentPosts limit 1000",
    method: "recentPosts",
    storeArgs: () => ({ limit: 1000, offset: 0, languageIds: null }),
    operation: "getMostRecentPosts",
    args: { limit: 1000, offset: 0, languageIds: "" },
    soap: { limit: ["double", 1000], offset: ["double", 0], languageIds: ["string", ""] },
  },
  {
    label: `search '${word}', ${sort}, limit 1000`,
    method: "searchPosts",
    storeArgs: () => ({ query: parseSearchQuery(word), sort, limit: 1000, offset: 0, languageIds: null }),
    operation: "search",
    // Offset 20 is not recorded in the search history: the calls write nothing to the corpus.
    args: { limit: 1000, offset: 20, searchTerms: word, sortBy: sort, languageIds: "" },
    soap: {
      limit: ["double", 1000],
      offset: ["double", 20],
      searchTerms: ["string", word],
      sortBy: ["string", sort],
      languageIds: ["string", ""],
    },
  },
];

const ms = (t0) => performance.now() - t0;
const cpuMs = (c0) => {
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
};
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : s[Math.floor((s.length - 1) / 2)];
};

async function openBuild(build) {
  const at = (file) => import(pathToFileURL(`${build.folder}/${file}`).href);
  const { createFeedSoapEndpoint } = await at("http/feed-soap-endpoint.js");
  const { encodeItems } = await at("api/json-items.js");
  const { postColumns, withExtra } = await at("operations/column-sets.js");
  const queryLimits = {};
  const served = await build.openStore(location, { queryLimits });
  // SQLite: a second store without query threads (reads on this thread); PostgreSQL reads the same way either way.
  const direct = values.postgres ? served : await build.openStore(location);
  const runner = build.createOperationRunner({ store: direct, parseSearch: build.parseSearchQuery });
  const server = build.createFeedServer({
    store: served,
    runner: build.createOperationRunner({ store: served, parseSearch: build.parseSearchQuery }),
    responseCache: false,
    publicUrl: baseUrl,
  });
  // As serve does before it listens (feed-server.ts): the request path's code compiled once.
  await server.prime();
  const address = await server.listen(0, "127.0.0.1");
  // The endpoint answers every call with the items of the runner's last call (made once: its
  // encoders are compiled once, as the server's are).
  const holder = { items: [] };
  const endpoint = createFeedSoapEndpoint({
    specs: runner.specs,
    call: async () => holder.items,
    isPure: () => true,
  });
  return {
    ...build,
    set items(items) {
      holder.items = items;
    },
    endpoint,
    encodeItems,
    postColumns,
    withExtra,
    served,
    direct,
    runner,
    server,
    url: `http://127.0.0.1:${address.port}${soapPath}`,
    first: new Set(),
  };
}

async function curlSoap(url, body, out) {
  const file = join(work, "request.xml");
  writeFileSync(file, body.replace("@NONCE@", String(Math.random())));
  const c0 = process.cpuUsage();
  const { stdout } = await run("curl", [
    "-s",
    "-o",
    out,
    "-w",
    "%{http_code} %{time_total}",
    "-H",
    "Content-Type: text/xml; charset=utf-8",
    "-H",
    'SOAPAction: ""',
    "--data-binary",
    `@${file}`,
    url,
  ]);
  const cpu = cpuMs(c0);
  const [code, total] = stdout.split(" ");
  if (code !== "200") throw new Error(`HTTP ${code} from ${url}`);
  return { wall: Number(total) * 1000, cpu };
}

/**
 * CPU ms this thread has run (Linux: /proc/self/task/<tid>/schedstat, where the main thread's id is
 * the process's); V8's garbage collector and the query threads run on threads of their own.
 */
const schedstat = `/proc/self/task/${process.pid}/schedstat`;
const threadCpuMs = () => Number(readFileSync(schedstat, "utf8").split(" ")[0]) / 1e6;

/**
 * Wall and CPU ms of `f`: the CPU of this thread, or with `allThreads` of the whole process (the
 * query threads' work included, and the garbage collector's helpers).
 */
async function timed(f, allThreads = false, times = 1) {
  const c0 = process.cpuUsage();
  const tc0 = threadCpuMs();
  const t0 = performance.now();
  const value = await f();
  const wall = ms(t0) / times;
  return { value, wall, cpu: (allThreads ? cpuMs(c0) : threadCpuMs() - tc0) / times };
}

/** One round of every stage of `call` on `b`; returns { wall, cpu } per stage and the answer bytes. */
async function stages(b, call, first) {
  const encodings = first ? 1 : repeats;
  const out = {};
  out.store = await timed(() => b.direct[call.method](call.storeArgs()));
  out.pooled = await timed(() => b.served[call.method](call.storeArgs()), true);
  const op = await timed(() => b.runner.call(call.operation, call.args, { baseUrl }));
  const items = op.value;
  // The operation's own part: its run on the same store, less the store call just timed.
  out.operation = { wall: op.wall - out.store.wall, cpu: op.cpu - out.store.cpu };
  b.items = items;
  const request = Buffer.from(envelope(call.operation, call.soap).replace("@NONCE@", "x"));
  // After the first round the encodings are repeated and averaged: one 1,000-row encoding is a
  // few ms, and a garbage collection falling in one call or the next would decide a single sample.
  out.soap = await timed(
    async () => {
      let bytes;
      for (let i = 0; i < encodings; i++) {
        const answer = await b.endpoint.handle(request, "text/xml; charset=utf-8", baseUrl);
        const body = answer.response.body;
        bytes = typeof body === "string" ? Buffer.from(body) : body;
      }
      return bytes;
    },
    false,
    encodings,
  );
  const columns = b.runner.operation(call.operation).columns;
  out.json = await timed(
    () => {
      let bytes;
      for (let i = 0; i < encodings; i++)
        bytes = Buffer.from(b.encodeItems(columns, items, null, new Map()), "utf8");
      return bytes;
    },
    false,
    encodings,
  );
  const file = join(work, `${b.name}.xml`);
  out.served = await curlSoap(b.url, envelope(call.operation, call.soap), file);
  return {
    out,
    soapBytes: out.soap.value,
    json: out.json.value,
    servedBytes: readFileSync(file),
    items: items.length,
  };
}

const builds = [];
for (const build of await loadBuilds(values.baseline)) builds.push(await openBuild(build));
const stageNames = ["store", "pooled", "operation", "soap", "json", "served"];
const results = new Map(); // label -> build -> stage -> { first, rest[] }
const answers = new Map(); // label -> build -> { soap, json }
const callList = calls(builds[0].parseSearchQuery);
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? builds : [...builds].reverse();
  for (const call of callList) {
    for (const b of order) {
      const { out, soapBytes, json, servedBytes, items } = await stages(b, call, round === 0);
      if (!results.has(call.label)) results.set(call.label, new Map());
      const byBuild = results.get(call.label);
      if (!byBuild.has(b.name)) byBuild.set(b.name, { items });
      const s = byBuild.get(b.name);
      for (const name of stageNames) {
        const t = { wall: out[name].wall, cpu: out[name].cpu };
        if (!(name in s)) s[name] = { first: t, rest: [] };
        else s[name].rest.push(t);
      }
      if (!answers.has(call.label)) answers.set(call.label, new Map());
      answers.get(call.label).set(b.name, { soap: soapBytes, json, served: servedBytes });
    }
  }
}

const backend = values.postgres ? "postgres" : "sqlite";
console.log(
  `answer stages, ${backend}, ${rounds} rounds, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}`,
);
const pick = (xs, what) => xs.map((x) => x[what]);
for (const [label, byBuild] of results) {
  console.log(
    `\n${label} (${byBuild.get("new").items} rows); ms of CPU (this thread; pooled and served: the process) and wall`,
  );
  const header = ["stage"];
  for (const b of builds) header.push(`${b.name} cpu 1st`, `${b.name} cpu med`, `${b.name} wall med`);
  if (builds.length === 2) header.push("cpu new/old", "wall new/old");
  console.log(header.map((h, i) => (i === 0 ? h.padEnd(10) : h.padStart(13))).join(""));
  for (const name of stageNames) {
    const cells = [name.padEnd(10)];
    const med = {};
    for (const b of builds) {
      const s = byBuild.get(b.name)[name];
      med[b.name] = { cpu: median(pick(s.rest, "cpu")), wall: median(pick(s.rest, "wall")) };
      cells.push(s.first.cpu.toFixed(1), med[b.name].cpu.toFixed(1), med[b.name].wall.toFixed(1));
    }
    if (builds.length === 2) {
      cells.push(
        `${(med.new.cpu / med.old.cpu).toFixed(2)}x`,
        `${(med.new.wall / med.old.wall).toFixed(2)}x`,
      );
    }
    console.log(cells.map((c, i) => (i === 0 ? c : c.padStart(13))).join(""));
  }
  if (builds.length === 2) {
    const a = answers.get(label);
    const same = (k) => a.get("old")[k].equals(a.get("new")[k]);
    console.log(
      `answers: SOAP ${same("soap") ? "identical" : "DIFFER"} (${a.get("new").soap.length} bytes), served ${same("served") ? "identical" : "DIFFER"}, JSON ${same("json") ? "identical" : "DIFFER"} (${a.get("new").json.length} bytes)`,
    );
  }
}
for (const b of builds) {
  await b.server.close?.();
  await b.served.close();
  if (b.direct !== b.served) await b.direct.close();
}
rmSync(work, { recursive: true, force: true });
process.exit(0);
