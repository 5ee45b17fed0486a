// The shaped bench corpora (see corpus-shapes.mjs), built once and cached under
// <tmp>/feed-toolkit-bench/shapes/: <shape>-<posts>.db (SQLite), <shape>-<posts>-postgres/ (an
// embedded PostgreSQL data folder) and <shape>-<posts>.json (what was built, the corpus's
// commonest indexed terms). READY there lists what is built, for measuring by hand.
//
// A generated shape is loaded as a user's service would have stored it: a local HTTP server
// (shape-feed-server.mjs) serves the feed documents, and the BUILT bin runs `opml import <url>`
// and `ingest --all` once per pass (the first import with 1,000-entry archives, yearly polls,
// later imports with archives of their own), so posts are stored feed by feed, pass by pass, not
// in date order. Clicks (dated over years, which GET /click cannot do: it stamps the time of the
// request) go through the store's own click writer, smart categories through its API. The `demo`
// shape is the demo loader's corpus (the same file the other benchmarks cache).
//
// Build: nice -n 10 node bench/shape-corpus.mjs --shape long-tail,minority-english
//          [--posts 1000000] [--backends sqlite,postgres] [--postgres-from sqlite]
// (`--postgres-from sqlite`: the PostgreSQL copy by migrate-data of the SQLite file instead of
// the ingest passes.)
import { fork, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import {
  planClicks,
  planShape,
  postNumberOfLink,
  shapeByName,
  shapeNow,
  shapeVersion,
  smartCategoriesOf,
} from "./corpus-shapes.mjs";
import {
  corpusNow,
  corpusVersion,
  openCorpus,
  openStore,
  refuseOlderCorpus,
} from "./feed-service-corpus.mjs";

export const shapesFolder = join(tmpdir(), "feed-toolkit-bench", "shapes");
const bin = new URL("../packages/feed-service/bin/feed-service.js", import.meta.url).pathname;
const requireFromService = createRequire(new URL("../packages/feed-service/package.json", import.meta.url));

const sqlitePath = (shape, posts) => join(shapesFolder, `${shape}-${posts}.db`);
const manifestPath = (shape, posts) => join(shapesFolder, `${shape}-${posts}.json`);
const postgresFolder = (shape, posts) => join(shapesFolder, `${shape}-${posts}-postgres`);

function readManifest(shape, posts) {
  const file = manifestPath(shape, posts);
  if (!existsSync(file)) return null;
  const manifest = JSON.parse(readFileSync(file, "utf8"));
  return manifest.version === versionOf(shape) ? manifest : null;
}
const versionOf = (shape) => (shape === "demo" ? `demo-${corpusVersion}` : shapeVersion);

const say = (line) => process.stderr.write(`${line}\n`);
const seconds = (ms) => `${(ms / 1000).toFixed(0)} s`;

/** Runs the built bin with `args`; resolves with its stdout, rejects on a non-zero exit. */
function runBin(args, okCodes = [0]) {
  return new Promise((resolve, reject) => {
    // The feeds are served from 127.0.0.1, which the service's fetch rule refuses by default.
    const env = { ...process.env, FEED_SERVICE_ALLOW_PRIVATE_FETCH: "1" };
    const child = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "pipe", "pipe"], env });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.stderr.on("data", (d) => {
      err += d;
    });
    child.once("exit", (code) =>
      okCodes.includes(code) && out.trim() !== ""
        ? resolve(out)
        : reject(new Error(`feed-service ${args[0]} exited with ${code}: ${err}${out}`)),
    );
  });
}

/** One `ingest --all --json` over every feed; its summary (exit 1 only says a feed failed). */
async function ingestPass(database) {
  const args = ["ingest", "--all", "--json", "--per-host", "16", "--database", database];
  const out = await runBin(args, [0, 1]);
  return JSON.parse(out);
}

async function startFeedServer(shape, posts) {
  const server = fork(new URL("./shape-feed-server.mjs", import.meta.url), [shape, String(posts)], {
    stdio: ["ignore", "pipe", "inherit", "ipc"],
  });
  const port = await new Promise((resolve, reject) => {
    server.stdout.once("data", (d) => resolve(Number(String(d).trim())));
    server.once("exit", () => reject(new Error("the shape feed server exited")));
  });
  const toPass = (pass) =>
    new Promise((resolve) => {
      server.once("message", resolve);
      server.send({ pass });
    });
  return { base: `http://127.0.0.1:${port}`, toPass, stop: () => server.kill() };
}

