// What the SQLite store's write path costs, one build against another (the roll-ups' triggers are
// the difference when only they changed): each build in a process of its own writes the same
// posts and clicks through the store into a new database, old and new alternating round by round,
// and the table gives the CPU time per post or click of each kind of write (the process's CPU
// time, which the machine's load inflates less than wall time does), median of the rounds:
//  - first fetch: 1,000 feeds × 50 entries, newest first as feed documents list them (each entry
//    older than the one stored before it in its feed);
//  - refresh: the same feeds × 20 newer entries;
//  - archive: one feed's archive of 5,000 entries over 10 years, newest first, in pages of 1,000;
//  - clicks: 20,000 clicks in time order (as /click stamps them);
//  - re-dated: 2,000 posts whose feed moved their dates.
//
//   npx tsc -b && node bench/rollup-upkeep.bench.mjs --baseline <old dist> [--rounds 3]
//   npx tsc -b && BENCH_PG_SHARED_BUFFERS_MB=256 node bench/rollup-upkeep.bench.mjs --postgres
//     --baseline <old dist> [--rounds 3] [--feeds 200]
//
// --postgres: the same writes through each build's PostgreSQL store into a new database of one
// embedded server (clicks by recordClick, as /click writes them); the CPU time is the child's
// plus the server's (every process of the server, read from /proc), since the triggers run there.
// --feeds scales the first fetch, the refresh and the clicks down (PostgreSQL ingest is slower).
//
// A baseline dist must sit where Node finds the package's dependencies (e.g.
// node_modules/.baseline/dist, with native/ and package.json beside it).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { serverCpuMs } from "./postgres-server-cpu.mjs";

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 0, 15, 12);

if (process.argv[2] === "--one") {
  const [, , , dist, folder, postmaster, feedCount] = process.argv;
  const { openStore } = await import(pathToFileURL(`${dist}/store/open-store.js`).href);
  const postgres = folder.startsWith("postgres://");
  const store = await openStore(postgres ? folder : join(folder, "upkeep.db"));
  const scale = Number(feedCount) / 1000;
  let seed = 7;
  const next = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const words = Array.from({ length: 4000 }, (_, i) => `w${i.toString(36)}`);
  const text = (n) => Array.from({ length: n }, () => words[Math.floor(next() * words.length)]).join(" ");
  const entry = (feed, i, date) => ({
    guid: `f${feed}-${i}`,
    link: `https://feed-${feed}.test/${i}`,
    title: `${text(5)} ${feed} ${i}`,
    excerpt: text(20),
    content: `<p>${text(60)}</p>`,
    publishedAt: Math.round(date),
    updatedAt: null,
    seenAt: NOW,
    languageId: 1,
  });
  const cpu = async (work) => {
    const started = process.cpuUsage();
    const server = postgres ? serverCpuMs(Number(postmaster)) : 0;
    const n = await work();
    const used = process.cpuUsage(started);
    const serverUs = postgres ? (serverCpuMs(Number(postmaster)) - server) * 1000 : 0;
    return { us: (used.user + used.system + serverUs) / n, n };
  };
  const feeds = [];
  for (let f = 0; f < Number(feedCount); f++) {
    feeds.push(
      (await store.addFeed({ feedUrl: `https://feed-${f}.test/rss`, feedName: `Feed ${f}` })).feedId,
    );
  }
  const out = {};
  out.first = await cpu(async () => {
    for (const [f, id] of feeds.entries()) {
      const posts = Array.from({ length: 50 }, (_, i) => entry(f, i, NOW - 30 * DAY - i * 0.7 * DAY));
      await store.applyFeedUpdate(id, { fetchState: {}, posts });
    }
    return feeds.length * 50;
  });
  out.refresh = await cpu(async () => {
    for (const [f, id] of feeds.entries()) {
      const posts = Array.from({ length: 20 }, (_, i) => entry(f, 100 + i, NOW - 20 * DAY + i * 0.9 * DAY));
      await store.applyFeedUpdate(id, { fetchState: {}, posts });
    }
    return feeds.length * 20;
  });
  const archive = (await store.addFeed({ feedUrl: "https://archive.test/rss", feedName: "Archive" })).feedId;
  out.archive = await cpu(async () => {
    for (let page = 0; page < 5; page++) {
      const posts = Array.from({ length: 1000 }, (_, i) => {
        const n = page * 1000 + i;
        return entry(5000, n, NOW - 40 * DAY - n * 0.73 * DAY);
      });
      await store.applyFeedUpdate(archive, { fetchState: {}, posts });
    }
    return 5000;
  });
  const recent = await store.recentPosts({ limit: 1000, offset: 0, languageIds: null });
  out.clicks = await cpu(async () => {
    const clicks = Math.round(20_000 * scale);
    for (let i = 0; i < clicks; i++) {
      const post = recent[Math.floor(next() ** 2 * recent.length)];
      const at = NOW - 10 * DAY + i * 30_000;
      if (postgres) await store.recordClick(post.postId, `client-${i}`, at, 600_000);
      else await store.insertClick(post.postId, `client-${i}`, at);
    }
    return clicks;
  });
  out.redated = await cpu(async () => {
    for (let k = 0; k < 100; k++) {
      const f = Math.floor(next() * feeds.length);
      const posts = Array.from({ length: 20 }, (_, i) => ({
        ...entry(f, i, NOW - 400 * DAY - next() * 300 * DAY),
        title: `moved ${k} ${i} ${text(4)}`,
      }));
      await store.applyFeedUpdate(feeds[f], { fetchState: {}, posts });
    }
    return 2000;
  });
  await store.close();
  process.stdout.write(JSON.stringify(out));
  process.exit(0);
}

