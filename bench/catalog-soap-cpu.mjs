// The feed lists, feed rankings and language data as whole SOAP calls in one process, an old build
// (--baseline, a dist folder) against this checkout's, alternating call by call (which build goes
// first swaps each round): each build's endpoint over a store without query threads, so a call's
// decoding, statement, records, sort and encoding all run on this thread; its CPU is read from
// /proc/self/task/<pid>/schedstat (Linux). Prints each call's first-call CPU and the median of the
// later rounds, old and new, and their ratio. The answers are compared byte for byte.
// Usage: npx tsc -b && node bench/catalog-soap-cpu.mjs --db <SQLite corpus> --baseline <old dist> [--rounds 15]
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { loadBuilds } from "./builds-under-test.mjs";

const { values } = parseArgs({
  options: { db: { type: "string" }, baseline: { type: "string" }, rounds: { type: "string" } },
});
if (!values.db || !values.baseline) throw new Error("--db <SQLite corpus> --baseline <old dist>");
const rounds = Number(values.rounds ?? 15);
const threadCpuMs = () =>
  Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;

const endpoints = {};
for (const build of await loadBuilds(values.baseline)) {
  const { createFeedSoapEndpoint } = await import(
    pathToFileURL(`${build.folder}/http/feed-soap-endpoint.js`).href
  );
  const store = await build.openStore(values.db);
  endpoints[build.name] = createFeedSoapEndpoint(
    build.createOperationRunner({ store, parseSearch: build.parseSearchQuery }),
  );
}
/** A request with a unique comment, as the latency bench sends. */
const envelope = (op, params) =>
  `<?xml version="1.0" encoding="UTF-8"?><!--${Math.random()}--><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body><ns1:${op} xmlns:ns1="http://webservices">${Object.entries(
    params,
  )
    .map(([name, value]) => `<${name}>${value}</${name}>`)
    .join("")}</ns1:${op}></soapenv:Body></soapenv:Envelope>`;
const calls = [
  ["getFeeds", {}],
  ["getFeedsByLanguage", { languageId: 1 }],
  ["getFeedsByCategory", { categoryId: 7 }],
  ["getMostPopularFeeds", { daysBack: 879, limit: 1000 }],
  ["getMostProlificFeeds", { daysBack: 365, limit: 1000 }],
  ["getMostProlificFeeds", { daysBack: 36500, limit: 1000 }],
  ["getAggregateLanguageData", {}],
];
const spent = {};
const differ = new Set();
for (let round = 0; round < rounds; round++) {
  for (const [op, params] of calls) {
    const label = `${op} ${Object.values(params).join(" ")}`.trim();
    const bodies = {};
    for (const name of round % 2 === 0 ? ["old", "new"] : ["new", "old"]) {
      const c0 = threadCpuMs();
      const { response } = await endpoints[name].handle(
        Buffer.from(envelope(op, params)),
        "text/xml",
        "http://x",
      );
      spent[label] ??= { old: [], new: [] };
      spent[label][name].push(threadCpuMs() - c0);
      bodies[name] = Buffer.from(response.body);
    }
    if (!bodies.old.equals(bodies.new)) differ.add(label);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[(xs.length - 1) >> 1];
console.log(
  `load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}; thread CPU ms: first call, median of rounds 2-${rounds}`,
);
for (const [label, { old, new: nu }] of Object.entries(spent)) {
  const [o, n] = [median(old.slice(1)), median(nu.slice(1))];
  console.log(
    `${label.padEnd(36)} old ${old[0].toFixed(1).padStart(6)} ${o.toFixed(1).padStart(6)} | new ${nu[0].toFixed(1).padStart(6)} ${n.toFixed(1).padStart(6)} | ${(n / o).toFixed(2)}x${differ.has(label) ? "  ANSWERS DIFFER" : ""}`,
  );
}
process.exit(0);