/**
 * Stores the plan's posts into `database` through the bin, pass by pass, then the clicks and the
 * smart categories through the store. Returns what it did.
 */
async function loadShape(plan, database) {
  const { shape, posts } = plan;
  const server = await startFeedServer(shape.name, posts);
  const started = Date.now();
  let stored = 0;
  try {
    for (const [pass, at] of plan.passTimes.entries()) {
      await server.toPass(pass);
      const subscribed = plan.feeds.filter((f) => f.subscribedPass === pass).length;
      if (subscribed > 0)
        await runBin(["opml", "import", `${server.base}/opml/${pass}.opml`, "--database", database]);
      let summary = await ingestPass(database);
      // A feed that failed (a reset connection on a loaded machine) is fetched again with the
      // next pass over every feed; posts already stored are recognised, not stored twice.
      for (let retry = 0; summary.failed > 0 && retry < 2; retry++) {
        say(
          `  pass ${pass + 1}: ${summary.failed} feeds failed (${summary.failures[0]?.error}); fetching again`,
        );
        const again = await ingestPass(database);
        summary = { ...again, postsInserted: summary.postsInserted + again.postsInserted };
      }
      if (summary.failed > 0)
        throw new Error(
          `pass ${pass + 1}: ${summary.failed} feeds failed: ${JSON.stringify(summary.failures.slice(0, 3))}`,
        );
      stored += summary.postsInserted;
      const elapsed = Date.now() - started;
      const rate = stored / (elapsed / 1000);
      say(
        `  pass ${pass + 1}/${plan.passTimes.length} (to ${new Date(at).toISOString().slice(0, 10)}): +${subscribed} feeds, +${summary.postsInserted} posts, ${stored}/${posts} stored, ${rate.toFixed(0)} posts/s, ${seconds(elapsed)}${stored < posts ? `, about ${seconds(((posts - stored) / rate) * 1000)} left` : ""}`,
      );
    }
  } finally {
    server.stop();
  }
  const store = await openStore(database);
  try {
    // Posts back to the plan through their links (the plan numbers posts; the store gives ids).
    const ids = new Int32Array(posts).fill(-1);
    for (const feed of await store.adminFeeds()) {
      for (const post of await store.postsByFeed({ feedId: feed.feedId, limit: 10_000_000, offset: 0 })) {
        ids[postNumberOfLink(post.postLink)] = post.postId;
      }
    }
    const clicksStarted = Date.now();
    let clicks = 0;
    const pending = [];
    planClicks(plan, (n, at, client) => {
      if (ids[n] >= 0) pending.push([ids[n], at, client]);
    });
    // Batches of 5,000 clicks, one transaction each (a commit per click costs more than the click).
    for (let from = 0; from < pending.length; from += 5_000) {
      const batch = pending
        .slice(from, from + 5_000)
        .map(([postId, at, client]) => ({ postId, clientHash: client, at }));
      await store.insertClicks(batch);
      const before = clicks;
      clicks += batch.length;
      if (Math.floor(clicks / 50_000) > Math.floor(before / 50_000))
        say(
          `  clicks ${clicks}/${pending.length}, ${(clicks / ((Date.now() - clicksStarted) / 1000)).toFixed(0)}/s`,
        );
    }
    const smart = smartCategoriesOf(plan.shape);
    for (const s of smart) await store.addSmartCategory(s);
    return { stored, clicks, smartCategories: smart, loadMs: Date.now() - started };
  } finally {
    await store.close();
  }
}

/**
 * The commonest terms of a SQLite corpus, read from its full-text index's own statistics (FTS5's
 * fts5vocab: documents per term), most documents first.
 */
export function commonestTerms(path, count = 2000) {
  const Database = requireFromService("better-sqlite3");
  const db = new Database(path, { readonly: true });
  try {
    db.exec("CREATE VIRTUAL TABLE temp.bench_vocab USING fts5vocab(main, posts_fts, 'row')");
    return db
      .prepare("SELECT term, doc FROM temp.bench_vocab ORDER BY doc DESC LIMIT ?")
      .all(count)
      .map(({ term, doc }) => [term, doc]);
  } finally {
    db.close();
  }
}

