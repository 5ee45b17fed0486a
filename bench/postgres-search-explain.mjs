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
const { default: pg } = await import("pg");
const { parseSearchQuery } = await import(new URL("search/parse-search-query.js", dist).href);
const { searchPosts } = await import(new URL("store/postgres/postgres-search-queries.js", dist).href);

const client = new pg.Client({
  connectionString: values.url,
  // As the store's pool reads them (postgres-connection.ts): counts and sums as numbers, else the
  // plans' arithmetic on them (sums of posts per day) would concatenate strings.
  types: {
    getTypeParser: (oid, format) =>
      oid === 20 || oid === 1700 ? (v) => Number(v) : pg.types.getTypeParser(oid, format),
  },
  // The read connections' settings (postgres-store.ts READ_SETTINGS).
  options: "-c work_mem=32MB -c enable_seqscan=off -c max_parallel_workers_per_gather=0 -c jit=off",
});
await client.connect();
for (const text of values.query ?? ["la the"]) {
  const recorded = [];
  const recorder = {
    query: async (sqlText, params) => {
      if (typeof sqlText === "object") recorded.push({ sqlText: sqlText.text, params: sqlText.values });
      else recorded.push({ sqlText, params });
      return client.query(sqlText, params);
    },
  };
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
  for (const [i, { sqlText, params }] of recorded.entries()) {
    if (/^\s*EXPLAIN/i.test(sqlText)) {
      console.log(`  #${i} (estimate) ${sqlText.replace(/\s+/g, " ").slice(0, 140)}`);
      continue;
    }
    const { rows } = await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT TEXT) ${sqlText}`, params);
    const lines = rows.map((r) => r["QUERY PLAN"]);
    const time = lines.find((l) => l.startsWith("Execution Time")) ?? "";
    console.log(`  #${i} ${time}: ${sqlText.replace(/\s+/g, " ").slice(0, 240)}`);
    console.log(
      `     params ${JSON.stringify(params?.map((p) => (Array.isArray(p) && p.length > 8 ? `[${p.length} values]` : p)))}`,
    );
    if (values.plans) for (const l of lines) console.log(`     ${l}`);
  }
}
await client.end();
