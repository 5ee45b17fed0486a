// Write amplification and segments at rest of the full-text index's merge policies, over a
// simulated history of ingest passes (no server, no corpus): an FTS5 table written as ingest
// writes posts (a transaction per feed update, a pass of many), then after each pass the merge
// steps run until done, as `feed-service ingest` runs them. Policies:
//   none    FTS5's automerge only (what an ingest-built store had before);
//   whole   merge into one segment after every pass (positive 'merge' first, then negative);
//   tiered  this build's chooseMerge (sqlite-search-maintenance.ts).
// Pages written are counted from the index's structure record after every transaction (a leaf
// page that a segment did not hold before was written; a segment id FTS5 frees and reuses within
// one transaction would be missed), so FTS5's own flushes and automerge count as well as
// the steps; the ratio is pages written / final index pages.
//
//   npx tsc -b && node bench/fts5-merge-policy.bench.mjs [--passes 400] [--seed 1] [--step-pages 100]
import { createRequire } from "node:module";
import { parseArgs } from "node:util";

const requireFromService = createRequire(new URL("../packages/feed-service/package.json", import.meta.url));
const Database = requireFromService("better-sqlite3");
// The demo's seeded generator, so that every policy sees the same history.
const { SeededRandom } = await import(
  new URL("../packages/feed-service/dist/demo/seeded-random.js", import.meta.url).href
);
const { mergeIndexStep, readIndexLevels } = await import(
  new URL("../packages/feed-service/dist/store/sqlite/sqlite-search-maintenance.js", import.meta.url).href
);

const { values } = parseArgs({
  options: {
    passes: { type: "string" },
    seed: { type: "string" },
    "step-pages": { type: "string" },
  },
});
const PASSES = Number(values.passes ?? 400);
const SEED = Number(values.seed ?? 1);
const STEP_PAGES = Number(values["step-pages"] ?? 100);

/** Zipf-like words: the rank-r word about 1/r as frequent, as in text. */
const VOCABULARY = Array.from({ length: 30_000 }, (_, i) => `w${i.toString(36)}`);
function document(next) {
  const words = [];
  for (let i = 0; i < 80; i++) words.push(VOCABULARY[Math.floor(VOCABULARY.length ** next()) - 1]);
  return words.join(" ");
}

/** The index's segments: id -> [first, last] leaf page. */
function segmentsOf(db) {
  const out = new Map();
  for (const level of readIndexLevels(db, "t"))
    for (const s of level.segments) out.set(s.id, [s.first, s.last]);
  return out;
}

/** Leaf pages of `now` that `before` did not hold (a segment's pages are its id and page numbers). */
function freshPages(before, now) {
  let fresh = 0;
  for (const [id, [first, last]] of now) {
    const old = before.get(id);
    const size = last - first + 1;
    if (old === undefined) fresh += size;
    else fresh += size - Math.max(0, Math.min(last, old[1]) - Math.max(first, old[0]) + 1);
  }
  return fresh;
}

const total = (segments) => [...segments.values()].reduce((sum, [first, last]) => sum + last - first + 1, 0);

function run(policy) {
  const db = new Database(":memory:");
  db.exec("CREATE VIRTUAL TABLE t USING fts5(body)");
  const insert = db.prepare("INSERT INTO t (body) VALUES (?)");
  const seeded = new SeededRandom(SEED);
  const next = () => seeded.next();
  let known = new Map();
  let written = 0;
  let stepWritten = 0;
  const count = () => {
    const now = segmentsOf(db);
    const fresh = freshPages(known, now);
    known = now;
    return { fresh, segments: now.size };
  };
  const atRest = [];
  let steps = 0;
  let docs = 0;
  for (let pass = 0; pass < PASSES; pass++) {
    // A pass: the feeds that changed, one transaction each; the first is an import's bulk load.
    const updates = pass === 0 ? 400 : 1 + Math.floor(next() * 40);
    for (let u = 0; u < updates; u++) {
      const posts = 1 + Math.floor(next() * 12);
      db.transaction(() => {
        for (let i = 0; i < posts; i++) insert.run(document(next));
      })();
      docs += posts;
      written += count().fresh;
    }
    if (policy === "tiered") {
      while (mergeIndexStep(db, "t", STEP_PAGES)) {
        steps++;
        const { fresh } = count();
        written += fresh;
        stepWritten += fresh;
      }
    } else if (policy === "whole") {
      const merge = db.prepare("INSERT INTO t (t, rank) VALUES ('merge', ?)");
      const changes = db.prepare("SELECT total_changes()").pluck();
      for (;;) {
        let did = false;
        db.transaction(() => {
          for (const n of [STEP_PAGES, -STEP_PAGES]) {
            const before = changes.get();
            merge.run(n);
            if (changes.get() - before >= 2) {
              did = true;
              return;
            }
          }
        }).immediate();
        if (!did) break;
        steps++;
        const { fresh } = count();
        written += fresh;
        stepWritten += fresh;
      }
    }
    atRest.push(count().segments);
  }
  const final = total(segmentsOf(db));
  db.close();
  const sorted = [...atRest].sort((a, b) => a - b);
  return {
    policy,
    docs,
    finalPages: final,
    written,
    ratio: written / final,
    stepWritten,
    steps,
    segmentsMedian: sorted[Math.floor(sorted.length / 2)],
    segmentsMax: sorted[sorted.length - 1],
    segmentsLast: atRest[atRest.length - 1],
    atRest,
  };
}

console.log(`# ${PASSES} passes, seed ${SEED}, steps of ${STEP_PAGES} pages`);
console.log(
  "| policy | posts | final pages | pages written | written / final | by the steps | steps | segments at rest: median / max / last |",
);
console.log("|---|---|---|---|---|---|---|---|");
for (const policy of ["none", "whole", "tiered"]) {
  const r = run(policy);
  console.log(
    `| ${r.policy} | ${r.docs} | ${r.finalPages} | ${r.written} | ${r.ratio.toFixed(2)} | ${r.stepWritten} | ${r.steps} | ${r.segmentsMedian} / ${r.segmentsMax} / ${r.segmentsLast} |`,
  );
  if (process.env.SHOW_SEGMENTS) console.log(r.atRest.join(" "));
}
