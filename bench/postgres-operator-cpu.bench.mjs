// Two builds' PostgreSQL searches with operators, alternating call by call on the same database,
// timed by the server process's time on a CPU (/proc/<pid>/schedstat of each build's backend) as
// well as the clock: on a machine shared with other work the clock measures the wait for a core,
// the backend's CPU time does not. Each build searches through its own searchWithOperators on one
// connection opened as the store's read pool opens it (explain-statements.mjs). Reads only: no
// migration runs (the database must be at a schema both builds' reads know). Linux; the server's
// /proc must be readable (root or the server's user).
//
//   npx tsc -b && node bench/postgres-operator-cpu.bench.mjs --url postgres://... \
//     --baseline <another build's packages/feed-service/dist> --query 'title:new guide' [--query ...]
//     [--sort clicks] [--limit 1000] [--offset 0] [--repeats 7] [--baseline-url postgres://...]
//
// --baseline-url: the old build searches another database (the same rows under another schema,
// say a copy before a migration that only moves storage; --baseline may then be this build's dist).
//
// Prints per query and build the first call and the median of --repeats more (server CPU ms /
// wall ms), new / old of the CPU medians, and whether both builds answered the same ids.
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { inTurns } from "./builds-under-test.mjs";
import { openExplainClient } from "./explain-statements.mjs";

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    baseline: { type: "string" },
    "baseline-url": { type: "string" },
    query: { type: "string", multiple: true },
    sort: { type: "string" },
    limit: { type: "string" },
    offset: { type: "string" },
    repeats: { type: "string" },
  },
});
const repeats = Number(values.repeats ?? 7);
const page = {
  sort: values.sort ?? "clicks",
  offset: Number(values.offset ?? 0),
  limit: Number(values.limit ?? 1000),
  languageIds: null,
};

async function build(label, dist, url) {
  const { parseSearchQuery } = await import(new URL("search/parse-search-query.js", dist).href);
  const { resolveSearchFilters } = await import(new URL("operations/search-filters.js", dist).href);
  const { searchWithOperators } = await import(
    new URL("store/postgres/postgres-search-operators.js", dist).href
  );
  const { client, close } = await openExplainClient(dist, url);
  const [{ pid }] = (await client.query("SELECT pg_backend_pid() AS pid")).rows;
  const names = async () => (await client.query('SELECT id AS "feedId", name AS "feedName" FROM feeds')).rows;
  const languages = async () =>
    (await client.query('SELECT id AS "languageId", code AS "languageCode" FROM languages')).rows;
  const resolveQuery = (text) =>
    resolveSearchFilters({ feedNames: names, languages, feeds: names }, parseSearchQuery(text));
  return { label, pid, client, close, resolveQuery, searchWithOperators };
}

/** The backend's time on a CPU so far, ms. */
const onCpu = (pid) => Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;

async function call(b, query) {
  const cpu = onCpu(b.pid);
  const started = performance.now();
  const found = await b.searchWithOperators(b.client, { ...page, query });
  return {
    wall: performance.now() - started,
    cpu: onCpu(b.pid) - cpu,
    ids: found.map((r) => `${r.postId}:${r.score ?? ""}`).join(","),
  };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const f1 = (x) => x.toFixed(1);

const builds = [
  await build("old", pathToFileURL(`${resolve(values.baseline)}/`), values["baseline-url"] ?? values.url),
  await build("new", new URL("../packages/feed-service/dist/", import.meta.url), values.url),
];
console.log(
  `| query (${page.sort}, offset ${page.offset}, limit ${page.limit}) | old first cpu / wall | old median cpu / wall | new first cpu / wall | new median cpu / wall | new / old cpu | rows | same |`,
);
console.log("|---|---|---|---|---|---|---|---|");
const loadBefore = loadavg()[0];
try {
  for (const text of values.query ?? []) {
    const queries = await Promise.all(builds.map((b) => b.resolveQuery(text)));
    const { runs, same } = await inTurns(builds, queries, call, repeats + 1);
    const cells = runs.flatMap((rs) => {
      const rest = rs.slice(1);
      return [
        `${f1(rs[0].cpu)} / ${f1(rs[0].wall)}`,
        `${f1(median(rest.map((r) => r.cpu)))} / ${f1(median(rest.map((r) => r.wall)))}`,
      ];
    });
    const ratio = median(runs[1].slice(1).map((r) => r.cpu)) / median(runs[0].slice(1).map((r) => r.cpu));
    const rows = runs[1][0].ids === "" ? 0 : runs[1][0].ids.split(",").length;
    console.log(
      `| '${text}' | ${cells.join(" | ")} | ${ratio.toFixed(2)} | ${rows} | ${same ? "yes" : "NO"} |`,
    );
  }
} finally {
  for (const b of builds) await b.close();
}
console.log(`load average ${f1(loadBefore)} before, ${f1(loadavg()[0])} after (2 cores, shared)`);
