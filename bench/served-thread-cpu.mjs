// CPU per call of each thread of the real `feed-service serve --no-ingest` of a built checkout,
// for one 1,000-row call asked N times after a first: /proc/<pid>/task/*/schedstat read before
// and after (Linux only). Prints one JSON line: the first call's CPU (request thread, all threads),
// the warm calls' mean (request thread, all threads, each other thread) and the median wall time
// (curl). Run it for two checkouts in turns to compare builds (bench/NOTES.md, floor31).
// Usage: node bench/served-thread-cpu.mjs --tree <built checkout> --database <file or postgres:// URL>
//          [--call recent|search] [--calls 40]
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startServe, stopServe } from "./serve-process.mjs";
import { threadCounters } from "./thread-counters.mjs";

const { values } = parseArgs({
  options: {
    tree: { type: "string" },
    database: { type: "string" },
    call: { type: "string" },
    calls: { type: "string" },
  },
});
if (!values.tree || !values.database) throw new Error("--tree <checkout> --database <db>");
const count = Number(values.calls ?? 40);
const calls = {
  recent: [
    "getMostRecentPosts",
    '<limit xsi:type="xsd:double">1000</limit><offset xsi:type="xsd:double">0</offset><languageIds xsi:type="xsd:string"></languageIds>',
  ],
  // Past the first page: not recorded in the search history.
  search: [
    "search",
    '<limit xsi:type="xsd:double">1000</limit><offset xsi:type="xsd:double">20</offset><searchTerms xsi:type="xsd:string">the</searchTerms><sortBy xsi:type="xsd:string">date</sortBy><languageIds xsi:type="xsd:string"></languageIds>',
  ],
};
const [operation, params] = calls[values.call ?? "recent"];
const work = mkdtempSync(join(tmpdir(), "served-thread-cpu-"));
const requestFile = join(work, "request.xml");

const { child, base } = await startServe(values.database, [], { tree: values.tree });

/** One call with a unique comment (the answer cache never hits); curl's total time in ms. */
function call(i) {
  writeFileSync(
    requestFile,
    `<?xml version="1.0" encoding="UTF-8"?><!--${i}-${Math.random()}--><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><soapenv:Body><ns1:${operation} soapenv:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/" xmlns:ns1="http://webservices">${params}</ns1:${operation}></soapenv:Body></soapenv:Envelope>`,
  );
  const out = execFileSync("curl", [
    "-s",
    "-o",
    "/dev/null",
    "-w",
    "%{time_total}",
    "-H",
    "Content-Type: text/xml; charset=utf-8",
    "-H",
    'SOAPAction: ""',
    "--data-binary",
    `@${requestFile}`,
    `${base}/webservices/FeedAggregator`,
  ]);
  return Number(out.toString()) * 1000;
}

/** CPU ms each thread of the server has run so far. */
const threadCpu = () => new Map([...threadCounters(child.pid)].map(([tid, c]) => [tid, c.ns / 1e6]));
const spend = (before, after, per) =>
  [...after]
    .map(([tid, ms]) => [tid, (ms - (before.get(tid) ?? 0)) / per])
    .filter(([, ms]) => ms > 0.05)
    .sort((a, b) => b[1] - a[1]);

const c0 = threadCpu();
const firstWall = call(0);
const c1 = threadCpu();
const walls = [];
for (let i = 1; i <= count; i++) walls.push(call(i));
const c2 = threadCpu();
const main = String(child.pid);
const first = spend(c0, c1, 1);
const warm = spend(c1, c2, count);
const of = (s) => s.find(([tid]) => tid === main)?.[1] ?? 0;
const total = (s) => s.reduce((a, [, ms]) => a + ms, 0);
const r = (x) => Math.round(x * 100) / 100;
console.log(
  JSON.stringify({
    tree: values.tree,
    call: values.call ?? "recent",
    firstWall: r(firstWall),
    firstRequestThread: r(of(first)),
    firstAllThreads: r(total(first)),
    warmRequestThread: r(of(warm)),
    warmAllThreads: r(total(warm)),
    warmOtherThreads: warm.filter(([tid]) => tid !== main).map(([, ms]) => r(ms)),
    warmWallMedian: r([...walls].sort((a, b) => a - b)[walls.length >> 1]),
  }),
);
await stopServe({ child });
rmSync(work, { recursive: true, force: true });
