// SOAP throughput of getMostRecentPosts(limit=20) on a 1,000,000-post SQLite database, 32
// connections, measured with wrk (a C load generator: a Node one would take a core from the
// server on this 2-core machine). In the same run:
//   service — the feed service (Fastify, SOAP decoder, operation table, store, encoder), with
//             its answer cache and without;
//   json    — the same service's `GET /api/v1/posts?limit=20` (the same operation as JSON);
//   limit   — a bare node:http server answering the identical precomputed response bytes (one
//             for the SOAP answer, one for the JSON answer);
//   peer    — node-soap serving the same operation from the same store.
// The store is opened as `serve` opens it: the operations' reads on query threads.
// Usage: npx tsc -b && node bench/feed-service-soap.bench.mjs [--posts N] [--seconds S]
import { writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import soap from "soap";
import { corpusNow, openCorpus, openStore } from "./feed-service-corpus.mjs";
import { runWrkOnce } from "./wrk-load.mjs";

const { values } = parseArgs({ options: { posts: { type: "string" }, seconds: { type: "string" } } });
const posts = Number(values.posts ?? 1_000_000);
const seconds = Number(values.seconds ?? 10);
const connections = 32;

const dist = new URL("../packages/feed-service/dist/", import.meta.url);
const { createFeedServer } = await import(new URL("http/feed-server.js", dist).href);
const { createOperationRunner } = await import(new URL("operations/operation-runner.js", dist).href);
const { parseSearchQuery } = await import(new URL("search/parse-search-query.js", dist).href);

// Opened as `serve` opens it: reads of the operations on the query threads, with the deadline and
// the bounded queue (the plain store openCorpus returns runs every query on this thread).
const corpus = await openCorpus(posts);
await corpus.store.close();
const store = await openStore(corpus.path, { queryLimits: {} });
const path = "/webservices/FeedAggregator";
const requestBody =
  '<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" ' +
  'xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><soapenv:Body>' +
  '<ns1:getMostRecentPosts soapenv:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/" xmlns:ns1="http://webservices">' +
  '<limit xsi:type="xsd:double">20</limit><offset xsi:type="xsd:double">0</offset><languageIds xsi:type="xsd:string"></languageIds>' +
  "</ns1:getMostRecentPosts></soapenv:Body></soapenv:Envelope>";
const lua = join(tmpdir(), "feed-service-soap-bench.lua");
writeFileSync(
  lua,
  `wrk.method = "POST"\nwrk.body = ${JSON.stringify(requestBody)}\n` +
    `wrk.headers["Content-Type"] = "text/xml; charset=utf-8"\nwrk.headers["SOAPAction"] = '""'\n`,
);

const getLua = join(tmpdir(), "feed-service-get-bench.lua");
writeFileSync(getLua, 'wrk.method = "GET"\n');
const jsonPath = "/api/v1/posts?limit=20";

/**
 * A 2 s warm-up, then the measured wrk run, with the CPU this process spent on it (every server
 * here runs in this process, query threads included; wrk is a child and not counted): CPU µs per
 * answered request is the figure that holds up on a shared, loaded machine, where req/s swings
 * with what else runs.
 */
async function measure(url, script) {
  await runWrkOnce({ url, lua: script, connections, seconds: 2 });
  const before = process.cpuUsage();
  const r = await runWrkOnce({ url, lua: script, connections, seconds });
  const used = process.cpuUsage(before);
  return { ...r, cpuPerRequest: (used.user + used.system) / (r.rps * seconds) };
}
const wrk = (url) => measure(url, lua);
const wrkGet = (url) => measure(url, getLua);

async function listen(server) {
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${server.address().port}${path}`;
}

const results = {};

// 1. The service itself, with its answer cache (the default) and without it (every call decodes,
// queries the store and encodes).
const runner = createOperationRunner({ store, parseSearch: parseSearchQuery, now: () => corpusNow });
let responseBytes;
let jsonBytes;
let wsdl;
for (const [key, responseCache] of [
  ["service", true],
  ["uncached", false],
]) {
  const service = createFeedServer({ store, runner, publicUrl: "http://127.0.0.1:8080", responseCache });
  const serviceAddress = await service.listen(0, "127.0.0.1");
  const serviceUrl = `http://127.0.0.1:${serviceAddress.port}${path}`;
  const sample = await fetch(serviceUrl, {
    method: "POST",
    headers: { "Content-Type": "text/xml" },
    body: requestBody,
  });
  responseBytes = Buffer.from(await sample.arrayBuffer());
  const rows = (responseBytes.toString().match(/soapenc:arrayType="xsd:anyType\[12\]"/g) ?? []).length;
  if (sample.status !== 200 || rows !== 20)
    throw new Error(`the service answered ${sample.status} with ${rows} rows`);
  results[key] = await wrk(serviceUrl);
  wsdl = await (await fetch(`${serviceUrl}?wsdl`)).text();
  const jsonUrl = `http://127.0.0.1:${serviceAddress.port}${jsonPath}`;
  const jsonSample = responseCache ? await fetch(jsonUrl) : undefined;
  // A build without the JSON API (an older one, measured for comparison) leaves its rows out.
  if (jsonSample !== undefined && jsonSample.status !== 404) {
    jsonBytes = Buffer.from(await jsonSample.arrayBuffer());
    const items = JSON.parse(jsonBytes.toString()).items.length;
    if (jsonSample.status !== 200 || items !== 20)
      throw new Error(`the JSON API answered ${jsonSample.status} with ${items} items`);
    results.json = await wrkGet(jsonUrl);
  }
  await service.close();
}

// 2. The limit: the same bytes, precomputed, from a bare node:http server.
const bare = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "Content-Type": "text/xml; charset=utf-8", "Content-Length": responseBytes.length });
    res.end(responseBytes);
  });
});
results.limit = await wrk(await listen(bare));
await new Promise((resolve) => bare.close(resolve));
bare.closeAllConnections?.();
const bareJson =
  jsonBytes === undefined
    ? undefined
    : createServer((req, res) => {
        req.resume();
        req.on("end", () => {
          res.writeHead(200, {
            "Content-Type": "application/json; charset=utf-8",
            "Content-Length": jsonBytes.length,
          });
          res.end(jsonBytes);
        });
      });
