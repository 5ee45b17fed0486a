// Date pages of a counted word within `feed:` (migration 52, postgres-counted-feeds.ts) against a
// build without the feeds' counts, on a database that must not be migrated (a shared 1M folder at
// an older schema): the word's counts per feed and month are made as TEMP tables of its connection
// (they shadow the migration's tables for this connection alone and go when it ends; nothing is
// written to the database's own tables), then the baseline's and this build's searchWithOperators
// run in turns on that one connection, each offset six rounds (the order swapped each round):
// the first call, the median of the other five, the backend's CPU (/proc/<pid>/stat, 10 ms ticks),
// new/old, and whether both builds answered the same pages.
//
//   npx tsc -b && node bench/pg-folder-run.mjs <folder> sh -c 'node bench/postgres-counted-feeds.bench.mjs \
//     --url "$PG_URL" --baseline <old checkout>/packages/feed-service/dist [--word the] \
//     [--terms "feed:日 the"] [--offsets 0,15232,30445]'
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { openExplainClient } from "./explain-statements.mjs";

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    baseline: { type: "string" },
    word: { type: "string" },
    terms: { type: "string" },
    offsets: { type: "string" },
  },
});
const NEW = new URL("../packages/feed-service/dist/", import.meta.url);
const OLD = pathToFileURL(`${resolve(values.baseline)}/`);
const { client, close } = await openExplainClient(NEW, values.url);
const imp = (dist, path) => import(new URL(path, dist).href);
const { parseSearchQuery } = await imp(NEW, "search/parse-search-query.js");
const { resolveSearchFilters } = await imp(NEW, "operations/search-filters.js");
const { foldLanguageClauses } = await imp(NEW, "search/search-query.js");
const { SEARCH_EXPRESSION } = await imp(NEW, "store/postgres/postgres-search-facets.js");
const { MONTH_DAYS } = await imp(NEW, "store/postgres/postgres-scope-months.js");
const builds = {
  old: (await imp(OLD, "store/postgres/postgres-search-operators.js")).searchWithOperators,
  new: (await imp(NEW, "store/postgres/postgres-search-operators.js")).searchWithOperators,
};
const word = values.word ?? "the";
const terms = values.terms ?? `feed:日 ${word}`;
const offsets = (values.offsets ?? "0,15232,30445").split(",").map(Number);
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

const feedNames = async () =>
  (await client.query('SELECT id AS "feedId", name AS "feedName" FROM feeds')).rows;
const languages = async () =>
  (await client.query('SELECT id AS "languageId", code AS "languageCode" FROM languages')).rows;
const query = foldLanguageClauses(
  await resolveSearchFilters({ feedNames, languages, feeds: feedNames }, parseSearchQuery(terms)),
  null,
);
const pid = (await client.query("SELECT pg_backend_pid() AS p")).rows[0].p;
const cpuMs = () => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
};

// The word's counts as migration 52 keeps them, for this connection only (temp tables come first
// in the search path); temp_buffers so that they are read from memory, as shared buffers would.
await client.query("SET temp_buffers = '256MB'");
const made = performance.now();
const [search] = (await client.query("SELECT id FROM counted_searches WHERE lexeme = $1", [word])).rows;
if (!search) throw new Error(`'${word}' is not a counted word of this database`);
await client.query("CREATE TEMP TABLE counted_feed_searches (search_id integer PRIMARY KEY)");
await client.query("INSERT INTO counted_feed_searches VALUES ($1)", [search.id]);
await client.query(
  `CREATE TEMP TABLE counted_feed_months AS SELECT $1::int AS search_id, p.feed_id,
      floor(post_day(p.post_date) / ${MONTH_DAYS}.0)::int AS month, count(*)::int AS posts
    FROM posts p WHERE ${SEARCH_EXPRESSION} @@ $2::tsquery GROUP BY 2, 3`,
  [search.id, `'${word.replace(/'/g, "''")}'`],
);
await client.query("ALTER TABLE counted_feed_months ADD PRIMARY KEY (search_id, feed_id, month)");
await client.query("VACUUM ANALYZE counted_feed_months");
const feedIds = query.query.filterClauses.flat().flatMap((f) => f.feedIds ?? []);
const [size] = (
  await client.query(
    `SELECT count(*)::int AS n, count(*) FILTER (WHERE feed_id = ANY($1::int[]))::int AS mine,
      coalesce(sum(posts) FILTER (WHERE feed_id = ANY($1::int[])), 0)::int AS matches FROM counted_feed_months`,
    [feedIds],
  )
).rows;
console.log(
  `'${word}': ${size.n} (feed, month) rows, ${size.mine} of the ${feedIds.length} feeds of '${terms}' (${size.matches} matches); made in ${(performance.now() - made).toFixed(0)} ms; load ${load()}`,
);
console.log(
  "| page | old first ms | old median ms | old CPU ms | new first ms | new median ms | new CPU ms | new/old (median) | same pages | load |",
);
console.log("|---|---|---|---|---|---|---|---|---|---|");
const median = (runs, key) => {
  const v = runs
    .slice(1)
    .map((r) => r[key])
    .sort((a, b) => a - b);
  return v[Math.floor(v.length / 2)];
};
for (const offset of offsets) {
  const page = { ...query, sort: "date", offset, limit: 20 };
  const runs = { old: [], new: [] };
  const answers = new Set();
  for (let round = 0; round < 6; round++) {
    for (const name of round % 2 ? ["new", "old"] : ["old", "new"]) {
      const c0 = cpuMs();
      const w0 = performance.now();
      const found = await builds[name](client, page);
      runs[name].push({ wall: performance.now() - w0, cpu: cpuMs() - c0 });
      answers.add(found.map((r) => r.postId).join(","));
    }
  }
  const [o, n] = [runs.old, runs.new];
  console.log(
    `| date, offset ${offset} | ${o[0].wall.toFixed(1)} | ${median(o, "wall").toFixed(1)} | ${median(o, "cpu")} | ${n[0].wall.toFixed(1)} | ${median(n, "wall").toFixed(1)} | ${median(n, "cpu")} | ${(median(n, "wall") / median(o, "wall")).toFixed(2)} | ${answers.size === 1} | ${load()} |`,
  );
}
await close();