const { values } = parseArgs({
  options: {
    baseline: { type: "string" },
    rounds: { type: "string" },
    postgres: { type: "boolean" },
    feeds: { type: "string" },
  },
});
if (!values.baseline) throw new Error("--baseline is required");
const rounds = Number(values.rounds ?? 3);
const feedCount = values.feeds ?? (values.postgres ? "200" : "1000");
let server;
let postmaster = 0;
if (values.postgres) {
  const { startBenchPostgres } = await import("./feed-service-postgres-corpus.mjs");
  const folder = mkdtempSync(join(tmpdir(), "rollup-upkeep-pg-"));
  server = { ...(await startBenchPostgres(folder)), folder };
  // The postmaster's pid is the first line of its pid file.
  postmaster = Number(readFileSync(join(folder, "data", "postmaster.pid"), "utf8").split("\n")[0]);
}
const builds = [
  ["old", resolve(values.baseline)],
  ["new", new URL("../packages/feed-service/dist", import.meta.url).pathname],
];
const results = { old: [], new: [] };
const loads = [];
for (let round = 0; round < rounds; round++) {
  for (const [name, dist] of builds) {
    let folder;
    if (server) {
      const database = `upkeep_${round}_${name}`;
      await server.query(`CREATE DATABASE ${database}`);
      folder = server.url.replace(/\/postgres$/, `/${database}`);
    } else folder = mkdtempSync(join(tmpdir(), "rollup-upkeep-"));
    try {
      const out = execFileSync(process.execPath, [
        new URL(import.meta.url).pathname,
        "--one",
        dist,
        folder,
        String(postmaster),
        feedCount,
      ]);
      results[name].push(JSON.parse(out.toString()));
      loads.push(loadavg()[0]);
    } finally {
      if (!server) rmSync(folder, { recursive: true, force: true });
    }
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
if (server) {
  await server.stop();
  rmSync(server.folder, { recursive: true, force: true });
}
process.stdout.write(
  `${server ? "PostgreSQL, client + server " : ""}CPU µs per item, median of ${rounds} rounds (old and new alternating); load average ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)} on ${cpus().length} cores\n`,
);
process.stdout.write("| write | items | old µs | new µs | new / old |\n|---|---|---|---|---|\n");
for (const kind of ["first", "refresh", "archive", "clicks", "redated"]) {
  const o = median(results.old.map((r) => r[kind].us));
  const n = median(results.new.map((r) => r[kind].us));
  process.stdout.write(
    `| ${kind} | ${results.new[0][kind].n} | ${o.toFixed(0)} | ${n.toFixed(0)} | ${(n / o).toFixed(2)}x |\n`,
  );
}
