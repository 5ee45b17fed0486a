// One GIN index of `posts` built by hand, variant by variant, in turns, on a loaded copy (a
// shape-corpus PostgreSQL folder started with pg-folder-run.mjs): where a build's time goes.
// Each build runs alone on one connection (no parallel workers unless the variant names some),
// timed by its backend's CPU (/proc/<pid>/schedstat: the server runs as this user), by the whole
// server's CPU (its workers included) and by the clock, then dropped. Prints each variant's CPU
// and wall per round, the medians, and each variant / the first.
//
//   node bench/pg-folder-run.mjs <folder> sh -c 'node bench/postgres-gin-build.bench.mjs --url "$PG_URL"
//     [--index posts_search_words] [--variants mwm=1GB,mwm=64MB,column,words,pairs] [--rounds 2] [--entries]'
//
// Variants (the first is the peer of the ratios):
//   mwm=<size>  the index's own definition, with maintenance_work_mem <size> (GIN's build
//               accumulator is written out to the index each time it fills that much)
//   mwm=<size>:w=<n>  the same with max_parallel_maintenance_workers n (PostgreSQL 18 builds GIN
//               in parallel; each process gets <size>/(n+1), and none is planned under 32 MB)
//   column      the same entries from a stored column of a scratch table (made once, not timed;
//               its storage as the vectors': EXTERNAL), at the first mwm: the expression's share
//   words       posts_search_words' entries without the phrase pairs, pairs  the pairs alone
//   order=<sql> the index built on a scratch copy of posts written in that ORDER BY (made once)
// --entries: the index expression's entries per post and distinct keys, by part.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { postmasterOf, serverCpuMs } from "./postgres-server-cpu.mjs";

const pg = createRequire(new URL("../packages/feed-service/package.json", import.meta.url))("pg");
const { values } = parseArgs({
  options: {
    url: { type: "string" },
    index: { type: "string", default: "posts_search_words" },
    variants: { type: "string", default: "mwm=1GB,mwm=256MB,mwm=64MB" },
    rounds: { type: "string", default: "2" },
    entries: { type: "boolean", default: false },
  },
});
if (!values.url) throw new Error("--url <postgres://...> is required");
const client = new pg.Client({ connectionString: values.url });
await client.connect();
const [{ pid }] = (await client.query("SELECT pg_backend_pid() AS pid")).rows;
const cpuSeconds = () => Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]) / 1e9;
const postmaster = postmasterOf(pid);
const serverSeconds = () => serverCpuMs(postmaster) / 1000;
const one = async (text, params) => (await client.query(text, params)).rows[0];

const { def } = await one("SELECT pg_get_indexdef($1::regclass) AS def", [values.index]);
const using = / USING gin \((.*)\)$/.exec(def);
if (!using) throw new Error(`${values.index} is not a GIN index of one key: ${def}`);
// The key as written in the definition: one expression in parentheses, or a column.
const key = using[1];
const trial = (table, expression) => `CREATE INDEX gin_build_trial ON ${table} USING gin (${expression})`;
const variants = values.variants.split(",").map((v) => v.trim());
const firstMwm =
  variants
    .find((v) => v.startsWith("mwm="))
    ?.slice(4)
    .split(":w=")[0] ?? "1GB";

/** The statement each variant times, and what it sets up once (untimed). */
async function prepare(variant) {
  if (variant.startsWith("mwm=")) {
    const [mwm, workers] = variant.slice(4).split(":w=");
    return { mwm, workers: Number(workers ?? 0), statement: trial("posts", key) };
  }
  if (variant === "column") {
    await client.query("DROP TABLE IF EXISTS gin_build_column");
    await client.query(
      "CREATE UNLOGGED TABLE gin_build_column (id integer, k tsvector); ALTER TABLE gin_build_column ALTER k SET STORAGE EXTERNAL",
    );
    await client.query(`INSERT INTO gin_build_column SELECT id, ${key} FROM posts ORDER BY ctid`);
    await client.query("VACUUM gin_build_column");
    return { mwm: firstMwm, statement: trial("gin_build_column", "k") };
  }
  if (variant === "words") {
    return {
      mwm: firstMwm,
      statement: trial("posts", "(search_vector || post_facets(post_date, language_id))"),
    };
  }
  if (variant === "pairs") return { mwm: firstMwm, statement: trial("posts", "phrase_vector") };
  if (variant.startsWith("order=")) {
    const table = `gin_build_order_${variants.indexOf(variant)}`;
    await client.query(`DROP TABLE IF EXISTS ${table}`);
    await client.query(`CREATE UNLOGGED TABLE ${table} (LIKE posts INCLUDING STORAGE)`);
    await client.query(`INSERT INTO ${table} SELECT * FROM posts ORDER BY ${variant.slice(6)}`);
    await client.query(`VACUUM ${table}`);
    return { mwm: firstMwm, statement: trial(table, key) };
  }
  throw new Error(`unknown variant ${variant}`);
}

