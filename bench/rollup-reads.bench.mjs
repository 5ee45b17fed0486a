// The reads that once summed per-feed roll-ups growing with feeds × days (most prolific and
// most popular feeds over a window, a category's deep pages since a post id; on PostgreSQL also
// most popular posts, which sized its window from them, and a feed's deep pages), one build
// against another on copies of the same corpus: each call in a process of its own (its first call
// is a first call: statements unprepared, nothing of the call's own in the cache), old and new
// alternating case by case so that the machine's load weighs on both alike. Prints each build's
// first call and the median of --repeats more, the ratio of the new first call to the 50 ms target
// (spec §4), and whether both builds answered the same rows. The windows are drawn from the corpus:
// the post dates and click times at several shares of the whole (half is where summing either side
// of the window read the most), the widest daysBack; the since-post cases take the largest
// category's post ids at several shares, with offsets half way and on the last page.
//
//   npx tsc -b && node bench/rollup-reads.bench.mjs --db <schema-19 corpus> --baseline <old dist>
//     [--new-db <copy for this build>] [--repeats 5] [--rounds 1]
//   npx tsc -b && BENCH_PG_SHARED_BUFFERS_MB=512 node bench/rollup-reads.bench.mjs
//     --postgres <folder holding a corpus's data/> --copy <folder for a copy> --baseline <old dist>
//
// The corpus is read, never written: the new build opens its own copy (--new-db, made from --db
// when missing, the upgrade timed). On PostgreSQL the data folder is copied to --copy once, the
// server started there, and the new build migrates a database made from the corpus's
// (CREATE DATABASE ... TEMPLATE, the upgrade timed) while the old build reads the corpus's own;
// PostgreSQL calls run in the server, so only wall times are given. A baseline dist must sit where
// Node finds the package's dependencies (e.g. node_modules/.baseline/dist, with native/ and
// package.json beside it).
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const DAY = 86_400_000;
const TARGET_MS = 50;

if (process.argv[2] === "--one") {
  // A child: one call on one build, first then repeated.
  const [, , , dist, db, json, repeats] = process.argv;
  const { openStore } = await import(pathToFileURL(`${dist}/store/open-store.js`).href);
  const store = await openStore(db);
  const c = JSON.parse(json);
  const call = () => store[c.method](c.args);
  const times = [];
  const cpu = [];
  let rows;
  for (let i = 0; i <= Number(repeats); i++) {
    const started = performance.now();
    const cpuStarted = process.cpuUsage();
    rows = await call();
    times.push(performance.now() - started);
    const used = process.cpuUsage(cpuStarted);
    cpu.push((used.user + used.system) / 1000);
  }
  await store.close();
  const key = rows.map((r) => `${r.postId ?? r.feedId}:${r.periodPosts ?? r.periodClicks ?? ""}`).join(",");
  process.stdout.write(
    JSON.stringify({ first: times[0], rest: times.slice(1), firstCpu: cpu[0], rows: rows.length, key }),
  );
  process.exit(0);
}

const { values } = parseArgs({
  options: {
    db: { type: "string" },
    "new-db": { type: "string" },
    baseline: { type: "string" },
    repeats: { type: "string" },
    rounds: { type: "string" },
    postgres: { type: "string" },
    copy: { type: "string" },
  },
});
if (!(values.db || values.postgres) || !values.baseline) {
  throw new Error("--db (or --postgres and --copy) and --baseline are required");
}
const repeats = Number(values.repeats ?? 5);
const rounds = Number(values.rounds ?? 1);
const newDist = new URL("../packages/feed-service/dist", import.meta.url).pathname;
const oldDist = resolve(values.baseline);
const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(" ");
const requireFromService = createRequire(new URL("../packages/feed-service/package.json", import.meta.url));