function languageShares(plan) {
  const byLanguage = {};
  for (const f of plan.feeds) byLanguage[f.language] = (byLanguage[f.language] ?? 0) + f.dates.length;
  return Object.fromEntries(
    Object.entries(byLanguage).map(([code, n]) => [code, `${((100 * n) / plan.posts).toFixed(1)}%`]),
  );
}

/** Builds the SQLite corpus of `shape` at `posts` when missing; returns its path and manifest. */
export async function openShapeCorpus(shapeName, posts) {
  const shape = shapeByName(shapeName);
  mkdirSync(shapesFolder, { recursive: true });
  const path = sqlitePath(shapeName, posts);
  const known = readManifest(shapeName, posts);
  if (known && existsSync(path)) {
    refuseOlderCorpus(path);
    return { path, manifest: known };
  }
  const partial = `${path}.building`;
  for (const suffix of ["", "-wal", "-shm", "-history"]) {
    rmSync(`${partial}${suffix}`, { force: true });
    rmSync(`${path}${suffix}`, { force: true });
  }
  const started = Date.now();
  let manifest;
  if (shapeName === "demo") {
    // The demo loader's corpus is the file the other benchmarks cache: linked, not built twice (a
    // symbolic link: SQLite follows it, so both names share one WAL).
    const { path: demoPath, store } = await openCorpus(posts);
    const languages = await store.aggregateLanguageData(Date.now());
    const feeds = (await store.feeds()).length;
    await store.close();
    symlinkSync(demoPath, partial);
    const clicks = languages.reduce((sum, l) => sum + l.clicks, 0);
    manifest = { shape: shapeName, description: shape.description, posts, feeds, clicks, now: corpusNow };
  } else {
    say(`building the ${shapeName} corpus, ${posts} posts, into ${path} (once; cached)...`);
    const plan = planShape(shape, posts);
    say(
      `  ${plan.feeds.length} feeds, ${plan.passTimes.length} passes, posts by language ${JSON.stringify(languageShares(plan))}`,
    );
    const loaded = await loadShape(plan, partial);
    const sizes = plan.feeds.map((f) => f.dates.length).sort((a, b) => b - a);
    manifest = {
      shape: shapeName,
      description: shape.description,
      posts: loaded.stored,
      feeds: plan.feeds.length,
      feedSizes: { largest: sizes[0], median: sizes[Math.floor(sizes.length / 2)], smallest: sizes.at(-1) },
      languages: languageShares(plan),
      passes: plan.passTimes.map((t) => new Date(t).toISOString().slice(0, 10)),
      clicks: loaded.clicks,
      smartCategories: loaded.smartCategories,
      now: shapeNow,
      loadSeconds: Math.round(loaded.loadMs / 1000),
    };
  }
  renameSync(partial, path);
  // The search history is a file beside the database (schema 25): it moves with it.
  if (existsSync(`${partial}-history`)) renameSync(`${partial}-history`, `${path}-history`);
  for (const suffix of ["-wal", "-shm"]) rmSync(`${partial}${suffix}`, { force: true });
  say("  reading the index's term statistics...");
  manifest.version = versionOf(shapeName);
  manifest.terms = commonestTerms(path);
  manifest.builtAt = new Date().toISOString();
  writeFileSync(manifestPath(shapeName, posts), `${JSON.stringify(manifest, null, 1)}\n`);
  writeReady();
  say(`built ${shapeName}-${posts} in ${seconds(Date.now() - started)}`);
  return { path, manifest };
}

/**
 * Starts the PostgreSQL corpus of `shape` at `posts` (building it when missing: generated shapes
 * through the same bin passes into PostgreSQL, the demo by migrate-data from its SQLite file);
 * returns its URL, manifest and stop().
 */