if (values.entries) {
  const parts = {
    words: "search_vector",
    facets: "post_facets(post_date, language_id)",
    pairs: "phrase_vector",
    whole: key,
  };
  for (const [name, expression] of Object.entries(parts)) {
    const started = performance.now();
    const row = await one(
      `SELECT count(*)::float8 AS posts, sum(length(${expression}))::float8 AS entries FROM posts`,
    );
    const keys = await one(
      `SELECT count(DISTINCT w)::float8 AS n FROM posts, unnest(tsvector_to_array(${expression})) w`,
    );
    const once = await one(
      `SELECT count(*)::float8 AS n FROM (SELECT w FROM posts, unnest(tsvector_to_array(${expression})) w GROUP BY w HAVING count(*) = 1) s`,
    );
    console.log(
      `entries ${name}: ${(row.entries / row.posts).toFixed(1)} a post, ${row.entries} in all, ${keys.n} distinct keys (${once.n} in one post only) [${((performance.now() - started) / 1000).toFixed(1)} s]`,
    );
  }
}

await client.query("SET max_parallel_maintenance_workers = 0");
const { version } = await one("SELECT current_setting('server_version') AS version");
console.log(`PostgreSQL ${version}, ${values.index}: ${def}`);
const prepared = [];
for (const variant of variants) prepared.push({ variant, ...(await prepare(variant)) });
const rounds = Number(values.rounds);
const results = new Map(variants.map((v) => [v, { cpu: [], server: [], wall: [] }]));
for (let round = 1; round <= rounds; round++) {
  for (const { variant, mwm, workers = 0, statement } of prepared) {
    await client.query(`SET maintenance_work_mem = '${mwm}'`);
    await client.query(`SET max_parallel_maintenance_workers = ${workers}`);
    await client.query("DROP INDEX IF EXISTS gin_build_trial");
    const load = loadavg()[0];
    const cpu = cpuSeconds();
    const server = serverSeconds();
    const started = performance.now();
    await client.query(statement);
    const wall = (performance.now() - started) / 1000;
    const used = cpuSeconds() - cpu;
    const serverUsed = serverSeconds() - server;
    const { size } = await one("SELECT pg_relation_size('gin_build_trial')::float8 AS size");
    await client.query("DROP INDEX gin_build_trial");
    results.get(variant).cpu.push(used);
    results.get(variant).server.push(serverUsed);
    results.get(variant).wall.push(wall);
    console.log(
      `round ${round} ${variant} (maintenance_work_mem ${mwm}, workers ${workers}): CPU ${used.toFixed(2)} s (server ${serverUsed.toFixed(2)} s), wall ${wall.toFixed(2)} s, ${(size / 2 ** 20).toFixed(1)} MB, load ${load.toFixed(1)}-${loadavg()[0].toFixed(1)}`,
    );
  }
}
for (const table of ["gin_build_column", ...variants.map((_, i) => `gin_build_order_${i}`)]) {
  await client.query(`DROP TABLE IF EXISTS ${table}`);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const peer = results.get(variants[0]);
for (const [variant, { cpu, server, wall }] of results) {
  console.log(
    `${variant}: CPU median ${median(cpu).toFixed(2)} s (${cpu.map((c) => c.toFixed(1)).join(", ")}), server CPU median ${median(server).toFixed(2)} s, wall median ${median(wall).toFixed(2)} s; CPU / ${variants[0]} ${(median(cpu) / median(peer.cpu)).toFixed(3)}, server CPU / ${variants[0]} ${(median(server) / median(peer.server)).toFixed(3)}, wall / ${variants[0]} ${(median(wall) / median(peer.wall)).toFixed(3)}`,
  );
}
await client.end();