/** The corpus as the old and the new build open it, and a reader of the old one for the cases. */
let oldDb;
let newDb;
let read;
let stop = async () => {};
const upgrade = (location) => {
  const started = performance.now();
  execFileSync(process.execPath, [
    "--input-type=module",
    "-e",
    `const { openStore } = await import(${JSON.stringify(pathToFileURL(`${newDist}/store/open-store.js`).href)}); await (await openStore(${JSON.stringify(location)})).close();`,
  ]);
  process.stdout.write(
    `upgrade of the copy by the new build: ${((performance.now() - started) / 1000).toFixed(1)} s (load ${load()})\n`,
  );
};
if (values.postgres) {
  if (!values.copy) throw new Error("--postgres needs --copy <folder>");
  const copy = resolve(values.copy);
  if (!existsSync(`${copy}/data`)) {
    mkdirSync(copy, { recursive: true });
    execFileSync("cp", ["-a", "--reflink=auto", `${resolve(values.postgres)}/data`, `${copy}/data`]);
  }
  const { startBenchPostgres } = await import("./feed-service-postgres-corpus.mjs");
  const server = await startBenchPostgres(copy);
  stop = server.stop;
  oldDb = server.url;
  newDb = server.url.replace(/\/postgres$/, "/rollup_new");
  const pg = requireFromService("pg");
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  const made = await admin.query("SELECT 1 FROM pg_database WHERE datname = 'rollup_new'");
  if (made.rowCount === 0) {
    await admin.query("CREATE DATABASE rollup_new TEMPLATE postgres");
    upgrade(newDb);
    // As the corpus was left after its build (and autovacuum would leave an upgraded database):
    // hint bits set, visibility map and statistics current, so first calls do not pay for them.
    const fresh = new pg.Client({ connectionString: newDb });
    await fresh.connect();
    await fresh.query("VACUUM ANALYZE");
    await fresh.end();
  }
  read = async (sql, ...args) => {
    let n = 0;
    const text = sql.replace(/\?/g, () => `$${++n}`);
    return (await admin.query({ text, values: args, rowMode: "array" })).rows.map((r) => r.map(Number));
  };
  const end = stop;
  stop = async () => {
    await admin.end();
    await end();
  };
} else {
  oldDb = resolve(values.db);
  newDb = resolve(values["new-db"] ?? `${oldDb}.new`);
  if (!existsSync(newDb)) {
    copyFileSync(oldDb, newDb);
    upgrade(newDb);
  }
  const Database = requireFromService("better-sqlite3");
  const db = new Database(oldDb, { readonly: true, fileMustExist: true });
  read = async (sql, ...args) =>
    db
      .prepare(sql)
      .raw()
      .all(...args);
  stop = async () => db.close();
}
const postgres = Boolean(values.postgres);

