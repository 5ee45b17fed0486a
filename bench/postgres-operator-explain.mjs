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
import { explainRecorded, openExplainClient, recordingSql } from "./explain-statements.mjs";

const distArg = process.argv.indexOf("--dist");
const dist =
  distArg > 0
    ? pathToFileURL(`${resolve(process.argv[distArg + 1])}/`)
    : new URL("../packages/feed-service/dist/", import.meta.url);
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

const { client, close } = await openExplainClient(dist, values.url);
const feedNames = async () =>
  (await client.query('SELECT id AS "feedId", name AS "feedName" FROM feeds')).rows;
const languages = async () =>
  (await client.query('SELECT id AS "languageId", code AS "languageCode" FROM languages')).rows;

for (const text of values.query ?? ["feed:日 the"]) {
  const query = await resolveSearchFilters(
    { feedNames, languages, feeds: feedNames },
    parseSearchQuery(text),
  );
  const { sql: recorder, recorded } = recordingSql(client);
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
  await explainRecorded(client, recorded, values.plans);
}
await close();
