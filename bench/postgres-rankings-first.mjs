// PostgreSQL feed rankings (getMostProlificFeeds, getMostPopularFeeds) and popular posts: what
// the start warm-up left in shared buffers for the relations they read, and each call's first
// execution on a fresh read connection (warmed as the store warms its read connections) against
// the same call after. The start warm-up is the build's own (postgres-warm.ts, with the store's
// per-connection warm-up and prime); then pg_buffercache (contrib) tells, per relation, how many of
// its blocks are in shared buffers. Each call is run first with every statement under EXPLAIN
// (ANALYZE, BUFFERS): shared hit / read of each, and the backend's CPU and minor faults
// (/proc/<pid>, Linux), then plainly --repeats times (median).
//
//   npx tsc -b && node bench/with-bench-postgres.mjs <folder> sh -c \
//     'node bench/postgres-rankings-first.mjs --url "$PGURL" [--dist <build's dist>] [--repeats 5] [--plans]'
import { execFileSync } from "node:child_process";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { readPoolOpener, withFreshConnection } from "./postgres-read-pool.mjs";
import { timedOnBackend } from "./postgres-server-cpu.mjs";

const DAY = 86_400_000;
const { values } = parseArgs({
  options: {
    url: { type: "string" },
    dist: { type: "string" },
    repeats: { type: "string" },
    plans: { type: "boolean" },
    // Loads the system catalogs into shared buffers before the build's warm-up (for a build whose
    // warm-up does not): what planning a first statement reads.
    catalogs: { type: "boolean" },
    // After the warm-up, reads the relations it only prefetched into shared buffers (as searches
    // that read the search index and the posts' vectors do before a ranking's first call).
    churn: { type: "boolean" },
    // With --churn: also drops the watched relations' files (this server's own) from the OS page
    // cache (posix_fadvise DONTNEED), for a first call that reads them from disk.
    "drop-os-cache": { type: "boolean" },
  },
});
const repeats = Number(values.repeats ?? 5);
const dist = pathToFileURL(`${resolve(values.dist ?? "packages/feed-service/dist")}/`);
const imp = (p) => import(new URL(p, dist).href);
const { openPostgresPool } = await imp("store/postgres/postgres-connection.js");
const { ConnectionWarmUp } = await imp("store/postgres/postgres-connection-warm.js");
const { warmPostgres } = await imp("store/postgres/postgres-warm.js");
const { mostPopularPosts, warmPopularPosts } = await imp("store/postgres/postgres-popular-posts.js");
const { mostProlificFeeds, mostPopularFeeds } = await imp("store/postgres/postgres-feed-rankings.js");
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");

const connections = new ConnectionWarmUp((client) => warmPopularPosts(client));
const open = readPoolOpener(openPostgresPool, values.url);
const admin = await open();
const started = performance.now();
if (values.catalogs) {
  await admin.query(
    "SELECT count(pg_prewarm(c.oid, 'buffer')) FROM pg_class c WHERE c.relnamespace IN ('pg_catalog'::regnamespace, 'pg_toast'::regnamespace) AND c.relkind IN ('r', 'i', 't') AND (c.relnamespace = 'pg_catalog'::regnamespace OR c.oid IN (SELECT reltoastrelid FROM pg_class WHERE relnamespace = 'pg_catalog'::regnamespace) OR c.oid IN (SELECT i.indexrelid FROM pg_index i JOIN pg_class t ON t.reltoastrelid = i.indrelid WHERE t.relnamespace = 'pg_catalog'::regnamespace))",
  );
}
const report = await warmPostgres(admin, undefined, undefined, connections);
console.log(
  `start warm-up ${((performance.now() - started) / 1000).toFixed(1)} s, ${Math.round(report.bytes / 2 ** 20)} MB in shared buffers${report.skipped ? ` (${report.skipped})` : ""} (load ${load()})`,
);