if (bareJson !== undefined) {
  await new Promise((resolve) => bareJson.listen(0, "127.0.0.1", resolve));
  results.jsonLimit = await wrkGet(`http://127.0.0.1:${bareJson.address().port}${jsonPath}`);
  await new Promise((resolve) => bareJson.close(resolve));
  bareJson.closeAllConnections?.();
}

// 3. The peer: node-soap serving the same operation, from the same store, with the same WSDL.
const peerServer = createServer((_req, res) => {
  res.writeHead(404);
  res.end();
});
const peerUrl = await listen(peerServer);
const toRow = (p) => [
  p.postId,
  p.postTitle,
  p.postLink,
  p.postExcerpt,
  new Date(p.postDate),
  p.feedId,
  p.feedName,
  p.categoryId,
  p.categoryName,
  p.languageId,
  p.clicks,
  `http://127.0.0.1:8080/click/${p.postId}`,
];
const columnList = [
  "postId",
  "postTitle",
  "postLink",
  "postExcerpt",
  "postDate",
  "feedId",
  "feedName",
  "categoryId",
  "categoryName",
  "languageId",
  "clicks",
  "trackingLink",
];
const port = {
  async getMostRecentPosts(args) {
    // node-soap hands typed elements over as { attributes, $value }.
    const num = (v) => Number(typeof v === "object" && v !== null ? v.$value : v);
    const list = await store.recentPosts({
      limit: num(args.limit),
      offset: num(args.offset),
      languageIds: null,
    });
    return {
      getMostRecentPostsReturn: {
        columnList: { item: columnList },
        data: { item: list.map((p) => ({ item: toRow(p) })) },
      },
    };
  },
};
const serviceDef = { FeedAggregatorService: {} };
const portName =
  /<wsdl:port [^>]*name="([^"]+)"/.exec(wsdl)?.[1] ?? /<wsdl:port name="([^"]+)"/.exec(wsdl)?.[1];
serviceDef.FeedAggregatorService[portName] = port;
soap.listen(peerServer, { path, services: serviceDef, xml: wsdl });
const peerSample = await fetch(peerUrl, {
  method: "POST",
  headers: { "Content-Type": "text/xml", SOAPAction: '""' },
  body: requestBody,
});
const peerText = await peerSample.text();
if (peerSample.status !== 200 || !peerText.includes("postTitle")) {
  throw new Error(`node-soap answered ${peerSample.status}: ${peerText.slice(0, 2000)}`);
}
results.peer = await wrk(peerUrl);
await new Promise((resolve) => peerServer.close(resolve));
await store.close();

const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : "n/a");
console.log(
  `getMostRecentPosts(limit=20), ${posts.toLocaleString("en")} posts, wrk -t1 -c${connections} -d${seconds}s, response ${responseBytes.length} bytes`,
);
console.log(
  "| contender                          | req/s   | p99 ms | CPU µs/req | cached ÷ this  | non-2xx | socket errors |",
);
console.log(
  "|------------------------------------|---------|--------|------------|----------------|---------|---------------|",
);
const names = {
  service: "SOAP, answer cache on",
  uncached: "SOAP, answer cache off",
  limit: "bare node:http, same SOAP bytes",
  peer: "node-soap, same store (peer)",
  json: "GET /api/v1/posts, answer cache on",
  jsonLimit: "bare node:http, same JSON bytes",
};
const shown = ["service", "uncached", "limit", "peer", "json", "jsonLimit"].filter((key) => results[key]);
for (const key of shown) {
  const r = results[key];
  const ratio = key === "service" ? "1.00" : fmt(results.service.rps / r.rps, 2);
  console.log(
    `| ${names[key].padEnd(34)} | ${fmt(r.rps).padStart(7)} | ${fmt(r.p99, 2).padStart(6)} | ${fmt(r.cpuPerRequest, 1).padStart(10)} | ${ratio.padStart(14)} | ${String(r.errors).padStart(7)} | ${r.socketErrors.padEnd(13)} |`,
  );
}
// "× the limit" by throughput, and by CPU per request (limit's µs ÷ this one's: the throughput
// ratio this path would reach if both had a core to themselves).
const versus = (r, limit) =>
  `${fmt(r.rps / limit.rps, 2)}× the limit by req/s, ${fmt(limit.cpuPerRequest / r.cpuPerRequest, 2)}× by CPU per request`;
for (const key of ["service", "uncached"]) {
  const r = results[key];
  console.log(
    `${names[key]}: ${versus(r, results.limit)} (target ≥ 0.5), ${fmt(r.rps / results.peer.rps, 2)}× the peer (target ≥ 3), p99 ${fmt(r.p99, 2)} ms (target < 20)`,
  );
}
if (results.json) {
  console.log(
    `${names.json}: ${versus(results.json, results.jsonLimit)} of the same JSON bytes; ${versus(results.json, results.limit)} of the SOAP bytes (target ≥ 0.5); p99 ${fmt(results.json.p99, 2)} ms`,
  );
}
