// The few-matches plan (postgres-few-matches.ts) of two builds, alternating call by call on the
// same database: fewMatchesPage alone, the statements that decide whether a counted word within
// `feed:`/`lang:` leaves at most FEW_MATCHES matches (and the page when it does), timed by the
// backend's time on a CPU (/proc/<pid>/schedstat) as well as the clock: on a machine shared with
// other work the clock measures the wait for a core, the backend's CPU time does not. Each build
// plans the query with its own code on one connection opened as the store's read pool opens it
// (explain-statements.mjs). Reads only: the database must be at a schema both builds know. Linux;
// the server's /proc must be readable (root or the server's user).
//
//   npx tsc -b && node bench/postgres-few-matches-first.bench.mjs --url postgres://... \
//     --baseline <another build's packages/feed-service/dist> --query 'feed:日 the' [--query ...]
//     [--sort date] [--limit 20] [--offset 0] [--repeats 15]
//
// Prints per query and build the median of --repeats calls after a first (backend CPU ms / wall
// ms), new / old of the CPU medians, what each answered (`other plans`: fewMatchesPage said null;
// else the page's size) and whether both answered the same.
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
    query: { type: "string", multiple: true },
    sort: { type: "string" },
    limit: { type: "string" },
    offset: { type: "string" },
    repeats: { type: "string" },
  },
});
if (!values.url || !values.baseline) {
  console.error("usage: --url postgres://... --baseline <dist> --query <terms> [...]");
  process.exit(2);
}
const repeats = Number(values.repeats ?? 15);
const page = {
  sort: values.sort ?? "date",
  offset: Number(values.offset ?? 0),
  limit: Number(values.limit ?? 20),
};

async function build(label, dist) {
  const load = (path) => import(new URL(path, dist).href);
  const { parseSearchQuery } = await load("search/parse-search-query.js");
  const { foldLanguageClauses } = await load("search/search-query.js");
  const { resolveSearchFilters } = await load("operations/search-filters.js");
  const { planOf } = await load("store/postgres/postgres-operator-plan.js");
  const { withWritingFeeds } = await load("store/postgres/postgres-search-operators.js");
  const { fewMatchesPage } = await load("store/postgres/postgres-few-matches.js");
  const { client, close } = await openExplainClient(dist, values.url);
  const [{ pid }] = (await client.query("SELECT pg_backend_pid() AS pid")).rows;
  const names = async () => (await client.query('SELECT id AS "feedId", name AS "feedName" FROM feeds')).rows;
  const languages = async () =>
    (await client.query('SELECT id AS "languageId", code AS "languageCode" FROM languages')).rows;
  /** The query as a search request folds it, and the build's plan of it (not timed). */
  const prepare = async (text) => {
    const resolved = await resolveSearchFilters(
      { feedNames: names, languages, feeds: names },
      parseSearchQuery(text),
    );
    const folded = foldLanguageClauses(resolved, null);
    const plan = await withWritingFeeds(client, planOf(folded.query, folded.languageIds));
    return { request: { ...page, ...folded }, plan };
  };
  return { label, pid, client, close, prepare, fewMatchesPage };
}

/** The backend's time on a CPU so far, ms. */
const onCpu = (pid) => Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;

async function call(b, { request, plan }) {
  const cpu = onCpu(b.pid);
  const started = performance.now();
  const ids = await b.fewMatchesPage(b.client, request, plan);
  return {
    wall: performance.now() - started,
    cpu: onCpu(b.pid) - cpu,
    answer: ids === null ? "other plans" : `${ids.length} ids`,
    ids: ids === null ? "null" : ids.join(","),
  };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const f2 = (x) => x.toFixed(2);

const builds = [
  await build("old", pathToFileURL(`${resolve(values.baseline)}/`)),
  await build("new", new URL("../packages/feed-service/dist/", import.meta.url)),
];
console.log(
  `| query (${page.sort}, offset ${page.offset}, limit ${page.limit}) | old cpu / wall | new cpu / wall | new / old cpu | old answer | new answer | same |`,
);
console.log("|---|---|---|---|---|---|---|");
const loadBefore = loadavg()[0];
try {
  for (const text of values.query ?? []) {
    const prepared = await Promise.all(builds.map((b) => b.prepare(text)));
    const { runs, same } = await inTurns(builds, prepared, call, repeats + 1);
    const cells = runs.map((rs) => {
      const rest = rs.slice(1);
      return `${f2(median(rest.map((r) => r.cpu)))} / ${f2(median(rest.map((r) => r.wall)))}`;
    });
    const ratio = median(runs[1].slice(1).map((r) => r.cpu)) / median(runs[0].slice(1).map((r) => r.cpu));
    console.log(
      `| '${text}' | ${cells.join(" | ")} | ${ratio.toFixed(2)} | ${runs[0][0].answer} | ${runs[1][0].answer} | ${same ? "yes" : "NO"} |`,
    );
  }
} finally {
  for (const b of builds) await b.close();
}
console.log(
  `load average ${loadBefore.toFixed(1)} before, ${loadavg()[0].toFixed(1)} after (2 cores, shared)`,
);
