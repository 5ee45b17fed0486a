// PostgreSQL most popular posts (operation 6) from the refreshed click levels (migration 60,
// postgres-click-levels.ts), measured on a database without them: the build's tables are made
// TEMPORARY on one connection (they shadow the names its statements use), filled as of the click
// --behind from the newest by id, and the build's own mostPopularPosts, refreshClickLevels and
// rankByClickLevels run against them, beside a baseline build's mostPopularPosts on the same
// connection. Nothing of the database is written (the refresh's LOCK clicks IN SHARE MODE is
// taken and released; its writes go to the temporary tables), so it may run on a shared corpus
// at an older schema; no migration runs (the pool comes from the baseline build).
//
// Per window and category: backend CPU ms (/proc/<backend>/schedstat: root or the server's user)
// and wall ms, the first call then the median of --repeats, the order rotated each repeat, for
// the baseline, the build with the levels --behind clicks behind, and the build after a refresh
// (levels 0 behind, the refreshed rows vacuumed or not: --no-vacuum); whether all answered the
// same ids and counts in the same order. Then the refresh of --behind clicks timed, --refreshes
// times (each after the levels were filled again as of --behind).
//
//   npx tsc -b && node bench/postgres-click-levels-probe.mjs --url postgres://... \
//     --baseline <the old checkout's packages/feed-service/dist> [--dist <this build's dist>] \
//     [--days 485 --days 880 ...] [--category none --category 7] [--repeats 3] [--behind 2000] [--refreshes 2]
// (the 1M folders: flock <lock> node bench/with-bench-postgres.mjs <folder> sh -c '... --url "$PGURL" ...')
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    dist: { type: "string" },
    baseline: { type: "string" },
    days: { type: "string", multiple: true },
    category: { type: "string", multiple: true },
    repeats: { type: "string" },
    behind: { type: "string" },
    refreshes: { type: "string" },
    "no-vacuum": { type: "boolean" },
  },
});
const distUrl = (d) => pathToFileURL(`${resolve(d)}/`);
const dist = values.dist ? distUrl(values.dist) : new URL("../packages/feed-service/dist/", import.meta.url);
if (!values.baseline) throw new Error("--baseline <the old build's packages/feed-service/dist> is required");
const base = distUrl(values.baseline);
const imp = (root, p) => import(new URL(p, root).href);
const { openPostgresPool } = await imp(base, "store/postgres/postgres-connection.js");
const { mostPopularPosts: oldPopular } = await imp(base, "store/postgres/postgres-popular-posts.js");
const { mostPopularPosts: newPopular } = await imp(dist, "store/postgres/postgres-popular-posts.js");
const levels = await imp(dist, "store/postgres/postgres-click-levels.js");

const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");
const LIMIT = 1000;
const DAY = 86_400_000;
const behind = Number(values.behind ?? 2000);

// The read pool's settings (postgres-store.ts READ_SETTINGS); one connection, so the temporary
// tables are on it.
const pool = await openPostgresPool({
  url: values.url,
  max: 1,
  createSchema: false,
  settings: { work_mem: "32MB", enable_seqscan: "off", max_parallel_workers_per_gather: 0, jit: "off" },
});
const q = async (text, params) => (await pool.query(text, params)).rows;
const [{ pid }] = await q("SELECT pg_backend_pid() AS pid");
const cpuMs = () => Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
const [{ exists }] = await q("SELECT to_regclass('refreshed_click_levels') IS NOT NULL AS exists");
if (exists) throw new Error("the database has the levels already: this probe is for one without them");

await q("SET temp_buffers = '256MB'");
await q(levels.clickLevelsTables.replaceAll("CREATE TABLE IF NOT EXISTS", "CREATE TEMPORARY TABLE"));
const [{ top }] = await q("SELECT max(id) AS top FROM clicks");
const [{ from }] = await q("SELECT id AS from FROM clicks ORDER BY id DESC OFFSET $1 LIMIT 1", [behind]);

async function fillBehind() {
  await q("SET enable_seqscan = on");
  const started = performance.now();
  await levels.fillClickLevels(pool, from);
  await q("VACUUM ANALYZE refreshed_click_levels");
  await q("SET enable_seqscan = off");
  return performance.now() - started;
}
const filled = await fillBehind();
const [sizes] = await q(
  "SELECT count(*)::int AS n, count(DISTINCT post_id)::int AS posts FROM refreshed_click_levels",
);
console.log(
  `levels filled as of click id ${from} (${behind} clicks behind id ${top}) in ${(filled / 1000).toFixed(1)} s: ${sizes.n} rows of ${sizes.posts} posts; load ${load()}`,
);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const repeats = Number(values.repeats ?? 3);
const now = Date.now();
const days = (values.days ?? ["880", "485", "385", "469"]).map(Number);
const categories = (values.category ?? ["none"]).map((c) => (c === "none" ? null : Number(c)));

async function measure(label) {
  const ways = ["old", "new"];
  console.log(`\n${label}: backend CPU ms / wall ms, first call, then the median of ${repeats}`);
  console.log("| window | old | new | same rows | load |");
  console.log("|---|---|---|---|---|");
  for (const d of days) {
    for (const categoryId of categories) {
      const since = now - d * DAY;
      const times = { old: [], new: [] };
      const answers = new Set();
      let stale = false;
      for (let r = 0; r <= repeats; r++) {
        for (const way of r % 2 === 0 ? ways : [...ways].reverse()) {
          const cpu0 = cpuMs();
          const wall0 = performance.now();
          const page =
            way === "old"
              ? await oldPopular(pool, { since, limit: LIMIT, categoryId })
              : await newPopular(pool, { since, limit: LIMIT, categoryId }, undefined, () => {
                  stale = true;
                });
          times[way].push([cpuMs() - cpu0, performance.now() - wall0]);
          answers.add(page.map((p) => `${p.postId}:${p.periodClicks}`).join(","));
        }
      }
      const cell = (way) => {
        const [first, ...rest] = times[way];
        const m = (i) => median(rest.map((t) => t[i])).toFixed(1);
        return `${first[0].toFixed(1)} / ${first[1].toFixed(1)}; ${m(0)} / ${m(1)}`;
      };
      console.log(
        `| daysBack ${d}${categoryId === null ? "" : ` category ${categoryId}`} | ${cell("old")} | ${cell("new")}${stale ? " (levels unusable: fell back)" : ""} | ${answers.size === 1 ? "yes" : "NO"} | ${load()} |`,
      );
    }
  }
}

await measure(`levels ${behind} clicks behind`);

console.log(`\nrefresh of the ${behind} clicks since the levels' id, load ${load()}`);
const refreshes = Number(values.refreshes ?? 2);
for (let i = 0; i < refreshes; i++) {
  if (i > 0) await fillBehind();
  const cpu0 = cpuMs();
  const wall0 = performance.now();
  const report = await levels.refreshClickLevels(pool);
  const cpu = cpuMs() - cpu0;
  console.log(
    `  ${report.posts} posts to id ${report.throughId}: ${cpu.toFixed(1)} ms backend CPU, ${(performance.now() - wall0).toFixed(1)} ms wall, ${((cpu / behind) * 1000).toFixed(0)} µs a click (load ${load()})`,
  );
}
await measure("levels just refreshed, not vacuumed");
if (!values["no-vacuum"]) {
  await q("VACUUM refreshed_click_levels");
  await measure("levels just refreshed, vacuumed");
}
await pool.end();
