// Relevance pages of one word from two builds on one PostgreSQL database, alternating: each
// build's searchPosts (with the feed names, as the store calls it) on a connection of its own
// opened with the read pool's settings; every page's ids and scores compared between the builds,
// and each build's ms and backend CPU per call (first call on the connection, then the median of
// --repeats). Reads only.
//
//   npx tsc -b && node bench/with-bench-postgres.mjs <folder> sh -c 'node bench/postgres-ranked-newest-probe.mjs \
//     --url "$PGURL" --baseline <the old checkout's packages/feed-service/dist> --case "the" --case "modern|4" ...'
//   (a case: query text, then `|` and a comma-separated list of language ids, then `|offset|limit`)
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { explainRecorded, recordingSql } from "./explain-statements.mjs";

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    baseline: { type: "string" },
    case: { type: "string", multiple: true },
    repeats: { type: "string", default: "5" },
    rounds: { type: "string", default: "2" },
    explain: { type: "boolean" },
  },
});
const load = async (dist) => {
  const at = (f) => import(pathToFileURL(`${dist}/${f}`).href);
  return {
    dist,
    ...(await at("search/parse-search-query.js")),
    ...(await at("store/postgres/postgres-search-queries.js")),
    ...(await at("store/postgres/postgres-feed-names.js")),
    ...(await at("store/postgres/postgres-connection.js")),
  };
};
const builds = [
  { name: "old", ...(await load(resolve(values.baseline))) },
  { name: "new", ...(await load(new URL("../packages/feed-service/dist", import.meta.url).pathname)) },
];
const cases = (values.case ?? ["the"]).map((c) => {
  const [text, langs, offset, limit] = c.split("|");
  return {
    text,
    languageIds: langs ? langs.split(",").map(Number) : null,
    offset: Number(offset || 0),
    limit: Number(limit || 20),
  };
});
const cpuOf = async (client) => {
  const { rows } = await client.query("SELECT pg_backend_pid() AS pid");
  const pid = rows[0].pid;
  return () => Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
};
const answers = new Map();
/** Per case and build, each round's median backend CPU ms of the repeats. */
const cpuPerCall = new Map();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`| round | build | case | rows | first ms | first CPU ms | median ms | median CPU ms | load |`);
console.log(`|---|---|---|---|---|---|---|---|---|`);
for (let round = 0; round < Number(values.rounds); round++) {
  for (const b of round % 2 === 0 ? builds : [...builds].reverse()) {
    const pool = await b.openPostgresPool({
      url: values.url,
      max: 1,
      createSchema: false,
      settings: { work_mem: "32MB", enable_seqscan: "off", max_parallel_workers_per_gather: 0, jit: "off" },
    });
    const client = await pool.connect();
    const cpu = await cpuOf(client);
    const names = new b.FeedNames();
    const sql = { query: (t, p) => client.query(t, p) };
    for (const c of cases) {
      const page = {
        query: b.parseSearchQuery(c.text),
        sort: "relevance",
        offset: c.offset,
        limit: c.limit,
        languageIds: c.languageIds,
      };
      const times = [];
      let got;
      for (let i = 0; i <= Number(values.repeats); i++) {
        const t0 = performance.now();
        const c0 = cpu();
        got = await b.searchPosts(sql, page, (s) => names.current(s));
        times.push([performance.now() - t0, cpu() - c0]);
      }
      const key = JSON.stringify(c);
      const ids = JSON.stringify(got.map((r) => [r.postId, r.score]));
      if (!answers.has(key)) answers.set(key, ids);
      else if (answers.get(key) !== ids) console.log(`DIFFERENT ANSWER: ${b.name} ${key}`);
      const rest = times.slice(1);
      const per = cpuPerCall.get(key) ?? { old: [], new: [] };
      per[b.name].push(median(rest.map((t) => t[1])));
      cpuPerCall.set(key, per);
      console.log(
        `| ${round} | ${b.name} | ${c.text}${c.languageIds ? ` [${c.languageIds}]` : ""} ${c.offset}+${c.limit} | ${got.length} | ${times[0][0].toFixed(1)} | ${times[0][1].toFixed(1)} | ${median(rest.map((t) => t[0])).toFixed(1)} | ${median(rest.map((t) => t[1])).toFixed(1)} | ${loadavg()[0].toFixed(1)} |`,
      );
    }
    client.release();
    await pool.end();
  }
}
if (values.explain) {
  // EXPLAIN (ANALYZE, BUFFERS) of each statement the new build ran for each case, warm.
  const b = builds[1];
  const pool = await b.openPostgresPool({
    url: values.url,
    max: 1,
    createSchema: false,
    settings: { work_mem: "32MB", enable_seqscan: "off", max_parallel_workers_per_gather: 0, jit: "off" },
  });
  const client = await pool.connect();
  const names = new b.FeedNames();
  for (const c of cases) {
    const { sql, recorded } = recordingSql(client);
    const page = {
      query: b.parseSearchQuery(c.text),
      sort: "relevance",
      offset: c.offset,
      limit: c.limit,
      languageIds: c.languageIds,
    };
    await b.searchPosts(sql, page, (s) => names.current(s));
    console.log(`\n${JSON.stringify(c)}`);
    await explainRecorded(client, recorded, true);
  }
  client.release();
  await pool.end();
}
console.log("\n| case | old CPU ms a call (median of rounds) | new | new / old |\n|---|---|---|---|");
for (const [key, per] of cpuPerCall) {
  if (per.old.length === 0 || per.new.length === 0) continue;
  const c = JSON.parse(key);
  const [o, n] = [median(per.old), median(per.new)];
  console.log(
    `| ${c.text}${c.languageIds ? ` [${c.languageIds}]` : ""} ${c.offset}+${c.limit} | ${o.toFixed(1)} | ${n.toFixed(1)} | ${(n / o).toFixed(2)} |`,
  );
}
console.log(`answers compared: ${answers.size} cases, identical unless a DIFFERENT line above`);
