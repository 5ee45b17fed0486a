// The Node side of migrate-data into PostgreSQL: what one COPY encoder thread
// (postgres-copy-worker.ts) does to a batch of posts (postCopyLines: the text analysed, the
// search and phrase vector literals built, the COPY line written), timed on posts drawn at random
// from each corpus shape's SQLite file (read only, opened without the store, so never migrated),
// with --baseline another build's ("old") and this build's ("new") alternating on the same
// batches, old first. Every batch's output is compared byte for byte between the builds.
// Figures: CPU microseconds a post of this process (the encoders' work is single-threaded; the
// garbage collector's helper threads are counted in), and new / old in the same round.
// Usage: npx tsc -b && node bench/postgres-copy-encode.bench.mjs [--posts 4000] [--rounds 3]
//   [--seed 1] [--baseline <another build's packages/feed-service/dist>] [--build <the dist timed as
//   "new", this tree's by default>] [--ranked: this build
//   writes the rank columns too (postCopyLines' `unranked`, migrate-data's staged posts); the
//   lines are compared without them]
//   [--shapes demo,long-tail,minority-english] (TMPDIR as for the latency bench: the shapes'
//   1M SQLite files under $TMPDIR/feed-toolkit-bench/shapes, the demo one beside them)
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    posts: { type: "string" },
    rounds: { type: "string" },
    seed: { type: "string" },
    baseline: { type: "string" },
    shapes: { type: "string" },
    ranked: { type: "boolean" },
    build: { type: "string" },
  },
});
const postsPerShape = Number(values.posts ?? 4000);
const rounds = Number(values.rounds ?? 3);
let seed = Number(values.seed ?? 1) >>> 0;
const batchSize = 2000;
const dist = values.build
  ? resolve(values.build)
  : new URL("../packages/feed-service/dist", import.meta.url).pathname;
const Database = createRequire(new URL("../packages/feed-service/package.json", import.meta.url))(
  "better-sqlite3",
);

const load = async (name, folder) => {
  const { postCopyLines } = await import(
    pathToFileURL(`${folder}/store/postgres/postgres-copy-rows.js`).href
  );
  const ranked = name === "new" && values.ranked;
  return { name, postCopyLines: ranked ? (batch, feeds) => postCopyLines(batch, feeds, []) : postCopyLines };
};
/** A batch's lines without the rank columns a --ranked build adds at the end of each. */
const unrankedLines = (text) => (values.ranked ? text.replace(/\t[^\t\n]*\t[^\t\n]*\n/g, "\n") : text);
const builds = [await load("new", dist)];
if (values.baseline) builds.unshift(await load("old", resolve(values.baseline)));
const { copiedTables } = await import(pathToFileURL(`${dist}/store/copied-tables.js`).href);
const postColumns = copiedTables.find((t) => t.name === "posts").columns;

/** mulberry32: the same draws for the same seed. */
const next = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ (t + t);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const base = join(tmpdir(), "feed-toolkit-bench");
const files = {
  demo: join(base, "feed-service-1000000-v2.db"),
  "long-tail": join(base, "shapes", "long-tail-1000000.db"),
  "minority-english": join(base, "shapes", "minority-english-1000000.db"),
};
const shapeNames = (values.shapes ?? "demo,long-tail,minority-english").split(",");

/** Posts drawn at random (ids between the first and the last, the next stored id from there). */
function drawPosts(file) {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const { lo, hi } = db.prepare("SELECT min(id) AS lo, max(id) AS hi FROM posts").get();
    const at = db
      .prepare(`SELECT ${postColumns.join(", ")} FROM posts WHERE id >= ? ORDER BY id LIMIT 1`)
      .raw();
    const rows = [];
    for (let i = 0; i < postsPerShape; i++) rows.push(at.get(lo + Math.floor(next() * (hi - lo + 1))));
    const feeds = new Map(db.prepare("SELECT id, name FROM feeds").raw().all());
    return { rows, feeds };
  } finally {
    db.close();
  }
}

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const load1 = () => loadavg()[0].toFixed(1);

console.log(
  `# postCopyLines, ${postsPerShape} posts a shape drawn with seed ${values.seed ?? 1}, batches of ${batchSize}`,
);
console.log("| shape | round | build | CPU us/post | wall us/post | load | new/old CPU |");
console.log("|---|---:|---|---:|---:|---:|---:|");
for (const shape of shapeNames) {
  const file = files[shape];
  if (!file || !existsSync(file)) {
    console.log(`| ${shape} | - | - | missing ${file} | | | |`);
    continue;
  }
  const { rows, feeds } = drawPosts(file);
  const batches = [];
  for (let i = 0; i < rows.length; i += batchSize) batches.push(rows.slice(i, i + batchSize));
  // One untimed pass a build: code compiled, caches of the analyzer filled, as in a long COPY.
  const outputs = builds.map((b) => batches.map((batch) => b.postCopyLines(batch, feeds)));
  if (outputs.length === 2 && outputs[0].some((text, i) => text !== unrankedLines(outputs[1][i]))) {
    throw new Error(`${shape}: the builds' COPY lines differ`);
  }
  for (let round = 1; round <= rounds; round++) {
    const cpu = {};
    for (const build of builds) {
      const startCpu = cpuMs();
      const startWall = performance.now();
      for (const batch of batches) build.postCopyLines(batch, feeds);
      const wall = performance.now() - startWall;
      cpu[build.name] = cpuMs() - startCpu;
      const ratio = build.name === "new" && cpu.old ? (cpu.new / cpu.old).toFixed(2) : "";
      console.log(
        `| ${shape} | ${round} | ${build.name} | ${((cpu[build.name] * 1000) / rows.length).toFixed(1)} | ${((wall * 1000) / rows.length).toFixed(1)} | ${load1()} | ${ratio} |`,
      );
    }
  }
}
