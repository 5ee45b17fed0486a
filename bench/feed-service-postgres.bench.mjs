// The feed service on PostgreSQL against SQLite, with the same 1,000,000 posts (the SQLite bench
// corpus copied into an embedded PostgreSQL by migrate-data, ids included), and 1 against 2
// service processes (`feed-service serve --workers N`, the real command line) on each backend.
// Load: wrk, 32 connections, SOAP getMostRecentPosts(limit 20) and search(limit 20, offset 0, a
// rare demo word, sort by relevance; a search at offset 0 also records the search history, a write).
// Every request carries a unique XML comment, so the service's answer cache never hits: this
// measures decoding, the database and encoding, not the cache.
// Before the load, migrate-data copies the SQLite corpus once more into a new, empty database of
// the same server, timed, against the goal of 1,000,000 posts in 5 minutes (3,333 posts/s); then
// refreshes of 50 new demo posts each are applied to that copy through the store, feed after
// feed, timed, against the goal of 3,000 posts/s (the store's write alone: no fetch, no parse);
// then clicks through GET /click of one service process on that copy, against 2,000 clicks/s.
// Usage: npx tsc -b && node bench/feed-service-postgres.bench.mjs [--posts N] [--seconds S]
//   [--migrate-only: the migrate-data, ingest and click rows alone]
//   [--click-connections N: wrk's connections for the click row, 8 unless given; more than the
//    service's pool holds makes clicks wait for a connection]
//   [--baseline <another build's packages/feed-service/dist> --rounds R: the migrate-data, ingest
//    and click rows of that build ("old") and this one ("new") alternating, R rounds, old first]
//   [--compare-in-place [--rounds R]: one build (--baseline's, or this one) twice, migrate-data
//    loading posts in place ("in-place", postsInPlace) and staged ("staged"), alternating, R
//    rounds, in-place first: the ingest and /click rows after each load]
// A --baseline build reads a copy of the SQLite corpus of its own (see sourcesOfOtherBuilds), so
// two builds of different SQLite schemas alternate; the copy sits beside the corpus (disk: one
// more corpus file) and is deleted at the end.
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { corpusPath } from "./feed-service-corpus.mjs";
import { openPostgresCorpus } from "./feed-service-postgres-corpus.mjs";
import {
  applyRefreshes,
  demoRefreshes,
  ingestRefreshes,
  postsPerRefresh,
} from "./postgres-ingest-refreshes.mjs";
import { runWrk, runWrkOnce } from "./wrk-load.mjs";

const { values } = parseArgs({
  options: {
    posts: { type: "string" },
    seconds: { type: "string" },
    "migrate-only": { type: "boolean" },
    "click-connections": { type: "string" },
    baseline: { type: "string" },
    rounds: { type: "string" },
    "compare-in-place": { type: "boolean" },
  },
});
const posts = Number(values.posts ?? 1_000_000);
const seconds = Number(values.seconds ?? 10);
const clickConnections = Number(values["click-connections"] ?? 8);
const connections = 32;
const path = "/webservices/FeedAggregator";
const bin = new URL("../packages/feed-service/bin/feed-service.js", import.meta.url).pathname;
const dist = new URL("../packages/feed-service/dist/", import.meta.url);
const { demoRareWords } = await import(new URL("demo/demo-vocabulary.js", dist).href);
/** The builds whose writes are timed: this one, and with --baseline another one first. */
const loadWriter = async (name, folder) => ({
  name,
  folder: folder.href,
  bin: new URL("../bin/feed-service.js", folder).pathname,
  ...(await import(new URL("migrate/migrate-data.js", folder).href)),
  ...(await import(new URL("store/open-store.js", folder).href)),
});
const writers = [];
if (values["compare-in-place"]) {
  const folder = values.baseline ? pathToFileURL(`${resolve(values.baseline)}/`) : dist;
  writers.push({ ...(await loadWriter("in-place", folder)), postsInPlace: true });
  writers.push(await loadWriter("staged", folder));
} else {
  writers.push(await loadWriter("new", dist));
  if (values.baseline)
    writers.unshift(await loadWriter("old", pathToFileURL(`${resolve(values.baseline)}/`)));
}
const rounds = values.baseline || values["compare-in-place"] ? Number(values.rounds ?? 2) : 1;
const { default: pg } = await import(
  createRequire(new URL("../packages/feed-service/package.json", import.meta.url)).resolve("pg")
);
/** migrate-data's goal: the 1,000,000-post demo into an empty PostgreSQL within 5 minutes. */
const migrateGoalPostsPerSecond = 1_000_000 / 300;
const ingestGoalPostsPerSecond = 3_000;
/** Clicks through /click, touching no full-text index. */
const clickGoalPerSecond = 2_000;

