// SQLite most popular posts (operation 6) at limit 1000, one build against another on the same
// corpus, read only: each call in a process of its own on a read-only connection after the query
// thread's own warm-up (sqlite-read-worker.ts: a cheap read, then the call on a window that ends
// now), so its first call is a first call (its statements unprepared, nothing of its own in
// SQLite's cache; the file itself in the OS cache, as after the service's warm-up). Old and new
// alternate case by case so that the machine's load weighs on both alike. Prints the CPU time
// (user + system) of each build's first call and the median of --repeats more, the median over
// --rounds, the new first call's CPU as a share of the 50 ms target (spec §4; CPU, as wall time on
// a shared machine is the load's), and whether both builds answered the same rows and counts.
// The windows come from the corpus itself: since the click time below which a share of the clicks
// lies (the newest 45,000 and 90,000 clicks, a tenth, a quarter, half, three quarters), and the
// widest daysBack; each with no category and with the category holding the most clicks.
//
//   npx tsc -b && node bench/popular-posts.bench.mjs --db <corpus.db> --baseline <old dist>
//     [--baseline-db <corpus.db at the old build's schema>] [--repeats 5] [--rounds 3]
//
// --baseline-db: the old build reads this file instead (the same corpus before a migration the new
// build needs; the windows are read from --db).
//
// A baseline dist must sit where Node finds the package's dependencies (e.g. /work/main's built
// packages/feed-service/dist, or node_modules/.baseline/dist with native/ and package.json beside it).
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const DAY = 86_400_000;
const TARGET_MS = 50;

if (process.argv[2] === "--one") {
  const [, , , dist, db, json, repeats] = process.argv;
  const imp = (p) => import(pathToFileURL(`${dist}/${p}`).href);
  const { openSqliteReader } = await imp("store/sqlite/sqlite-connection.js");
  const { SqliteStore } = await imp("store/sqlite/sqlite-store.js");
  const store = new SqliteStore(openSqliteReader(db));
  // The query thread's warm-up, as far as popular posts go.
  await store.recentPosts({ limit: 1, offset: 0, languageIds: null });
  await store.mostPopularPosts({ since: Date.now(), limit: 1000, categoryId: null });
  const args = JSON.parse(json);
  const cpu = [];
  const wall = [];
  let rows;
  for (let i = 0; i <= Number(repeats); i++) {
    const started = performance.now();
    const cpuStarted = process.cpuUsage();
    rows = await store.mostPopularPosts(args);
    const used = process.cpuUsage(cpuStarted);
    wall.push(performance.now() - started);
    cpu.push((used.user + used.system) / 1000);
  }
  await store.close();
  const key = rows.map((r) => `${r.postId}:${r.periodClicks}`).join(",");
  process.stdout.write(JSON.stringify({ cpu, wall, rows: rows.length, key }));
  process.exit(0);
}

const { values } = parseArgs({
  options: {
    db: { type: "string" },
    baseline: { type: "string" },
    "baseline-db": { type: "string" },
    repeats: { type: "string" },
    rounds: { type: "string" },
  },
});
if (!values.db || !values.baseline) throw new Error("--db and --baseline are required");
const repeats = Number(values.repeats ?? 5);
const rounds = Number(values.rounds ?? 3);
const newDist = new URL("../packages/feed-service/dist", import.meta.url).pathname;
const oldDist = resolve(values.baseline);
const file = resolve(values.db);
const oldFile = resolve(values["baseline-db"] ?? values.db);
const load = () => loadavg()[0];

const Database = createRequire(new URL("../packages/feed-service/package.json", import.meta.url))(
  "better-sqlite3",
);
const db = new Database(file, { readonly: true, fileMustExist: true });
const clicks = db.prepare("SELECT count(*) FROM clicks").pluck().get();
const posts = db.prepare("SELECT count(*) FROM posts").pluck().get();
const newest = (n) =>
  db
    .prepare("SELECT clicked_at FROM clicks ORDER BY clicked_at DESC LIMIT 1 OFFSET ?")
    .pluck()
    .get(Math.min(clicks - 1, n));