// With --churn, the explained calls run on a connection warmed before the churn, as the service's
// read connections are warmed once at start (a fresh one would read the loaded tables again).
const early = values.churn ? await open(connections.onConnect) : undefined;
const earlyClient = early ? await early.connect() : undefined;
// What the warm-up left in shared buffers, for the relations the rankings and popular posts read.
const watched = [
  "feed_post_sums",
  "feed_post_days",
  "feed_post_days_pkey",
  "feed_click_sums",
  "feed_click_days",
  "feed_click_days_pkey",
  "feeds",
  "posts",
  "posts_by_date",
  "posts_pkey",
  "clicks",
  "clicks_by_time",
  "clicks_by_post_time",
  "clicked_posts",
  "clicked_posts_by_clicks",
  "clicked_posts_by_clicks_then_id",
];
/** The watched relations' files (main fork, every 1 GB segment) out of the OS page cache. */
async function dropOsCache(sql) {
  const [{ dir }] = (await sql.query("SELECT current_setting('data_directory') AS dir")).rows;
  const { rows: files } = await sql.query(
    "SELECT pg_relation_filepath(c.oid) AS path FROM pg_class c WHERE c.relname = ANY($1) AND c.relnamespace = current_schema()::regnamespace AND c.relname <> 'posts' UNION SELECT pg_relation_filepath(i.indexrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid WHERE c.relname = ANY($1) AND c.relnamespace = current_schema()::regnamespace AND c.relname <> 'posts'",
    [watched],
  );
  const paths = files.map((f) => `${dir}/${f.path}`);
  execFileSync("python3", ["-c", DONTNEED, ...paths]);
}
const DONTNEED =
  "import os,sys,glob\nfor p in sys.argv[1:]:\n  for f in [p]+glob.glob(p+'.[0-9]*'):\n    fd=os.open(f,os.O_RDONLY); os.posix_fadvise(fd,0,0,os.POSIX_FADV_DONTNEED); os.close(fd)";

/** Reads the relations the warm-up only prefetched through shared buffers (what searches do). */
async function churn(sql) {
  const t = performance.now();
  const { rows: big } = await sql.query(
    `SELECT c.oid::regclass::text AS name FROM pg_class c
     WHERE c.oid IN ('posts'::regclass, (SELECT reltoastrelid FROM pg_class WHERE oid = 'posts'::regclass))
        OR (c.relnamespace = current_schema()::regnamespace AND c.relkind = 'i' AND c.relam = (SELECT oid FROM pg_am WHERE amname = 'gin'))`,
  );
  for (const { name } of big) await sql.query("SELECT pg_prewarm($1::regclass, 'buffer')", [name]);
  if (values["drop-os-cache"]) await dropOsCache(sql);
  return `read ${big.map((b) => b.name).join(", ")} into shared buffers in ${((performance.now() - t) / 1000).toFixed(1)} s`;
}
if (values.churn) console.log(`churn: ${await churn(admin)}`);
await admin.query("CREATE EXTENSION IF NOT EXISTS pg_buffercache");
const cached = await admin.query(
  `SELECT c.relname, pg_relation_size(c.oid) / 8192 AS blocks,
     (SELECT count(*) FROM pg_buffercache b WHERE b.relfilenode = pg_relation_filenode(c.oid)
        AND b.reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database())) AS cached,
     coalesce(pg_relation_size(c.reltoastrelid) / 8192, 0) AS toast_blocks,
     (SELECT count(*) FROM pg_buffercache b WHERE c.reltoastrelid <> 0 AND b.relfilenode = pg_relation_filenode(c.reltoastrelid)
        AND b.reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database())) AS toast_cached
   FROM pg_class c WHERE c.relname = ANY($1) AND c.relnamespace = current_schema()::regnamespace ORDER BY 2`,
  [watched],
);
console.log("\nrelation: blocks in shared buffers / blocks (its TOAST)");
for (const r of cached.rows) {
  console.log(
    `  ${r.relname.padEnd(34)} ${String(r.cached).padStart(7)} / ${String(r.blocks).padEnd(7)}${Number(r.toast_blocks) > 0 ? ` toast ${r.toast_cached} / ${r.toast_blocks}` : ""}`,
  );
}
// The system catalogs (what planning reads: pg_statistic, pg_class, pg_proc...) in shared buffers.
const catalogs = await admin.query(
  `SELECT c.relname, pg_relation_size(c.oid) / 8192 AS blocks,
     (SELECT count(*) FROM pg_buffercache b WHERE b.relfilenode = pg_relation_filenode(c.oid)
        AND b.reldatabase IN (0, (SELECT oid FROM pg_database WHERE datname = current_database()))) AS cached
   FROM pg_class c WHERE c.relnamespace = 'pg_catalog'::regnamespace AND c.relkind = 'r' ORDER BY 2 DESC LIMIT 6`,
);
const [{ version }] = (await admin.query("SELECT current_setting('server_version') AS version")).rows;
console.log(
  `\nPostgreSQL ${version}; the largest system catalogs: ${catalogs.rows.map((r) => `${r.relname} ${r.cached} / ${r.blocks}`).join(", ")}`,
);
const [{ first_click: firstClick }] = (
  await admin.query("SELECT min(clicked_at)::float8 AS first_click FROM clicks")
).rows;
const [{ at: newest90k }] = (
  await admin.query(
    "SELECT clicked_at::float8 AS at FROM clicks ORDER BY clicked_at DESC OFFSET 89999 LIMIT 1",
  )
).rows;
// The share of all clicks that the newest 90,000 are on the 1M corpora (about 500,000 clicks).
const [{ at: newestFifth }] = (
  await admin.query(
    "SELECT clicked_at::float8 AS at FROM clicks ORDER BY clicked_at DESC OFFSET (SELECT count(*) * 18 / 100 FROM clicks) LIMIT 1",
  )
).rows;
const [{ at: middlePost }] = (
  await admin.query(
    "SELECT post_date::float8 AS at FROM posts ORDER BY post_date OFFSET (SELECT count(*) / 2 FROM posts) LIMIT 1",
  )
).rows;