const envelope = (body) =>
  '<?xml version="1.0" encoding="UTF-8"?><!--@NONCE@--><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" ' +
  'xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><soapenv:Body>' +
  `<ns1:${body.op} soapenv:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/" xmlns:ns1="http://webservices">` +
  `${body.args}</ns1:${body.op}></soapenv:Body></soapenv:Envelope>`;

const operations = {
  getMostRecentPosts: envelope({
    op: "getMostRecentPosts",
    args:
      '<limit xsi:type="xsd:double">20</limit><offset xsi:type="xsd:double">0</offset>' +
      '<languageIds xsi:type="xsd:string"></languageIds>',
  }),
  search: envelope({
    op: "search",
    args:
      '<limit xsi:type="xsd:double">20</limit><offset xsi:type="xsd:double">0</offset>' +
      '<searchTerms xsi:type="xsd:string">@WORD@</searchTerms><sortBy xsi:type="xsd:string">relevance</sortBy>' +
      '<languageIds xsi:type="xsd:string"></languageIds>',
  }),
};
const words = demoRareWords.slice(0, 100);

function luaScript(template) {
  const file = join(tmpdir(), `feed-service-postgres-bench-${template.length}.lua`);
  writeFileSync(
    file,
    `local words = {${words.map((w) => JSON.stringify(w)).join(", ")}}
local template = ${JSON.stringify(template)}
local counter = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "text/xml; charset=utf-8"
wrk.headers["SOAPAction"] = '""'
request = function()
  counter = counter + 1
  local body = template:gsub("@NONCE@", tostring(counter) .. "-" .. tostring(math.random(1000000000)))
  body = body:gsub("@WORD@", words[math.random(#words)])
  return wrk.format(nil, nil, nil, body)
end
`,
  );
  return file;
}

/** Starts `feed-service serve --workers N`; resolves with its URL and a stop function. */
async function startService(database, workers, serviceBin = bin) {
  const child = spawn(
    process.execPath,
    [
      serviceBin,
      "serve",
      "--workers",
      String(workers),
      "--port",
      "0",
      "--host",
      "127.0.0.1",
      "--no-ingest",
      "--database",
      database,
    ],
    { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, FEED_SERVICE_DATABASE: "" } },
  );
  let out = "";
  let err = "";
  child.stdout.on("data", (c) => {
    out += c;
  });
  child.stderr.on("data", (c) => {
    err += c;
  });
  const pattern =
    workers === 1 ? /listening on 127\.0\.0\.1:(\d+)/ : /workers listening on 127\.0\.0\.1:(\d+)/;
  const port = await new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      const m = pattern.exec(out);
      if (m) {
        clearInterval(timer);
        resolve(Number(m[1]));
      } else if (child.exitCode !== null) {
        clearInterval(timer);
        reject(new Error(`serve exited: ${err}`));
      }
    }, 50);
  });
  return {
    url: `http://127.0.0.1:${port}${path}`,
    stop: () =>
      new Promise((resolve) => {
        child.once("exit", resolve);
        child.kill("SIGTERM");
      }),
  };
}

/** Applies refreshes of new demo posts to the database at `url`, round-robin over its feeds; times them. */
async function timeIngest(writer, url) {
  const store = await writer.openStore(url);
  try {
    const refreshes = await demoRefreshes(await store.feeds());
    const started = process.hrtime.bigint();
    const stored = await applyRefreshes(store, refreshes);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    return { posts: stored, seconds, rate: stored / seconds };
  } finally {
    await store.close();
  }
}

/**
 * Clicks through `GET /click/<id>` of one service process on the database at `url`, on posts
 * drawn at random (wrk, one client address: a repeat within 10 minutes is answered but not
 * counted, so the clicks stored are counted too); times them.
 */
