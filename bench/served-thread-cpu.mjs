// CPU per call of each thread of the real `feed-service serve --no-ingest` of a built checkout,
// for one call (or several, one after another on the same server: `--call feeds,popular`) asked N
// times after a first: /proc/<pid>/task/*/schedstat read before and after (Linux only). Prints
// one JSON line per call: the first call's CPU (request thread, all threads), the warm calls'
// mean (request thread, all threads, each other thread), the median wall time (curl) and the
// answer's bytes. Run it for two checkouts in turns to compare builds (bench/NOTES.md, floor31).
// Calls: recent, search (1,000 rows), searchClicks (1,000 rows by clicks, offset 0); feeds,
// feedsLang (English's feeds), feedsCat (category 7), popular (879 days), prolific (365 days),
// prolificAll (36,500 days), languageData.
// Usage: node bench/served-thread-cpu.mjs --tree <built checkout> --database <file or postgres:// URL>
//          [--call recent|search|feeds|...[,...]] [--calls 40]
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
  // By clicks at offset 0 as the latency bench's row asks it (recorded in the search history,
  // which a SQLite database keeps in a file of its own beside it).
  searchClicks: [
    "search",
    '<limit xsi:type="xsd:double">1000</limit><offset xsi:type="xsd:double">0</offset><searchTerms xsi:type="xsd:string">the</searchTerms><sortBy xsi:type="xsd:string">clicks</sortBy><languageIds xsi:type="xsd:string"></languageIds>',
  ],
  // Past the first page: not recorded in the search history.
  search: [
    "search",
    '<limit xsi:type="xsd:double">1000</limit><offset xsi:type="xsd:double">20</offset><searchTerms xsi:type="xsd:string">the</searchTerms><sortBy xsi:type="xsd:string">date</sortBy><languageIds xsi:type="xsd:string"></languageIds>',
  ],
  feeds: ["getFeeds", ""],
  feedsLang: ["getFeedsByLanguage", '<languageId xsi:type="xsd:double">1</languageId>'],
  feedsCat: ["getFeedsByCategory", '<categoryId xsi:type="xsd:double">7</categoryId>'],
  popular: [
    "getMostPopularFeeds",
    '<daysBack xsi:type="xsd:double">879</daysBack><limit xsi:type="xsd:double">1000</limit>',
  ],
  prolific: [
    "getMostProlificFeeds",
    '<daysBack xsi:type="xsd:double">365</daysBack><limit xsi:type="xsd:double">1000</limit>',
  ],
  prolificAll: [
    "getMostProlificFeeds",
    '<daysBack xsi:type="xsd:double">36500</daysBack><limit xsi:type="xsd:double">1000</limit>',
  ],
  languageData: ["getAggregateLanguageData", ""],
};
const names = (values.call ?? "recent").split(",");
for (const name of names)
  if (!(name in calls)) throw new Error(`--call ${name}: one of ${Object.keys(calls)}`);
const work = mkdtempSync(join(tmpdir(), "served-thread-cpu-"));
const requestFile = join(work, "request.xml");

const { child, base } = await startServe(values.database, [], { tree: values.tree });

/** One call with a unique comment (the answer cache never hits); curl's total time in ms. */
function call(operation, params, i) {
  writeFileSync(
    requestFile,
    `<?xml version="1.0" encoding="UTF-8"?><!--${i}-${Math.random()}--><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><soapenv:Body><ns1:${operation} soapenv:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/" xmlns:ns1="http://webservices">${params}</ns1:${operation}></soapenv:Body></soapenv:Envelope>`,
  );
  const out = execFileSync("curl", [
    "-s",
    "-o",
    "/dev/null",
    "-w",
    "%{time_total} %{size_download}",
    "-H",
    "Content-Type: text/xml; charset=utf-8",
    "-H",
    'SOAPAction: ""',
    "--data-binary",
    `@${requestFile}`,
    `${base}/webservices/FeedAggregator`,
  ]);
  const [seconds, bytes] = out.toString().split(" ");
  return { ms: Number(seconds) * 1000, bytes: Number(bytes) };
}

/** CPU ms each thread of the server has run so far. */
const threadCpu = () => new Map([...threadCounters(child.pid)].map(([tid, c]) => [tid, c.ns / 1e6]));
const spend = (before, after, per) =>
  [...after]
    .map(([tid, ms]) => [tid, (ms - (before.get(tid) ?? 0)) / per])
    .filter(([, ms]) => ms > 0.05)
    .sort((a, b) => b[1] - a[1]);

const main = String(child.pid);
const of = (s) => s.find(([tid]) => tid === main)?.[1] ?? 0;
const total = (s) => s.reduce((a, [, ms]) => a + ms, 0);
const queryThread = (s) => s.find(([tid]) => tid !== main)?.[0];
const r = (x) => Math.round(x * 100) / 100;
for (const name of names) {
  const [operation, params] = calls[name];
  const c0 = threadCpu();
  const firstCall = call(operation, params, 0);
  const c1 = threadCpu();
  const walls = [];
  for (let i = 1; i <= count; i++) walls.push(call(operation, params, i).ms);
  const c2 = threadCpu();
  const first = spend(c0, c1, 1);
  const warm = spend(c1, c2, count);
  console.log(
    JSON.stringify({
      tree: values.tree,
      call: name,
      bytes: firstCall.bytes,
      firstWall: r(firstCall.ms),
      firstRequestThread: r(of(first)),
      firstAllThreads: r(total(first)),
      // The query thread (the busiest other thread of the warm calls) and the rest (V8's platform
      // threads: the parallel and concurrent collections), first call.
      firstQueryThread: r(first.find(([tid]) => tid === queryThread(warm))?.[1] ?? 0),
      firstRestThreads: r(total(first.filter(([tid]) => tid !== main && tid !== queryThread(warm)))),
      warmRequestThread: r(of(warm)),
      warmAllThreads: r(total(warm)),
      warmOtherThreads: warm.filter(([tid]) => tid !== main).map(([, ms]) => r(ms)),
      warmWallMedian: r([...walls].sort((a, b) => a - b)[walls.length >> 1]),
      // The first call's CPU, all threads, against the warm calls' mean in the same process.
      firstToWarmAllThreads: r(total(first) / total(warm)),
    }),
  );
}
await stopServe({ child });
rmSync(work, { recursive: true, force: true });
