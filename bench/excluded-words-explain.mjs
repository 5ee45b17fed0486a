// The statements a plain-word search with excluded words runs (pgexcl34), timed, then each one
// that checks its candidates on search_vector (with this build: the searches it does not subtract) shown with
// EXPLAIN (ANALYZE, BUFFERS) three ways: as this build ran it, through GIN alone (no check: what
// searches did before pgflake34, not exact while GIN's pending list moves), and with the posts
// holding an excluded word subtracted (postgres-excluded-words.ts). Starts the server on FOLDER
// (it only reads; on a folder shared with other runs hold its lock for the whole run) and warms it as the store
// does (warmPostgres). Several searches: separate them with ||.
//   node bench/excluded-words-explain.mjs FOLDER 'the -new||la -the' [relevance|date|clicks]
import { pathToFileURL } from "node:url";
import { startBenchPostgres } from "./feed-service-postgres-corpus.mjs";

const [folder, termsList, sort = "relevance"] = process.argv.slice(2);
const dist = new URL("../packages/feed-service/dist/", import.meta.url);
const at = (f) => import(pathToFileURL(new URL(f, dist).pathname).href);
const { parseSearchQuery } = await at("search/parse-search-query.js");
const { searchPosts } = await at("store/postgres/postgres-search-queries.js");
const { openPostgresPool } = await at("store/postgres/postgres-connection.js");
const { warmPostgres } = await at("store/postgres/postgres-warm.js");
const { SEARCH_EXPRESSION } = await at("store/postgres/postgres-search-facets.js");
const server = await startBenchPostgres(folder);
const pool = await openPostgresPool({
  url: server.url,
  max: 2,
  createSchema: false,
  settings: { work_mem: "32MB", enable_seqscan: "off", max_parallel_workers_per_gather: 0, jit: "off" },
});
try {
  const warmStarted = performance.now();
  const warm = await warmPostgres(pool);
  console.log(
    `warmed ${(warm.bytes / 2 ** 20).toFixed(0)} MB in ${((performance.now() - warmStarted) / 1000).toFixed(1)} s`,
  );
  for (const terms of termsList.split("||")) {
    console.log(`\n===== ${terms} by ${sort}`);
    const seen = [];
    const sql = {
      query: async (config, values) => {
        const text = typeof config === "string" ? config : config.text;
        const vals = typeof config === "string" ? values : config.values;
        const started = performance.now();
        const r = await pool.query(text, vals);
        seen.push({ text, vals, ms: performance.now() - started });
        return r;
      },
    };
    const page = { offset: 0, limit: 20, languageIds: null, query: parseSearchQuery(terms), sort };
    for (const run of ["first", "second"]) {
      seen.length = 0;
      const started = performance.now();
      const got = await searchPosts(sql, page);
      console.log(`${run}: ${(performance.now() - started).toFixed(1)} ms, ${got.length} rows`);
      for (const s of seen)
        console.log(`  ${s.ms.toFixed(1)} ms  ${s.text.replace(/\s+/g, " ").slice(0, 160)}`);
    }
    // The statements that check the query on search_vector after the index: as run, without the
    // check (GIN alone, before pgflake34), and with the excluded words' posts subtracted instead.
    const check = new RegExp(
      `${SEARCH_EXPRESSION.replace(/[()|]/g, "\\$&")} @@ \\$(\\d+)::tsquery AND p\\.search_vector @@ \\$(\\d+)::tsquery`,
    );
    const explain = async (label, text, vals) => {
      console.log(`\n--- ${label}: ${text.replace(/\s+/g, " ")}\n    ${JSON.stringify(vals)}`);
      const plan = await pool.query(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, vals);
      for (const r of plan.rows) console.log(r["QUERY PLAN"]);
    };
    for (const s of seen) {
      if (s.text.startsWith("EXPLAIN")) continue;
      const m = s.text.match(check);
      if (!m) continue;
      const [, i, v] = m.map(Number);
      for (let round = 0; round < 1; round++) {
        await explain("as run", s.text, s.vals);
        await explain(
          "GIN alone",
          s.text.replace(
            check,
            () => `${SEARCH_EXPRESSION} @@ $${i}::tsquery AND $${v}::tsquery IS NOT NULL`,
          ),
          s.vals,
        );
        const subtract = s.vals[i - 1].replace(/& !/g, "& ");
        await explain(
          "subtracted",
          s.text.replace(
            check,
            () =>
              `${SEARCH_EXPRESSION} @@ $${i}::tsquery AND $${v}::tsquery IS NOT NULL AND p.id NOT IN (SELECT p.id FROM posts p WHERE ${SEARCH_EXPRESSION} @@ $${s.vals.length + 1}::tsquery)`,
          ),
          [...s.vals, subtract],
        );
      }
    }
  }
} finally {
  await pool.end();
  await server.stop();
}