async function timeClicks(writer, url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const count = async () => Number((await client.query("SELECT count(*) AS n FROM clicks")).rows[0].n);
  // A click's UPDATE of posts that is not heap-only writes every index of posts, the GIN search
  // indexes' pending lists included, which the click that fills one then flushes (the p99's tail).
  const updates = async () =>
    (
      await client.query(
        "SELECT n_tup_upd::float8 AS updated, n_tup_hot_upd::float8 AS hot FROM pg_stat_user_tables WHERE relname = 'posts'",
      )
    ).rows[0];
  try {
    const { rows } = await client.query("SELECT min(id) AS lo, max(id) AS hi FROM posts");
    const lua = join(tmpdir(), `feed-service-postgres-bench-clicks-${process.pid}.lua`);
    writeFileSync(
      lua,
      `request = function()
  return wrk.format("GET", "/click/" .. math.random(${rows[0].lo}, ${rows[0].hi}))
end
`,
    );
    const service = await startService(url, 1, writer.bin);
    const updatedBefore = await updates();
    let r;
    let stored;
    try {
      const before = await count();
      r = await runWrkOnce({
        url: new URL("/", service.url).href,
        lua,
        connections: clickConnections,
        seconds,
      });
      stored = (await count()) - before;
    } finally {
      await service.stop();
    }
    // Read after the stop: a server process reports its table statistics when idle or at exit.
    const updatedAfter = await updates();
    const updated = updatedAfter.updated - updatedBefore.updated;
    const hot = updatedAfter.hot - updatedBefore.hot;
    return { ...r, stored, storedRate: stored / seconds, updated, hot };
  } finally {
    await client.end();
  }
}

/** Prints (stderr) what of `posts` the ingest after a copy may depend on: pages, visibility, statistics, indexes. */
async function printPostsState(build, url, when = "after migrate-data") {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const table = await client.query(
      `SELECT c.relpages, c.reltuples::bigint, c.relallvisible, c.reloptions, age(c.relfrozenxid) AS xid_age,
          pg_relation_size(c.oid) AS heap, s.n_live_tup, s.n_dead_tup, s.n_mod_since_analyze, s.n_ins_since_vacuum,
          s.last_analyze IS NOT NULL AS analyzed, s.autoanalyze_count, s.autovacuum_count, s.n_tup_upd, s.n_tup_hot_upd,
          (SELECT count(*) FROM pg_stats WHERE tablename = 'posts') AS stats_columns
        FROM pg_class c LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid WHERE c.oid = 'posts'::regclass`,
    );
    const indexes = await client.query(
      `SELECT c.relname, pg_relation_size(c.oid) AS size, c.reloptions, i.indisvalid, i.indisready
        FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = 'posts'::regclass ORDER BY c.relname`,
    );
    const triggers = await client.query(
      `SELECT tgname, tgenabled FROM pg_trigger WHERE tgrelid = 'posts'::regclass AND NOT tgisinternal ORDER BY tgname`,
    );
    process.stderr.write(
      `  ${build} posts ${when}: ${JSON.stringify({ table: table.rows[0], indexes: indexes.rows, triggers: triggers.rows })}\n`,
    );
  } finally {
    await client.end();
  }
}

/**
 * Copies the SQLite corpus into a new database of the corpus's server and then ingests into the
 * copy (dropped after); times both.
 */