export async function openShapePostgres(shapeName, posts, { fromSqlite = false } = {}) {
  const { manifest } = await openShapeCorpus(shapeName, posts);
  const { openPostgresCorpus, startBenchPostgres } = await import("./feed-service-postgres-corpus.mjs");
  if (shapeName === "demo") {
    // The demo's PostgreSQL copy is the one the other benchmarks cache (migrate-data of its file).
    const { url, stop } = await openPostgresCorpus(posts);
    return { url, manifest, stop };
  }
  const folder = postgresFolder(shapeName, posts);
  const ready = join(folder, "READY");
  const fresh = !existsSync(ready);
  if (fresh) rmSync(folder, { recursive: true, force: true });
  const pg = await startBenchPostgres(folder);
  if (fresh) {
    const started = Date.now();
    say(`building the ${shapeName} corpus, ${posts} posts, into PostgreSQL ${folder} (once; cached)...`);
    if (fromSqlite) {
      // The same posts, ids included, copied from the SQLite corpus (migrate-data): faster than
      // the passes through PostgreSQL's ingest, but stored in id order, not pass by pass.
      const { migrateData } = await import(
        new URL("../packages/feed-service/dist/migrate/migrate-data.js", import.meta.url).href
      );
      // Where the copy's time went, and the CPU of this process (its encoder threads included) and
      // of the server beside it, so a copy's wall time is read against the machine's load.
      const { localPostmasterOf, serverCpuMs } = await import("./postgres-server-cpu.mjs");
      const postmaster = await localPostmasterOf(pg.url);
      const cpu0 = process.cpuUsage();
      const server0 = postmaster ? serverCpuMs(postmaster) : Number.NaN;
      const summary = await migrateData({
        from: sqlitePath(shapeName, posts),
        to: pg.url,
        force: true,
        batchSize: 5000,
        onStep: (step, ms) => say(`  ${step}: ${(ms / 1000).toFixed(1)} s`),
      });
      const cpu = process.cpuUsage(cpu0);
      say(
        `  migrate-data ${seconds(summary.durationMs)}; CPU: this process ${seconds((cpu.user + cpu.system) / 1000)}, PostgreSQL server ${postmaster ? seconds(serverCpuMs(postmaster) - server0) : "?"}; load average ${loadavg()
          .map((l) => l.toFixed(1))
          .join(" ")}`,
      );
    } else {
      await loadShape(planShape(shapeByName(shapeName), posts), pg.url);
    }
    const vacuumStarted = Date.now();
    await pg.query("VACUUM ANALYZE");
    say(`  VACUUM ANALYZE ${seconds(Date.now() - vacuumStarted)}`);
    writeFileSync(ready, `${Date.now() - started} ms\n`);
    say(`built ${shapeName}-${posts} on PostgreSQL in ${seconds(Date.now() - started)}`);
    writeReady();
  }
  return { url: pg.url, manifest, stop: pg.stop };
}

/** Rewrites READY: one line per corpus built, with what it holds. */
export function writeReady() {
  const lines = [
    "# Shaped bench corpora (bench/shape-corpus.mjs; bench/README.md). Copy a file before opening it",
    "# with a build whose migrations differ: opening migrates it in place.",
  ];
  for (const name of readdirSync(shapesFolder).sort()) {
    const m = /^(.+)-(\d+)\.json$/.exec(name);
    if (!m) continue;
    const manifest = JSON.parse(readFileSync(join(shapesFolder, name), "utf8"));
    const db = sqlitePath(m[1], m[2]);
    if (existsSync(db)) {
      lines.push(
        `sqlite ${m[1]} ${manifest.posts} posts ${manifest.feeds ?? 45} feeds ${manifest.clicks ?? "?"} clicks: ${db} (built ${manifest.builtAt})`,
      );
    }
    if (existsSync(join(postgresFolder(m[1], m[2]), "READY"))) {
      lines.push(
        `postgres ${m[1]} ${manifest.posts} posts: data folder ${join(postgresFolder(m[1], m[2]), "data")} (start it with startBenchPostgres in bench/feed-service-postgres-corpus.mjs)`,
      );
    }
  }
  writeFileSync(join(shapesFolder, "READY"), `${lines.join("\n")}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      shape: { type: "string", multiple: true },
      posts: { type: "string" },
      backends: { type: "string" },
      "postgres-from": { type: "string" },
    },
  });
  if (values["postgres-from"] !== undefined && values["postgres-from"] !== "sqlite") {
    say(
      `--postgres-from takes only 'sqlite' (copy the SQLite corpus with migrate-data); got '${values["postgres-from"]}'`,
    );
    process.exit(2);
  }
  const fromSqlite = values["postgres-from"] === "sqlite";
  const posts = Number(values.posts ?? 1_000_000);
  const names = (values.shape ?? ["long-tail"]).flatMap((s) => s.split(","));
  const backends = (values.backends ?? "sqlite").split(",");
  for (const name of names) {
    await openShapeCorpus(name, posts);
    if (backends.includes("postgres")) await (await openShapePostgres(name, posts, { fromSqlite })).stop();
  }
}
