// EXPLAIN (ANALYZE, BUFFERS) of every statement one PostgreSQL search with operators runs, in the
// order it runs them: where a row of search-operators-bench.mjs spends its time. The search runs
// once through the store's own code (searchWithOperators, the read connections' settings), its
// statements are recorded, then each is explained on the same connection. Reads only: no
// migration runs (the database must be at the build's schema or one the build's reads know).
//
//   npx tsc -b && node bench/postgres-operator-explain.mjs --url postgres://... \
//     --query 'feed:日 the' [--sort relevance|date|clicks] [--offset 0] [--limit 20] [--plans]
//     [--dist <another build's packages/feed-service/dist>]
//
// --plans prints each plan in full; without it, each statement's first line, time and buffers.
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const distArg = process.argv.indexOf("--dist");
const dist =
  distArg > 0
    ? pathToFileURL(`${resolve(process.argv[distArg + 1])}/`)
    : new URL("../packages/feed-service/dist/", import.meta.url);
const { openPostgresPool } = await import(new URL("store/postgres/postgres-connection.js", dist).href);
const { parseSearchQuery } = await import(new URL("search/parse-search-query.js", dist).href);
const { resolveSearchFilters } = await import(new URL("operations/search-filters.js", dist).href);
const { searchWithOperators } = await import(
  new URL("store/postgres/postgres-search-operators.js", dist).href
);

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    query: { type: "string", multiple: true },
    sort: { type: "string" },
    offset: { type: "string" },
    limit: { type: "string" },
    plans: { type: "boolean" },
    dist: { type: "string" },
  },
});

// A connection as the store's read pool opens it (postgres-connection.ts): the build's own type
// parsers, so that 64-bit counts and sums (int8, numeric) arrive as numbers, as the plans add them
// up (as strings, `+` concatenates them and the explained run sizes its tiers on the result); the
// read connections' settings (postgres-store.ts READ_SETTINGS).
const pool = await openPostgresPool({
  url: values.url,
  max: 1,
  createSchema: false,
  settings: { work_mem: "32MB", enable_seqscan: "off", max_parallel_workers_per_gather: 0, jit: "off" },
});
const client = await pool.connect();
const feedNames = async () =>
  (await client.query('SELECT id AS "feedId", name AS "feedName" FROM feeds')).rows;
const languages = async () =>
  (await client.query('SELECT id AS "languageId", code AS "languageCode" FROM languages')).rows;

for (const text of values.query ?? ["feed:日 the"]) {
  const query = await resolveSearchFilters(
    { feedNames, languages, feeds: feedNames },
    parseSearchQuery(text),
  );
  const recorded = [];
  const recorder = {
    query: async (sqlText, params) => {
      // rows() passes a named statement ({ name, text, values }).
      const record =
        typeof sqlText === "object" ? { sqlText: sqlText.text, params: sqlText.values } : { sqlText, params };
      recorded.push(record);
      const result = await client.query(sqlText, params);
      // Columns the pg driver would hand over as strings without the store's parsers.
      record.wide = result.fields
        .filter((f) => f.dataTypeID === 20 || f.dataTypeID === 1700)
        .map((f) => f.name);
      return result;
    },
  };
  const page = {
    query,
    sort: values.sort ?? "relevance",
    offset: Number(values.offset ?? 0),
    limit: Number(values.limit ?? 20),
    languageIds: null,
  };
  const started = performance.now();
  const found = await searchWithOperators(recorder, page);
  const ms = performance.now() - started;
  console.log(
    `\n'${text}' ${page.sort} offset ${page.offset} limit ${page.limit}: ${found.length} rows, ${ms.toFixed(1)} ms, ${recorded.length} statements`,
  );
  for (const [i, { sqlText, params, wide }] of recorded.entries()) {
    if (/^\s*EXPLAIN/i.test(sqlText)) {
      console.log(`  #${i} (estimate) ${sqlText.replace(/\s+/g, " ").slice(0, 140)}`);
      continue;
    }
    const { rows } = await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT TEXT) ${sqlText}`, params);
    const lines = rows.map((r) => r["QUERY PLAN"]);
    const time = lines.find((l) => l.startsWith("Execution Time")) ?? "";
    console.log(`  #${i} ${time}: ${sqlText.replace(/\s+/g, " ").slice(0, 240)}`);
    if (wide?.length) console.log(`     int8/numeric columns, read as numbers: ${wide.join(", ")}`);
    console.log(
      `     params ${JSON.stringify(params?.map((p) => (Array.isArray(p) && p.length > 8 ? `[${p.length} values]` : p)))}`,
    );
    if (values.plans) for (const l of lines) console.log(`     ${l}`);
  }
}
client.release();
await pool.end();