async function timeMigrate(corpus, writer) {
  const database = `migrate_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: corpus.url });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${database}`);
    const started = process.hrtime.bigint();
    const load = loadavg()[0];
    const summary = await writer.migrateData({
      from: writer.source ?? corpus.sqlitePath,
      to: corpus.url.replace(/\/postgres$/, `/${database}`),
      batchSize: 5000,
      postsInPlace: writer.postsInPlace,
      // Where the time went (reading, encoding, COPY, each index, roll-ups, ANALYZE), as it goes.
      onStep: (step, ms) =>
        process.stderr.write(
          `  ${new Date().toISOString().slice(11, 19)} ${writer.name} migrate-data: ${step}: ${(ms / 1000).toFixed(1)} s\n`,
        ),
    });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const copied = summary.tables.find((t) => t.table === "posts").rows;
    const loadAfter = loadavg()[0];
    // The copied posts' physical state and statistics, to set the loads' results side by side.
    await printPostsState(writer.name, corpus.url.replace(/\/postgres$/, `/${database}`));
    const ingestLoad = loadavg()[0];
    const ingest = await timeIngest(writer, corpus.url.replace(/\/postgres$/, `/${database}`));
    ingest.load = [ingestLoad, loadavg()[0]];
    const clicks = await timeClicks(writer, corpus.url.replace(/\/postgres$/, `/${database}`));
    await printPostsState(
      writer.name,
      corpus.url.replace(/\/postgres$/, `/${database}`),
      "after ingest and clicks",
    );
    return {
      build: writer.name,
      posts: copied,
      seconds,
      rate: copied / seconds,
      load: [load, loadAfter],
      steps: summary.steps ?? [],
      ingest,
      clicks,
    };
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${database}`);
    await admin.end();
  }
}

/** The SQLite corpus's files: the database, its log, its search history (schema 25) and its log. */
const corpusFiles = ["", "-wal", "-history", "-history-wal"];

/**
 * Gives each build other than this checkout's a copy of the SQLite corpus, taken before this
 * checkout's code opens the corpus: migrate-data's SQLite endpoint migrates its source to the
 * schema of the build that opens it, and an older build cannot read a newer schema (schema 25
 * moved `searches` into a file of its own). Each copy is then migrated by its own build's store
 * before anything is timed. Returns the copies' paths.
 */
async function sourcesOfOtherBuilds(before) {
  const original = corpusPath(posts);
  const copies = [];
  const others = [...new Set(writers.filter((w) => w.folder !== dist.href).map((w) => w.folder))];
  if (others.length === 0 || existsSync(original) !== before) return copies;
  if (!before)
    process.stderr.write(
      "the SQLite corpus was built by this checkout, at its schema: an older build may not read its copy\n",
    );
  for (const [i, folder] of others.entries()) {
    const copy = join(dirname(original), `migrate-source-${process.pid}-${i}.db`);
    copies.push(copy);
    for (const suffix of corpusFiles)
      if (existsSync(`${original}${suffix}`)) copyFileSync(`${original}${suffix}`, `${copy}${suffix}`);
    const writer = writers.find((w) => w.folder === folder);
    const store = await writer.openStore(copy);
    await store.close();
    for (const w of writers) if (w.folder === folder) w.source = copy;
  }
  return copies;
}
const removeCopies = (copies) => {
  for (const copy of copies)
    for (const suffix of [...corpusFiles, "-shm", "-history-shm"])
      rmSync(`${copy}${suffix}`, { force: true });
};

const sourceCopies = await sourcesOfOtherBuilds(true);
let corpus;
try {
  corpus = await openPostgresCorpus(posts);
  sourceCopies.push(...(await sourcesOfOtherBuilds(false)));
} catch (error) {
  removeCopies(sourceCopies);
  throw error;
}
const backends = { sqlite: corpus.sqlitePath, postgres: corpus.url };
const results = [];
/** Every build's migrate-data, ingest and click figures, in the order they ran. */
const runs = [];
let migrate;
try {
  for (let round = 1; round <= rounds; round++) {
    for (const writer of writers) {
      const run = { round, ...(await timeMigrate(corpus, writer)) };
      runs.push(run);
      process.stderr.write(
        `${writer.name} round ${round}: migrate-data ${run.posts} posts in ${run.seconds.toFixed(1)} s, ingest ${run.ingest.rate.toFixed(0)} posts/s, /click ${run.clicks.rps.toFixed(0)} req/s\n`,
      );
    }
  }
  migrate = runs.filter((r) => r.build === writers.at(-1).name).at(-1);
  for (const [backend, database] of Object.entries(values["migrate-only"] ? {} : backends)) {
    for (const workers of [1, 2]) {
      const service = await startService(database, workers);
      try {
        for (const [operation, template] of Object.entries(operations)) {
          const sample = await fetch(service.url, {
            method: "POST",
            headers: { "Content-Type": "text/xml" },
            body: template.replace("@NONCE@", "sample").replace("@WORD@", words[0]),
          });
          const text = await sample.text();
          if (sample.status !== 200)
            throw new Error(`${backend} ${operation}: HTTP ${sample.status} ${text.slice(0, 300)}`);
          const r = await runWrk({ url: service.url, lua: luaScript(template), connections, seconds });
          results.push({ backend, workers, operation, ...r });
          process.stderr.write(`${backend} x${workers} ${operation}: ${r.rps} req/s\n`);
        }
      } finally {
        await service.stop();
      }
    }
  }
} finally {
  await corpus.stop();
  removeCopies(sourceCopies);
}

const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : "n/a");
if (runs.length > 1) {
  // Old and new alternating in this run: each row's load average (1 min) at its start and end.
  console.log(
    `\n| round | build | migrate-data s | posts/s (ratio to 3,333) | load | ingest posts/s (ratio to ${ingestGoalPostsPerSecond}) | load | /click stored/s (ratio to ${clickGoalPerSecond}) | p99 ms |`,
  );
  console.log("|---:|---|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of runs) {
    console.log(
      `| ${r.round} | ${r.build} | ${fmt(r.seconds, 1)} | ${fmt(r.rate)} (${fmt(r.rate / migrateGoalPostsPerSecond, 2)}) | ${fmt(r.load[0], 1)}-${fmt(r.load[1], 1)} | ${fmt(r.ingest.rate)} (${fmt(r.ingest.rate / ingestGoalPostsPerSecond, 2)}) | ${fmt(r.ingest.load[0], 1)}-${fmt(r.ingest.load[1], 1)} | ${fmt(r.clicks.storedRate)} (${fmt(r.clicks.storedRate / clickGoalPerSecond, 2)}) | ${fmt(r.clicks.p99, 1)} |`,
    );
  }
  const stepNames = [...new Set(runs.flatMap((r) => r.steps.map((s) => s.step)))];
  console.log(`\n| migrate-data step (s) | ${runs.map((r) => `${r.build} ${r.round}`).join(" | ")} |`);
  console.log(`|---|${runs.map(() => "---:").join("|")}|`);
  for (const step of stepNames) {
    const cells = runs.map((r) => {
      const found = r.steps.filter((s) => s.step === step);
      return found.length === 0 ? "" : fmt(found.reduce((t, s) => t + s.ms, 0) / 1000, 1);
    });
    console.log(`| ${step} | ${cells.join(" | ")} |`);
  }
}
console.log(
  "\n| migrate-data SQLite -> empty PostgreSQL | posts | seconds | posts/s | ratio to 3,333 posts/s (1M in 5 min) |",
);
console.log("|---|---:|---:|---:|---:|");
console.log(
  `| ${posts}-post demo corpus, batches of 5,000 | ${migrate.posts} | ${fmt(migrate.seconds, 1)} | ${fmt(migrate.rate)} | ${fmt(migrate.rate / migrateGoalPostsPerSecond, 2)} |`,
);
if (migrate.steps.length > 0) {
  console.log(
    "\n| where migrate-data's time went (steps overlap: the encoding runs beside the reading and the COPY) | seconds |",
  );
  console.log("|---|---:|");
  for (const { step, ms } of migrate.steps) console.log(`| ${step} | ${fmt(ms / 1000, 1)} |`);
}
console.log(
  `\n| ingest on PostgreSQL (store writes of ${postsPerRefresh}-post refreshes) | posts | seconds | posts/s | ratio to ${ingestGoalPostsPerSecond} posts/s |`,
);
console.log("|---|---:|---:|---:|---:|");
const ingest = migrate.ingest;
console.log(
  `| ${ingestRefreshes} refreshes into the migrated ${posts}-post copy | ${ingest.posts} | ${fmt(ingest.seconds, 1)} | ${fmt(ingest.rate)} | ${fmt(ingest.rate / ingestGoalPostsPerSecond, 2)} |`,
);
const clicks = migrate.clicks;
console.log(
  `\n| clicks through GET /click (1 process, wrk -c${clickConnections} ${seconds}s, random posts) | req/s | p99 ms | clicks stored/s | ratio to ${clickGoalPerSecond}/s | non-2xx/3xx | p50 ms | posts updates heap-only | load average |`,
);
console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
console.log(
  `| the migrated ${posts}-post copy after the ingest | ${fmt(clicks.rps)} | ${fmt(clicks.p99, 1)} | ${fmt(clicks.storedRate)} | ${fmt(clicks.rps / clickGoalPerSecond, 2)} | ${clicks.errors} | ${fmt(clicks.p50, 2)} | ${clicks.hot} of ${clicks.updated} | ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")} |`,
);
if (values["migrate-only"]) process.exit(0);

