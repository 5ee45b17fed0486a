// What dropping the all-languages rows (language 0) of the counted words' click counts would cost
// their readers (postgres-counted-clicks.ts, postgres-counted-click-ranges.ts): on a corpus's
// PostgreSQL database, read only, each counted word's per-language rows copied into TEMPORARY
// tables (the same primary key), and the readers' statements for "all languages" timed in turns:
// as built (the language 0 rows) and summed over the per-language rows. Checks both answer the
// same totals and per-block sums. Writes nothing but the session's temporary tables, so it may run
// on a database at another build's schema; it opens no store.
//
//   TMPDIR=<corpus tree> BENCH_PG_SHARED_BUFFERS_MB=1024 node bench/postgres-click-languages.mjs
//     --shape long-tail --posts 1000000 [--words 6] [--repeats 7] [--after 2016-01-16]
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startBenchPostgres } from "./feed-service-postgres-corpus.mjs";

const { values } = parseArgs({
  options: {
    shape: { type: "string", default: "long-tail" },
    posts: { type: "string", default: "1000000" },
    words: { type: "string", default: "6" },
    repeats: { type: "string", default: "7" },
    after: { type: "string", default: "2016-01-16" },
  },
});
const dist = new URL("../packages/feed-service/dist/", import.meta.url);
const { default: pg } = await import(createRequire(new URL("../package.json", dist)).resolve("pg"));
const { tmpdir } = await import("node:os");
const folder = join(tmpdir(), "feed-toolkit-bench", "shapes", `${values.shape}-${values.posts}-postgres`);
const repeats = Number(values.repeats);
const PERIOD_DAYS = 28;
const low = Math.floor(Date.parse(values.after) / 86_400_000 / PERIOD_DAYS) + 1;
const load = () => loadavg()[0].toFixed(1);