const now = Date.now();
const days = (n) => now - n * DAY;
const cases = [
  [
    "getMostProlificFeeds daysBack 36500",
    (sql) => mostProlificFeeds(sql, { since: days(36_500), limit: 1000 }),
  ],
  ["getMostProlificFeeds daysBack 365", (sql) => mostProlificFeeds(sql, { since: days(365), limit: 1000 })],
  [
    "getMostProlificFeeds half the posts",
    (sql) => mostProlificFeeds(sql, { since: days(Math.ceil((now - middlePost) / DAY)), limit: 1000 }),
  ],
  [
    "getMostPopularFeeds daysBack 36500",
    (sql) => mostPopularFeeds(sql, { since: days(36_500), limit: 1000 }),
  ],
  [
    "getMostPopularPosts since the first click",
    (sql) => mostPopularPosts(sql, { since: firstClick, limit: 1000, categoryId: null }),
  ],
  [
    "getMostPopularPosts newest 90,000 clicks",
    (sql) => mostPopularPosts(sql, { since: newest90k, limit: 1000, categoryId: null }),
  ],
  [
    "getMostPopularPosts newest 18% of the clicks",
    (sql) => mostPopularPosts(sql, { since: newestFifth, limit: 1000, categoryId: null }),
  ],
];

/** Runs each statement under EXPLAIN (ANALYZE, BUFFERS) first, then for its rows. */
function explaining(client, plans) {
  return {
    async query(config, params) {
      const text = typeof config === "string" ? config : config.text;
      const args = typeof config === "string" ? params : config.values;
      const explained = await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`, args);
      const plan = explained.rows[0]["QUERY PLAN"][0];
      plans.push({
        text: text.replace(/\s+/g, " ").slice(0, 70),
        planning: plan["Planning Time"],
        execution: plan["Execution Time"],
        hit: plan.Plan["Shared Hit Blocks"],
        read: plan.Plan["Shared Read Blocks"],
        planHit: plan.Planning?.["Shared Hit Blocks"] ?? 0,
        planRead: plan.Planning?.["Shared Read Blocks"] ?? 0,
        rows: plan.Plan["Actual Rows"],
        tree: plan,
      });
      return client.query(config, params);
    },
  };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** A fresh read connection, warmed as the store warms its read connections; its backend's pid. */
const fresh = (use) => withFreshConnection(open, connections.onConnect, use);
const timed = timedOnBackend;

console.log(
  `\ncall: the first after the warm-up, every statement explained (server CPU ms, faults; each statement's shared hit / read), then on another fresh connection the first plain call (wall, CPU, faults) and the median of ${repeats} more (wall, CPU)`,
);
for (const [label, run] of cases) {
  const plans = [];
  // Each case's first call after the relations it reads were pushed out again (the plain calls'
  // fresh connections of the case before read the loaded tables back).
  if (earlyClient && cases[0][0] !== label) await churn(admin);
  const explained = earlyClient
    ? await (async () => {
        const [{ pid }] = (await earlyClient.query("SELECT pg_backend_pid() AS pid")).rows;
        return timed(pid, () => run(explaining(earlyClient, plans)));
      })()
    : await fresh((client, pid) => timed(pid, () => run(explaining(client, plans))));
  const plain = await fresh(async (client, pid) => {
    const first = await timed(pid, () => run(client));
    const more = [];
    for (let i = 0; i < repeats; i++) more.push(await timed(pid, () => run(client)));
    return { first, more };
  });
  const { first, more } = plain;
  console.log(
    `${label} (${first.answer.length} rows): explained ${explained.cpu.toFixed(1)} CPU, ${explained.faults} faults | first ${first.ms.toFixed(1)} wall, ${first.cpu.toFixed(1)} CPU, ${first.faults} faults | median ${median(more.map((m) => m.ms)).toFixed(1)} wall, ${median(more.map((m) => m.cpu)).toFixed(1)} CPU (load ${load()})`,
  );
  for (const p of plans) {
    console.log(
      `    ${p.execution.toFixed(1)} ms exec, ${p.planning.toFixed(1)} plan (hit ${p.planHit} read ${p.planRead}), hit ${p.hit} read ${p.read}, ${p.rows} rows: ${p.text}`,
    );
    if (values.plans) console.log(JSON.stringify(p.tree.Plan, null, 1));
  }
}
earlyClient?.release();
await admin.end();
await early?.end();
