// Where a click's server time goes on PostgreSQL, a post's first click apart from a click on a
// post already clicked (spec §4: GET /click runs `record_click`, postgres-click-schema.ts): on the
// shaped corpus's database opened by this build's store (migrated, its common words counted),
// `record_click` is called serially from one connection on --clicks posts drawn at random among
// the unclicked ("first") and among the clicked ("later"), each call from a new client hash (so
// each is counted), with the click upkeep of each --upkeep in turns (its SQL run before its calls;
// the order reversed every other round), --rounds times. Per click: the backend's CPU (/proc
// schedstat) and wall, the row updates of the tables a click writes, and each statement's time by
// pg_stat_statements (track all: the triggers' statements under their own text, nested in their
// callers'), the top --top by time. It writes clicks and migrates the database: run it on a COPY
// of the corpus tree.
//
//   TMPDIR=<corpus tree> BENCH_PG_SHARED_BUFFERS_MB=1024 node bench/postgres-click-profile.mjs
//     --shape long-tail --posts 200000 [--clicks 2000] [--rounds 2] [--upkeep migration64,current] [--top 12]
//
// --upkeep: `migration50` is migration 50's counted clicks' SQL run again (its first-click trigger
// and function as built then), `migration54` schema 54's (postgres-click-upkeeps.mjs: migration
// 51's period trigger, the all-languages block rows), `migration59` migration 59's (the periods by
// the clicked_posts row's words, the blocks per language only, each in a trigger of its own),
// `migration63` migration 63's (both in one trigger; the clicked_posts row's words matched by each
// counted query's text, cast), `migration64` 64's (by each counted search's stored tsquery),
// `migration66` 66's (the blocks in the period rows, a first click's rows in one UPDATE), and
// `migration67` 67's (66's, and each clicked post's lexemes in a GIN of their own: a first click
// writes them), `current` this build's.
// Before 66's, the blocks are put back in a table of their own; each switch is followed by a
// VACUUM ANALYZE of the tables it rewrote.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startBenchPostgres } from "./feed-service-postgres-corpus.mjs";
import { clickUpkeeps, settleClickCounts } from "./postgres-click-upkeeps.mjs";
import { backendUsage } from "./postgres-server-cpu.mjs";
import { openShapePostgres, shapesFolder } from "./shape-corpus.mjs";

const { values } = parseArgs({
  options: {
    shape: { type: "string", default: "long-tail" },
    posts: { type: "string", default: "200000" },
    clicks: { type: "string", default: "2000" },
    rounds: { type: "string", default: "2" },
    upkeep: { type: "string", default: "migration64,current" },
    top: { type: "string", default: "12" },
  },
});
const dist = new URL("../packages/feed-service/dist/", import.meta.url);
const { default: pg } = await import(createRequire(new URL("../package.json", dist)).resolve("pg"));
const { openStore } = await import(new URL("store/open-store.js", dist).href);
const counted = await import(new URL("store/postgres/postgres-counted-clicks.js", dist).href);
const clicks = Number(values.clicks);
const top = Number(values.top);

const { migration54, migration59, migration63, migration64, migration66, migration67, current } =
  await clickUpkeeps(dist);
/** Each upkeep's SQL, run on the copy before its calls. */
const upkeeps = {
  migration50: `${migration54} DROP TRIGGER IF EXISTS posts_track_clicked_blocks ON posts; ${counted.countedClicksSchema}`,
  migration54,
  migration59,
  migration63,
  migration64,
  migration66,
  migration67,
  current,
};
const chosen = values.upkeep.split(",");
for (const u of chosen) if (!(u in upkeeps)) throw new Error(`--upkeep: no '${u}' (${Object.keys(upkeeps)})`);

// The corpus built (and stopped) first unless its PostgreSQL copy is there (no SQLite file is read),
// then its server started again with the statistics on.
const folder = join(shapesFolder, `${values.shape}-${values.posts}-postgres`);
if (!existsSync(join(folder, "READY")))
  await (await openShapePostgres(values.shape, Number(values.posts))).stop();
