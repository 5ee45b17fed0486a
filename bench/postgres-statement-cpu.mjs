// The backend CPU of each statement one PostgreSQL relevance search runs (word plans or operator
// plans), without EXPLAIN's instrumentation (whose clock reads per row inflate the heap side of
// a bitmap scan many times): the search runs once through a build's store code, routed as
// PostgresStore.searchPosts routes it (`lang:` clauses folded into the languages, the feed names
// for the titled pages), its statements are recorded, then each is run again --repeats times on
// the same connection and timed by the backend's /proc/<pid>/schedstat. With --split, the
// heaviest statement's lookup is also run in stages, each adding one step to the one before: GIN
// alone (EXPLAIN ANALYZE of the bitmap, its heap scan stopped at the first row, as matchesAtMost
// counts), count(*) (GIN and a visit of every matching row), sum(post_date) (the row deformed up
// to the date), against the statement whole (the rank's columns, ts_rank, the date sort, the
// ranked count, the page). --operators resolves the filters' names (`feed:`, `lang:`). Reads
// only: no migration runs. Linux; the server's /proc must be readable.
//
//   npx tsc -b && node bench/postgres-statement-cpu.mjs --url postgres://... --query 'the -new' \
//     [--operators] [--offset 0] [--limit 20] [--languages 4] [--repeats 7] [--split] [--dist <a build's dist>]
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { openExplainClient, recordingSql } from "./explain-statements.mjs";

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    query: { type: "string", multiple: true },
    operators: { type: "boolean" },
    offset: { type: "string" },
    limit: { type: "string" },
    languages: { type: "string" },
    repeats: { type: "string" },
    split: { type: "boolean" },
    dist: { type: "string" },
  },
});
const dist = values.dist
  ? pathToFileURL(`${resolve(values.dist)}/`)
  : new URL("../packages/feed-service/dist/", import.meta.url);
const { parseSearchQuery } = await import(new URL("search/parse-search-query.js", dist).href);
const { resolveSearchFilters } = await import(new URL("operations/search-filters.js", dist).href);
const { searchPosts } = await import(new URL("store/postgres/postgres-search-queries.js", dist).href);
const { searchWithOperators } = await import(
  new URL("store/postgres/postgres-search-operators.js", dist).href
);
const { foldLanguageClauses, usesOperators } = await import(new URL("search/search-query.js", dist).href);
const { FeedNames } = await import(new URL("store/postgres/postgres-feed-names.js", dist).href);
const repeats = Number(values.repeats ?? 7);

const { client, close } = await openExplainClient(dist, values.url);
const [{ pid }] = (await client.query("SELECT pg_backend_pid() AS pid")).rows;
const onCpu = () => Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const names = async () => (await client.query('SELECT id AS "feedId", name AS "feedName" FROM feeds')).rows;
const languages = async () =>
  (await client.query('SELECT id AS "languageId", code AS "languageCode" FROM languages')).rows;

const load = loadavg()[0];
for (const text of values.query ?? []) {
  const parsed = parseSearchQuery(text);
  const query = values.operators
    ? await resolveSearchFilters({ feedNames: names, languages, feeds: names }, parsed)
    : parsed;
  const page = {
    query,
    sort: "relevance",
    offset: Number(values.offset ?? 0),
    limit: Number(values.limit ?? 20),
    languageIds: values.languages ? values.languages.split(",").map(Number) : null,
  };
  // Routed as PostgresStore.searchPosts routes it: `lang:` clauses folded into the languages,
  // operator plans for what still uses operators, else the word plans with the feed names.
  Object.assign(page, foldLanguageClauses(page.query, page.languageIds));
  const feedNames = new FeedNames();
  const search = usesOperators(page.query)
    ? searchWithOperators
    : (sql, p) => searchPosts(sql, p, (s) => feedNames.current(s));
  // Once to warm, once recorded.
  await search(client, page);
  const { sql, recorded } = recordingSql(client);
  const c0 = onCpu();
  await search(sql, page);
  const whole = onCpu() - c0;
  const wholes = [];
  for (let i = 0; i < repeats; i++) {
    const c = onCpu();
    await search(client, page);
    wholes.push(onCpu() - c);
  }
  console.log(
    `\n'${text}' offset ${page.offset} limit ${page.limit} languages ${values.languages ?? "all"}: search CPU ${median(wholes).toFixed(1)} ms median of ${repeats} (recorded run ${whole.toFixed(1)})`,
  );
  let heaviest = null;
  for (const [i, { sqlText, params }] of recorded.entries()) {
    const times = [];
    for (let r = 0; r < repeats; r++) {
      const c = onCpu();
      await client.query(sqlText, params);
      times.push(onCpu() - c);
    }
    const m = median(times);
    if (heaviest === null || m > heaviest.m) heaviest = { sqlText, params, m };
    if (m >= 0.5) console.log(`  #${i} ${m.toFixed(1)} ms: ${sqlText.replace(/\s+/g, " ").slice(0, 150)}`);
  }
  if (values.split && heaviest !== null) await split(heaviest);
}

/** The heaviest statement's lookup in stages (see the header), alternating, medians. */
async function split({ sqlText, params }) {
  const expression = /operator_facets/.test(sqlText)
    ? "(p.search_vector || post_facets(p.post_date, p.language_id) || operator_facets(p.search_vector, p.feed_id))"
    : "(p.search_vector || post_facets(p.post_date, p.language_id) || p.phrase_vector)";
  // The lookup's tsquery: the parameter that names facets (` day `, ` lang `, ` ttl `, ...).
  const index = params.find((p) => typeof p === "string" && /' (day|wk|mo|yr|lang|ttl|pfx|feed) /.test(p));
  if (index === undefined) {
    console.log("  (split: the heaviest statement has no facet lookup to split)");
    return;
  }
  const where = `FROM posts p WHERE ${expression} @@ $1::tsquery`;
  const stages = [
    [
      "GIN only",
      `EXPLAIN (ANALYZE, TIMING OFF, SUMMARY OFF, COSTS OFF) WITH m AS MATERIALIZED (SELECT 1 ${where}) SELECT 1 FROM m LIMIT 1`,
      [index],
    ],
    ["+ row visits (count)", `SELECT count(*) ${where}`, [index]],
    ["+ deform to post_date", `SELECT sum(p.post_date) ${where}`, [index]],
    ["statement", sqlText, params],
  ];
  const times = stages.map(() => []);
  for (let r = 0; r < repeats; r++) {
    const order = r % 2 === 0 ? stages.keys() : [...stages.keys()].reverse();
    for (const k of order) {
      const c = onCpu();
      await client.query(stages[k][1], stages[k][2]);
      times[k].push(onCpu() - c);
    }
  }
  console.log(`  lookup ${index}`);
  console.log(
    `  split: ${stages.map(([label], k) => `${label} ${median(times[k]).toFixed(1)}`).join(", ")} ms`,
  );
}
await close();
console.log(`load average ${load.toFixed(1)} before, ${loadavg()[0].toFixed(1)} after`);