const [category, categoryClicks] = db
  .prepare(`SELECT p.category_id, count(*) FROM clicks k JOIN posts p ON p.id = k.post_id
    WHERE p.category_id IS NOT NULL GROUP BY 1 ORDER BY 2 DESC LIMIT 1`)
  .raw()
  .get();
// daysBack as a client sends it: whole days back from now, reaching the chosen click.
const daysBack = (at) => Math.max(1, Math.ceil((Date.now() - at) / DAY));
const windows = [
  ["newest 45,000 clicks", daysBack(newest(45_000))],
  ["newest 90,000 clicks", daysBack(newest(90_000))],
  ...[0.1, 0.25, 0.5, 0.75].map((share) => [
    `newest ${share * 100}% of clicks`,
    daysBack(newest(Math.floor(clicks * share))),
  ]),
  ["widest", 36_500],
];
db.close();
const cases = windows.flatMap(([label, days]) =>
  [null, category].map((categoryId) => ({
    label: `daysBack ${days} (${label})${categoryId === null ? "" : ` category ${categoryId}`}`,
    days,
    categoryId,
  })),
);

process.stdout.write(
  `corpus ${file}${oldFile === file ? "" : ` (old build: ${oldFile})`}: ${posts} posts, ${clicks} clicks (category ${category}: ${categoryClicks}); ${rounds} rounds of ${cases.length} cases, old and new alternating; load ${load().toFixed(1)}\n`,
);
const one = (dist, args) =>
  JSON.parse(
    execFileSync(
      process.execPath,
      [
        new URL(import.meta.url).pathname,
        "--one",
        dist,
        dist === oldDist ? oldFile : file,
        JSON.stringify(args),
        String(repeats),
      ],
      { maxBuffer: 1 << 26 },
    ).toString(),
  );
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const f1 = (x) => x.toFixed(1);
const results = cases.map(() => ({ old: [], now: [], load: [] }));
for (let round = 0; round < rounds; round++) {
  for (const [i, c] of cases.entries()) {
    // Which build goes first alternates too.
    const pair = round % 2 === 0 ? [oldDist, newDist] : [newDist, oldDist];
    // One `since` for both builds: a click at the window's edge would otherwise split them.
    const args = { since: Date.now() - c.days * DAY, limit: 1000, categoryId: c.categoryId };
    const [a, b] = pair.map((dist) => one(dist, args));
    const [o, n] = round % 2 === 0 ? [a, b] : [b, a];
    results[i].old.push(o);
    results[i].now.push(n);
    results[i].load.push(load());
  }
}
process.stdout.write(
  `CPU ms of store.mostPopularPosts (limit 1000): first call, and the median of ${repeats} more; medians of ${rounds} rounds; wall ms of the first call in brackets\n`,
);
process.stdout.write(
  "| window | old first cpu (wall) | old warm cpu | new first cpu (wall) | new warm cpu | new/old first | new first / 50 ms | same rows | load |\n|---|---|---|---|---|---|---|---|---|\n",
);
for (const [i, c] of cases.entries()) {
  const { old, now, load: l } = results[i];
  const first = (rs) => median(rs.map((r) => r.cpu[0]));
  const firstWall = (rs) => median(rs.map((r) => r.wall[0]));
  const warm = (rs) => median(rs.map((r) => median(r.cpu.slice(1))));
  const same = old.every((r, j) => r.key === now[j].key) ? "yes" : "NO";
  process.stdout.write(
    `| ${c.label} | ${f1(first(old))} (${f1(firstWall(old))}) | ${f1(warm(old))} | ${f1(first(now))} (${f1(firstWall(now))}) | ${f1(warm(now))} | ${(first(now) / first(old)).toFixed(2)} | ${(first(now) / TARGET_MS).toFixed(2)}x | ${same} | ${Math.min(...l).toFixed(1)}-${Math.max(...l).toFixed(1)} |\n`,
  );
}