const server = await startBenchPostgres(folder, {
  settings: [
    "shared_preload_libraries=pg_stat_statements",
    "pg_stat_statements.track=all",
    "pg_stat_statements.max=10000",
  ],
});
const admin = new pg.Client({ connectionString: server.url });
await admin.connect();
const load = () => loadavg()[0].toFixed(1);
try {
  const url = server.url;
  const store = await openStore(url);
  await store.recountCommonWords?.();
  await store.close();
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
  await c.query("VACUUM ANALYZE clicked_posts");
  const words = (await c.query("SELECT count(*)::int AS n FROM counted_click_searches")).rows[0].n;
  const [{ pid }] = (await c.query("SELECT pg_backend_pid() AS pid")).rows;
  console.log(
    `\nrecord_click serially, ${clicks} clicks a run, ${values.shape}-${values.posts} (PostgreSQL, a copy), ${words} counted words with blocks`,
  );
  let n = 0;
  /** Row updates so far of the tables a click writes, and how many were heap-only. */
  async function updates() {
    // The statistics a backend sends when idle (at most a second late).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await c.query("SELECT pg_stat_clear_snapshot()");
    const { rows } = await c.query(
      `SELECT relname AS t, n_tup_upd::int AS upd, n_tup_hot_upd::int AS hot FROM pg_stat_user_tables
        WHERE relname IN ('posts', 'clicked_posts', 'counted_click_blocks', 'counted_click_periods', 'scope_days') ORDER BY 1`,
    );
    return Object.fromEntries(rows.map((r) => [r.t, r]));
  }
  /** `count` clicks on posts drawn from `where`; CPU and wall per click, and the statements' times. */
  async function run(where) {
    const { rows: ids } = await c.query(`SELECT id FROM posts WHERE ${where} ORDER BY random() LIMIT $1`, [
      clicks,
    ]);
    await c.query("SELECT pg_stat_statements_reset()");
    const hot0 = await updates();
    const u0 = backendUsage(pid);
    const t0 = performance.now();
    for (const { id } of ids) {
      const at = Date.now();
      await c.query("SELECT record_click($1, $2, $3, $4)", [
        id,
        `profile-${process.pid}-${n++}`,
        at,
        at - 600_000,
      ]);
    }
    const ms = performance.now() - t0;
    const u1 = backendUsage(pid);
    const hot1 = await updates();
    const hot = Object.keys(hot1).map(
      (t) => `${t} ${hot1[t].upd - (hot0[t]?.upd ?? 0)} (${hot1[t].hot - (hot0[t]?.hot ?? 0)} heap-only)`,
    );
    const { rows: statements } = await c.query(
      `SELECT calls::int, total_exec_time::float8 AS ms, left(regexp_replace(query, '\\s+', ' ', 'g'), 110) AS q
        FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND query NOT LIKE '%pg_stat_statements%'
        ORDER BY total_exec_time DESC LIMIT $1`,
      [top],
    );
    return {
      n: ids.length,
      hot,
      cpu: (u1.onCpu - u0.onCpu) / 1e3 / ids.length,
      wall: (ms * 1e3) / ids.length,
      statements,
    };
  }
  for (let round = 1; round <= Number(values.rounds); round++) {
    // The upkeeps in turns, the order reversed every other round (a run warms the next one's pages).
    for (const upkeep of round % 2 === 1 ? chosen : [...chosen].reverse()) {
      await c.query(upkeeps[upkeep]);
      await settleClickCounts(c);
      for (const [label, where] of [
        ["first", "clicks = 0"],
        ["later", "clicks > 0"],
      ]) {
        const before = load();
        const r = await run(where);
        console.log(
          `\n${upkeep}, round ${round}, ${label} clicks (${r.n}): backend CPU ${r.cpu.toFixed(0)} µs a click, wall ${r.wall.toFixed(0)} µs, load ${before}-${load()}`,
        );
        console.log(`row updates: ${r.hot.join(", ")}`);
        console.log("| statement | calls | µs a click |\n|---|---:|---:|");
        for (const s of r.statements)
          console.log(`| ${s.q.replaceAll("|", "\\|")} | ${s.calls} | ${((s.ms * 1e3) / r.n).toFixed(1)} |`);
      }
    }
  }
  await c.query(upkeeps.current);
  await c.end();
} finally {
  await admin.end();
  await server.stop();
}