// The cases, from the corpus itself (one query at a time: one client).
const inTurn = async (xs, f) => {
  const out = [];
  for (const x of xs) out.push(await f(x));
  return out;
};
const one1 = async (sql, ...args) => (await read(sql, ...args))[0]?.[0];
const nth = async (sql, share, ...args) => {
  const n = await one1(`SELECT count(*) FROM (${sql}) x`, ...args);
  return one1(`${sql} LIMIT 1 OFFSET ?`, ...args, Math.min(n - 1, Math.floor(n * share)));
};
const feeds = await one1("SELECT count(*) FROM feeds");
const posts = await one1("SELECT count(*) FROM posts");
const clicks = await one1("SELECT count(*) FROM clicks");
const postDays = await one1("SELECT count(*) FROM post_days");
const [category, categoryPosts] = (
  await read(
    "SELECT category_id, count(*) FROM posts WHERE category_id IS NOT NULL GROUP BY 1 ORDER BY 2 DESC LIMIT 1",
  )
)[0];
const cases = [];
const widest = Date.now() - 36_500 * DAY;
for (const [label, since] of [
  ["widest daysBack (36500)", widest],
  ...(await inTurn([0.1, 0.5, 0.9], async (share) => [
    `since the post date ${share * 100}% of posts up`,
    await nth("SELECT post_date FROM posts ORDER BY post_date", share),
  ])),
]) {
  cases.push([`getMostProlificFeeds ${label}, limit 1000`, "mostProlificFeeds", { since, limit: 1000 }]);
}
const clickTimes = await inTurn([0.1, 0.5, 0.9], async (share) => [
  `since the click time ${share * 100}% of clicks up`,
  await nth("SELECT clicked_at FROM clicks ORDER BY clicked_at", share),
]);
for (const [label, since] of [["widest daysBack (36500)", widest], ...clickTimes]) {
  cases.push([`getMostPopularFeeds ${label}, limit 1000`, "mostPopularFeeds", { since, limit: 1000 }]);
}
if (postgres) {
  // Popular posts sized its window from the per-feed day roll-ups on PostgreSQL.
  for (const [label, since] of clickTimes) {
    cases.push([
      `getMostPopularPosts ${label}, limit 1000`,
      "mostPopularPosts",
      { since, limit: 1000, categoryId: null },
    ]);
  }
  const [feedId, feedPosts] = (
    await read("SELECT feed_id, count(*) FROM posts GROUP BY 1 ORDER BY 2 DESC LIMIT 1")
  )[0];
  for (const offset of [Math.floor(feedPosts / 2), Math.max(0, feedPosts - 20)]) {
    cases.push([
      `getPostsByFeed ${feedId} (${feedPosts} posts), offset ${offset}`,
      "postsByFeed",
      { feedId, limit: 20, offset },
    ]);
  }
}
const idsOf = "SELECT id FROM posts WHERE category_id = ? ORDER BY id";
for (const share of [0.01, 0.5, 0.999]) {
  const sincePostId = await nth(idsOf, share, category);
  const above = await one1(
    "SELECT count(*) FROM posts WHERE category_id = ? AND id > ?",
    category,
    sincePostId,
  );
  const offsets = share > 0.99 ? [0] : [Math.floor(above / 2), Math.max(0, above - 20)];
  for (const offset of offsets) {
    cases.push([
      `getPostsByCategory ${category} (${categoryPosts} posts) since id ${sincePostId} (${share * 100}% of its ids below; ${above} above), offset ${offset}`,
      "postsByCategory",
      { limit: 20, offset, categoryId: category, languageIds: null, sincePostId, sinceDate: null },
    ]);
  }
}

process.stdout.write(
  `corpus ${values.postgres ?? oldDb}: ${feeds} feeds, ${posts} posts, ${clicks} clicks, ${postDays} post_days rows; load ${load()}\n`,
);
const one = (dist, file, c) =>
  JSON.parse(
    execFileSync(
      process.execPath,
      [new URL(import.meta.url).pathname, "--one", dist, file, JSON.stringify(c), String(repeats)],
      {
        maxBuffer: 1 << 26,
      },
    ).toString(),
  );
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const f1 = (x) => x.toFixed(1);
const results = cases.map(() => ({ old: [], now: [], load: [] }));
for (let round = 0; round < rounds; round++) {
  for (const [i, [, method, args]] of cases.entries()) {
    const c = { method, args };
    results[i].old.push(one(oldDist, oldDb, c));
    results[i].now.push(one(newDist, newDb, c));
    results[i].load.push(loadavg()[0]);
  }
}
process.stdout.write(
  `${rounds} rounds, each call in a new process, old and new alternating; first = the first call's wall time (its CPU time in brackets), median of the ${rounds} rounds; warm = the median of ${repeats} more, median of the rounds\n`,
);
process.stdout.write(
  "| call | old first ms (cpu) | old warm | new first ms (cpu) | new warm | rows | new first / 50 ms | same rows | load |\n|---|---|---|---|---|---|---|---|---|\n",
);
for (const [i, [label]] of cases.entries()) {
  const { old, now, load } = results[i];
  const first = (rs) => `${f1(median(rs.map((r) => r.first)))} (${f1(median(rs.map((r) => r.firstCpu)))})`;
  const warm = (rs) => f1(median(rs.map((r) => median(r.rest))));
  const newFirst = median(now.map((r) => r.first));
  const same = old.every((r, j) => r.key === now[j].key) ? "yes" : "NO";
  process.stdout.write(
    `| ${label} | ${first(old)} | ${warm(old)} | ${first(now)} | ${warm(now)} | ${now[0].rows} | ${(newFirst / TARGET_MS).toFixed(2)}x | ${same} | ${Math.min(...load).toFixed(1)}-${Math.max(...load).toFixed(1)} |\n`,
  );
}
await stop();
