// EXPLAIN (ANALYZE, BUFFERS) of every statement one PostgreSQL word search (no operators) runs,
// in the order it runs them, as postgres-operator-explain.mjs does for searches with operators:
// where a plain-word row of the latency bench spends its time. Reads only: no migration runs.
//
//   npx tsc -b && node bench/postgres-search-explain.mjs --url postgres://... \
//     --query 'la the' [--sort relevance|date|clicks] [--offset 0] [--limit 20] [--languages 3,4]
//     [--plans] [--dist <another build's packages/feed-service/dist>]
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { explainRecorded, openExplainClient, recordingSql } from "./explain-statements.mjs";

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    query: { type: "string", multiple: true },
    sort: { type: "string" },
    offset: { type: "string" },
    limit: { type: "string" },
    languages: { type: "string" },
    plans: { type: "boolean" },
    dist: { type: "string" },
  },
});
const dist = values.dist
  ? pathToFileURL(`${resolve(values.dist)}/`)
  : new URL("../packages/feed-service/dist/", import.meta.url);
const { parseSearchQuery } = await import(new URL("search/parse-search-query.js", dist).href);
const { searchPosts } = await import(new URL("store/postgres/postgres-search-queries.js", dist).href);

const { client, close } = await openExplainClient(dist, values.url);
for (const text of values.query ?? ["la the"]) {
  const { sql: recorder, recorded } = recordingSql(client);
  const page = {
    query: parseSearchQuery(text),
    sort: values.sort ?? "relevance",
    offset: Number(values.offset ?? 0),
    limit: Number(values.limit ?? 20),
    languageIds: values.languages ? values.languages.split(",").map(Number) : null,
  };
  const started = performance.now();
  const found = await searchPosts(recorder, page);
  const ms = performance.now() - started;
  console.log(
    `\n'${text}' ${page.sort} offset ${page.offset} limit ${page.limit} languages ${values.languages ?? "all"}: ${found.length} rows, ${ms.toFixed(1)} ms, ${recorded.length} statements, ids ${found
      .slice(0, 5)
      .map((r) => `${r.postId}:${r.score?.toFixed?.(4)}`)
      .join(" ")}`,
  );
  await explainRecorded(client, recorded, values.plans);
}
await close();
