// What a PostgreSQL service's first searches after start read from outside shared buffers, and
// what that costs the database: starts the real `feed-service serve --no-ingest` (this checkout's
// build or --tree's) on an already running server, with its start warm-up, then prints how much of
// the posts' heap, TOAST and full-text indexes the OS page cache holds at that moment (fincore), and
// for each search its first call and one repeat: wall ms, the CPU of the server processes behind
// the service's connections (/proc/<pid>/schedstat), and the blocks they read from outside shared
// buffers (pg_stat_get_blocks_fetched - _hit), summed over the first call and its repeat (a
// backend's counts reach the shared statistics only at its next transaction, so one call's reads
// cannot be told apart from the next's; a warm repeat reads none). The peer is the other build,
// run the same way in turns on a freshly started server each time (the caller starts it):
//
//   node bench/with-bench-postgres.mjs <a 1M PostgreSQL folder> node bench/postgres-first-reads.mjs \
//     [--tree <another checkout>] --search 'the' --search 'the|relevance|de' --search 'title:the|clicks||1000'
//
// A --search is `terms|sortBy|language code|limit` (defaults relevance, all languages, 20). Linux
// only (schedstat, fincore from util-linux); reads only.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { startServe, stopServe } from "./serve-process.mjs";

const { values } = parseArgs({
  options: { tree: { type: "string" }, search: { type: "string", multiple: true } },
});
const tree = values.tree ? resolve(values.tree) : new URL("..", import.meta.url).pathname;
const pg = createRequire(import.meta.url)("pg");
const url = process.env.PGURL;
const admin = new pg.Client(url);
await admin.connect();

const codes = new Map(
  (await admin.query("SELECT id, code FROM languages")).rows.map((r) => [r.code, String(r.id)]),
);
const xml = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/"/g, "&quot;");
const searches = (values.search ?? []).map((spec) => {
  const [terms, sortBy = "relevance", language = "", limit = "20"] = spec.split("|");
  return {
    terms,
    sortBy: sortBy || "relevance",
    language,
    languageIds: language ? codes.get(language) : "",
    limit,
  };
});
const body = (s) =>
  '<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" ' +
  'xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">' +
  `<!--${process.pid}-${performance.now()}--><soapenv:Body><ns1:search soapenv:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/" xmlns:ns1="http://webservices">` +
  `<limit xsi:type="xsd:int">${s.limit}</limit><offset xsi:type="xsd:int">0</offset>` +
  `<searchTerms xsi:type="xsd:string">${xml(s.terms)}</searchTerms><sortBy xsi:type="xsd:string">${s.sortBy}</sortBy>` +
  `<languageIds xsi:type="xsd:string">${s.languageIds}</languageIds></ns1:search></soapenv:Body></soapenv:Envelope>`;

const server = await startServe(url, [], { tree });
const warmLine = /feed-service: ((?:read |did not warm)[^\n]*)/.exec(server.output)?.[1] ?? "no warm-up line";
console.log(
  `tree ${tree}; start ${(server.startMs / 1000).toFixed(1)} s, load ${loadavg()[0].toFixed(1)}: ${warmLine}`,
);

// What the OS page cache holds of the large relations a search reads, right after the start.
const dataDir = (await admin.query("SELECT current_setting('data_directory') AS d")).rows[0].d;
const large = await admin.query(
  `SELECT c.oid::regclass::text AS name, pg_relation_filepath(c.oid) AS path, pg_relation_size(c.oid)::float8 AS bytes
    FROM pg_class c WHERE c.oid IN ('posts'::regclass, 'posts_search_words'::regclass, 'posts_feed_words'::regclass,
      'posts_search_operators'::regclass, (SELECT reltoastrelid FROM pg_class WHERE oid = 'posts'::regclass))`,
);
const cached = large.rows.map(({ name, path, bytes }) => {
  let held = 0;
  for (let segment = 0; segment * 2 ** 30 < bytes; segment++) {
    const file = `${dataDir}/${path}${segment ? `.${segment}` : ""}`;
    held += Number(
      execFileSync("fincore", ["--bytes", "--noheadings", "--output", "RES", file], { encoding: "utf8" }),
    );
  }
  return `${name} ${Math.round(held / 2 ** 20)} of ${Math.round(bytes / 2 ** 20)} MB`;
});
console.log(`OS page cache after start: ${cached.join("; ")}`);

const blocks = async () => {
  await admin.query("SELECT pg_stat_clear_snapshot()");
  const { rows } = await admin.query(
    `SELECT c.oid::regclass::text AS name, (pg_stat_get_blocks_fetched(c.oid) - pg_stat_get_blocks_hit(c.oid))::float8 AS n
      FROM pg_class c WHERE c.relkind IN ('r', 'i', 't', 'm')`,
  );
  return new Map(rows.map((r) => [r.name, r.n]));
};
const backendCpu = async () => {
  const { rows } = await admin.query(
    "SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()",
  );
  let ms = 0;
  for (const { pid } of rows) {
    try {
      ms += Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
    } catch {
      // a connection closed meanwhile
    }
  }
  return ms;
};
const call = async (s) => {
  const cpu = await backendCpu();
  const started = performance.now();
  const response = await fetch(`${server.base}/webservices/FeedAggregator`, {
    method: "POST",
    headers: { "Content-Type": "text/xml; charset=utf-8", SOAPAction: '""' },
    body: body(s),
  });
  await response.text();
  return { ms: performance.now() - started, cpu: (await backendCpu()) - cpu };
};

console.log(
  "| search | first ms | first backend CPU ms | repeat ms | repeat backend CPU ms | blocks read (first + repeat), by relation |",
);
console.log("|---|---|---|---|---|---|");
for (const s of searches) {
  const before = await blocks();
  const first = await call(s);
  const repeat = await call(s);
  // A backend's block counts reach the shared statistics at its next transaction after a pause:
  // a third call, after one, carries the first two's (its own reads, warm, are none).
  await new Promise((r) => setTimeout(r, 2_500));
  await call(s);
  const after = await blocks();
  const read = [...after]
    .map(([name, n]) => [name, n - (before.get(name) ?? 0)])
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1]);
  const label = `${s.terms} ${s.sortBy}${s.language ? ` in ${s.language}` : ""}${s.limit !== "20" ? ` limit ${s.limit}` : ""}`;
  console.log(
    `| ${label} | ${first.ms.toFixed(1)} | ${first.cpu.toFixed(1)} | ${repeat.ms.toFixed(1)} | ${repeat.cpu.toFixed(1)} | ${read
      .slice(0, 4)
      .map(([name, n]) => `${name} ${n}`)
      .join(", ")} |`,
  );
}
console.log(`load average at the end ${loadavg()[0].toFixed(1)}`);
await stopServe(server);
await admin.end();
