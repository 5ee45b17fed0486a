// Where one PostgreSQL relevance statement of the tier form spends (postgres-search-queries.ts,
// rankedPage: the matches of the newest days found in the search index, the 10,000 newest of them
// ranked): the same GIN condition run as a series of statements that each add one stage, timed by
// the backend's time on a CPU (/proc/<pid>/schedstat; the clock on a shared machine measures the
// wait for a core), alternating statement by statement, the order reversed each round. Reads only.
//
//   node bench/postgres-rank-stages.bench.mjs --url postgres://... --words "'the'" \
//     --index "('the') & (' day 20248' | ' wk 2893' | ...)" [--operators] [--table posts] [--repeats 11]
//
// --index is the tier statement's GIN query as postgres-search-explain.mjs prints its parameters
// (--operators: as postgres-operator-explain.mjs prints it, for the index of `title:` words);
// --table another table with the same columns and search index expression (a copy with the columns
// in another order, say). Stages: the GIN lookup and heap visits alone (count), then one
// column read from each matching row (id; post_date; rank_vector), the score, the sort by date,
// the rank sort, the whole statement, and the page's columns read for the 1,000 ids it returns.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    words: { type: "string" },
    index: { type: "string" },
    table: { type: "string" },
    operators: { type: "boolean" },
    repeats: { type: "string" },
  },
});
const pg = createRequire(new URL("../packages/feed-service/package.json", import.meta.url))("pg");
const table = values.table ?? "posts";
const repeats = Number(values.repeats ?? 11);
const SCORE =
  "(ts_rank('{0.25, 0.25, 0.5, 1.0}', p.rank_vector, $1::tsquery, 0)::float8 + 0.1 / (2 + ln(1 + coalesce(p.body_length, 0))))";
// The search index's expression, or with --operators the operators' index's (`title:` words).
const indexed = values.operators
  ? "((p.search_vector || post_facets(p.post_date, p.language_id)) || operator_facets(p.search_vector, p.feed_id))"
  : "((p.search_vector || post_facets(p.post_date, p.language_id)) || p.phrase_vector)";
const matches = `FROM ${table} p WHERE ${indexed} @@ $2::tsquery`;
const ranked = `SELECT id, score, count(*) OVER () AS ranked FROM (
    SELECT id, score FROM (SELECT p.id, p.post_date, ${SCORE} AS score ${matches} OFFSET 0) m
    ORDER BY post_date DESC, id DESC LIMIT 10000
  ) newest ORDER BY score DESC, id DESC LIMIT 1000`;
// $1 is referenced by every statement so that all take the same two parameters.
const stages = {
  count: `SELECT count(*), $1::tsquery IS NULL ${matches}`,
  id: `SELECT sum(p.id), $1::tsquery IS NULL ${matches}`,
  post_date: `SELECT sum(p.post_date), $1::tsquery IS NULL ${matches}`,
  rank_vector: `SELECT sum(length(p.rank_vector)), $1::tsquery IS NULL ${matches}`,
  score: `SELECT sum(${SCORE}) ${matches}`,
  date_sort: `SELECT max(score) FROM (SELECT score FROM (SELECT p.id, p.post_date, ${SCORE} AS score ${matches} OFFSET 0) m
    ORDER BY post_date DESC, id DESC LIMIT 10000) newest`,
  statement: ranked,
  page_columns: `SELECT p.id, p.title, p.link, p.excerpt, p.post_date, p.feed_id, f.name, p.category_id, c.name, p.language_id, p.clicks
    FROM (${ranked}) r JOIN ${table} p ON p.id = r.id JOIN feeds f ON f.id = p.feed_id
    LEFT JOIN categories c ON c.id = p.category_id ORDER BY r.score DESC, r.id DESC`,
};
const client = new pg.Client({ connectionString: values.url });
await client.connect();
// As the store's read connections are set (bench/explain-statements.mjs).
await client.query("SET work_mem = '32MB'; SET max_parallel_workers_per_gather = 0; SET jit = off");
const [{ pid }] = (await client.query("SELECT pg_backend_pid() AS pid")).rows;
const cpu = () => Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
const names = Object.keys(stages);
const seen = Object.fromEntries(names.map((n) => [n, { cpu: [], wall: [] }]));
for (let round = 0; round < repeats; round++) {
  for (const name of round % 2 ? [...names].reverse() : names) {
    const c0 = cpu();
    const t0 = performance.now();
    await client.query({ name, text: stages[name], values: [values.words, values.index] });
    seen[name].wall.push(performance.now() - t0);
    seen[name].cpu.push(cpu() - c0);
  }
}
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
console.log(`table ${table}, ${repeats} rounds; backend CPU ms / wall ms, median (min)`);
for (const name of names) {
  const { cpu: c, wall: w } = seen[name];
  console.log(
    `${name.padEnd(13)} ${median(c).toFixed(1).padStart(6)} (${Math.min(...c).toFixed(1)}) / ${median(w).toFixed(1)} (${Math.min(...w).toFixed(1)})`,
  );
}
console.log(
  `load ${loadavg()
    .map((x) => x.toFixed(1))
    .join(" ")}`,
);
await client.end();