const find = (backend, workers, operation) =>
  results.find((r) => r.backend === backend && r.workers === workers && r.operation === operation);
console.log(
  `\nfeed-service on PostgreSQL vs SQLite, ${posts} posts, wrk -c${connections} ${seconds}s, answer cache bypassed`,
);
console.log(
  "| operation | backend | 1 process req/s | 2 processes req/s | ratio 2/1 | p99 ms (1 / 2) | non-2xx |",
);
console.log("|---|---|---:|---:|---:|---:|---:|");
for (const operation of Object.keys(operations)) {
  for (const backend of Object.keys(backends)) {
    const one = find(backend, 1, operation);
    const two = find(backend, 2, operation);
    console.log(
      `| ${operation} | ${backend} | ${fmt(one.rps)} | ${fmt(two.rps)} | ${fmt(two.rps / one.rps, 2)} | ${fmt(one.p99, 1)} / ${fmt(two.p99, 1)} | ${one.errors + two.errors} |`,
    );
  }
}
console.log("\n| operation | processes | PostgreSQL req/s | SQLite req/s | ratio PostgreSQL/SQLite |");
console.log("|---|---:|---:|---:|---:|");
for (const operation of Object.keys(operations)) {
  for (const workers of [1, 2]) {
    const pgRow = find("postgres", workers, operation);
    const sqliteRow = find("sqlite", workers, operation);
    console.log(
      `| ${operation} | ${workers} | ${fmt(pgRow.rps)} | ${fmt(sqliteRow.rps)} | ${fmt(pgRow.rps / sqliteRow.rps, 2)} |`,
    );
  }
}