const server = await startBenchPostgres(folder);
const c = new pg.Client({ connectionString: server.url });
await c.connect();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
try {
  // Temporary tables live in local buffers: room for the copies, as shared buffers hold the tables.
  await c.query("SET max_parallel_workers_per_gather = 0; SET temp_buffers = '256MB'");
  const version = (await c.query("SELECT max(version) AS v FROM schema_migrations")).rows[0].v;
  console.log(`${values.shape}-${values.posts} (PostgreSQL schema ${version}), load ${load()}`);
  // The counted words with blocks and periods, by matches: the commonest, the middle, the rarest.
  const all = (
    await c.query(`SELECT s.id, s.lexeme, (SELECT sum(unclicked + clicked) FROM counted_click_blocks b
        WHERE b.search_id = s.id AND b.language_id = 0)::float8 AS n
      FROM counted_searches s JOIN counted_click_searches k ON k.search_id = s.id
      JOIN counted_period_searches p ON p.search_id = s.id ORDER BY n DESC`)
  ).rows;
  const want = Number(values.words);
  const picked = [...new Set([0, 1, 2, Math.floor(all.length / 2), all.length - 2, all.length - 1])]
    .filter((i) => i >= 0 && i < all.length)
    .slice(0, want)
    .map((i) => all[i]);
  const ids = picked.map((w) => w.id);
  const t0 = performance.now();
  await c.query(
    `CREATE TEMPORARY TABLE lang_blocks AS SELECT * FROM counted_click_blocks
      WHERE search_id = ANY($1::int[]) AND language_id <> 0;
    ALTER TABLE lang_blocks ADD PRIMARY KEY (search_id, language_id, block);
    CREATE TEMPORARY TABLE lang_periods AS SELECT * FROM counted_click_periods
      WHERE search_id = ANY($1::int[]) AND language_id <> 0;
    ALTER TABLE lang_periods ADD PRIMARY KEY (search_id, language_id, block);
    CREATE TEMPORARY TABLE all_blocks AS SELECT * FROM counted_click_blocks
      WHERE search_id = ANY($1::int[]) AND language_id = 0;
    ALTER TABLE all_blocks ADD PRIMARY KEY (search_id, language_id, block);
    CREATE TEMPORARY TABLE all_periods AS SELECT * FROM counted_click_periods
      WHERE search_id = ANY($1::int[]) AND language_id = 0;
    ALTER TABLE all_periods ADD PRIMARY KEY (search_id, language_id, block);
    ANALYZE lang_blocks; ANALYZE lang_periods; ANALYZE all_blocks; ANALYZE all_periods;`.replaceAll(
      "$1::int[]",
      `'{${ids}}'::int[]`,
    ),
  );
  console.log(`temporary copies of ${ids.length} words' rows: ${(performance.now() - t0).toFixed(0)} ms`);
  // The readers' statements for all languages: as built (language 0) and summed over the languages.
  const statements = {
    totals: {
      old: "SELECT coalesce(sum(clicked), 0)::float8 AS clicked, coalesce(sum(unclicked), 0)::float8 AS unclicked FROM all_blocks WHERE search_id = $1 AND language_id = ANY('{0}'::int[])",
      new: "SELECT coalesce(sum(clicked), 0)::float8 AS clicked, coalesce(sum(unclicked), 0)::float8 AS unclicked FROM lang_blocks WHERE search_id = $1",
    },
    "unclicked per block": {
      old: `SELECT block, n, running FROM (SELECT block, n, sum(n) OVER (ORDER BY block DESC)::float8 AS running FROM (
          SELECT block, sum(unclicked)::float8 AS n FROM all_blocks WHERE search_id = $1 AND language_id = ANY('{0}'::int[]) AND unclicked > 0 GROUP BY block) b) s ORDER BY block DESC`,
      new: `SELECT block, n, running FROM (SELECT block, n, sum(n) OVER (ORDER BY block DESC)::float8 AS running FROM (
          SELECT block, sum(unclicked)::float8 AS n FROM lang_blocks WHERE search_id = $1 AND unclicked > 0 GROUP BY block) b) s ORDER BY block DESC`,
    },
    [`periods from ${values.after}`]: {
      old: `SELECT block, sum((SELECT coalesce(sum(x), 0) FROM unnest(unclicked[${low}:2147483647]) x))::float8 AS n
          FROM all_periods WHERE search_id = $1 AND language_id = ANY('{0}'::int[]) GROUP BY block ORDER BY block`,
      new: `SELECT block, sum((SELECT coalesce(sum(x), 0) FROM unnest(unclicked[${low}:2147483647]) x))::float8 AS n
          FROM lang_periods WHERE search_id = $1 GROUP BY block ORDER BY block`,
    },
  };
  console.log(
    "\n| word | matches | rows (all / per language) | statement | as built ms | summed ms | summed / built | same answer |\n|---|---:|---|---|---:|---:|---:|---|",
  );
  for (const w of picked) {
    const counts = (
      await c.query(
        `SELECT (SELECT count(*) FROM all_blocks WHERE search_id = $1)::int AS a, (SELECT count(*) FROM lang_blocks WHERE search_id = $1)::int AS l,
          (SELECT count(*) FROM all_periods WHERE search_id = $1)::int AS pa, (SELECT count(*) FROM lang_periods WHERE search_id = $1)::int AS pl`,
        [w.id],
      )
    ).rows[0];
    for (const [label, { old, new: summed }] of Object.entries(statements)) {
      const times = { old: [], new: [] };
      const answers = {};
      for (let r = 0; r < repeats; r++) {
        for (const which of r % 2 === 0 ? ["old", "new"] : ["new", "old"]) {
          const text = which === "old" ? old : summed;
          const t = performance.now();
          const res = await c.query(text, [w.id]);
          times[which].push(performance.now() - t);
          answers[which] = JSON.stringify(res.rows);
        }
      }
      const [o, n] = [median(times.old), median(times.new)];
      const rowsOf = label.startsWith("periods")
        ? `${counts.pa} / ${counts.pl}`
        : `${counts.a} / ${counts.l}`;
      console.log(
        `| ${w.lexeme} | ${w.n} | ${rowsOf} | ${label} | ${o.toFixed(2)} | ${n.toFixed(2)} | ${(n / o).toFixed(2)} | ${answers.old === answers.new ? "yes" : "NO"} |`,
      );
    }
  }
  console.log(`\nload at the end ${load()}`);
} finally {
  await c.end();
  await server.stop();
}
