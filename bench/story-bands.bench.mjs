#!/usr/bin/env node
// What a refresh's story checks cost on a large SQLite corpus, in schema 18's band layout (one
// index of (band, post_date, post_id) over all time) and in migration 22's (rows keyed by post,
// found through an index by day), in one run (run `npx tsc -b` first; imports the built package):
//  1. a copy of the corpus (a schema 19-21 database of bench/shape-corpus.mjs) into TMPDIR;
//  2. the N most recently dated posts with a text print lose their story rows; then, 100 posts
//     per transaction as a refresh writes them, each post's text look-up and its key and band
//     rows, timed (process CPU and wall);
//  3. migration 22 on the copy, timed; then step 2 again in the new layout.
// Ratio = migration 22's layout / schema 18's. The copy is removed at the end.
//   node bench/story-bands.bench.mjs --corpus /path/long-tail-1000000.db [--posts 3000]
import { constants, copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { migrateSqlite } from "../packages/feed-service/dist/store/sqlite/sqlite-migrations.js";

const { values } = parseArgs({ options: { corpus: { type: "string" }, posts: { type: "string" } } });
if (!values.corpus) throw new Error("--corpus <a SQLite corpus at schema 19-21> is required");
const N = Number(values.posts ?? 3000);
const require = createRequire(new URL("../packages/feed-service/package.json", import.meta.url));
const Database = require("better-sqlite3");
const dir = mkdtempSync(join(tmpdir(), "story-bands-bench-"));
const path = join(dir, "corpus.db");
const cpu = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

function open() {
  const db = new Database(path);
  // The store's pragmas (sqlite-connection.ts).
  for (const p of ["journal_mode = WAL", "synchronous = NORMAL", "foreign_keys = ON", "cache_size = -65536"])
    db.pragma(p);
  db.pragma("temp_store = MEMORY");
  return db;
}

const W = 3 * 86_400_000;
const DAY = 86_400_000;
const days = (from, to) => {
  const out = [];
  for (let d = Math.trunc(from / DAY); d <= Math.trunc(to / DAY); d++) out.push(d);
  return JSON.stringify(out);
};
// The look-ups of sqlite-story-writer.ts before and after migration 22.
const lookups = {
  "schema 18": {
    sql: `SELECT b.post_id AS postId, k.print FROM story_bands b JOIN story_keys k ON k.post_id = b.post_id
      WHERE b.band IN (SELECT value FROM json_each(?)) AND b.post_date BETWEEN ? AND ? LIMIT 32`,
    args: (r) => [r.bands, r.post_date - W, r.post_date + W],
  },
  "migration 22": {
    sql: `SELECT b.post_id AS postId, k.print FROM story_bands b JOIN story_keys k ON k.post_id = b.post_id
      WHERE b.post_date / 86400000 IN (SELECT value FROM json_each(?)) AND b.band IN (SELECT value FROM json_each(?))
        AND b.post_date BETWEEN ? AND ? LIMIT 32`,
    args: (r) => [days(r.post_date - W, r.post_date + W), r.bands, r.post_date - W, r.post_date + W],
  },
};

function refresh(layout) {
  const db = open();
  try {
    const rows = db
      .prepare(`SELECT k.post_id, k.link_key, k.print, p.post_date,
        (SELECT json_group_array(band) FROM story_bands b WHERE b.post_id = k.post_id) AS bands
        FROM posts p INDEXED BY posts_by_date JOIN story_keys k ON k.post_id = p.id
        WHERE k.print IS NOT NULL ORDER BY p.post_date DESC LIMIT ${N}`)
      .all()
      .reverse();
    db.transaction(() => {
      for (const r of rows) {
        db.prepare("DELETE FROM story_bands WHERE post_id = ?").run(r.post_id);
        db.prepare("DELETE FROM story_keys WHERE post_id = ?").run(r.post_id);
      }
    })();
    db.pragma("wal_checkpoint(TRUNCATE)");
    const look = db.prepare(lookups[layout].sql);
    const key = db.prepare("INSERT INTO story_keys (post_id, link_key, print) VALUES (?, ?, ?)");
    const bands = db.prepare(
      "INSERT OR IGNORE INTO story_bands (band, post_date, post_id) SELECT value, ?, ? FROM json_each(?)",
    );
    let lookCpu = 0;
    let found = 0;
    const c0 = cpu();
    const t0 = performance.now();
    for (let i = 0; i < rows.length; i += 100) {
      db.transaction(() => {
        const batch = rows.slice(i, i + 100);
        const l0 = cpu();
        for (const r of batch) found += look.all(...lookups[layout].args(r)).length;
        lookCpu += cpu() - l0;
        for (const r of batch) {
          key.run(r.post_id, r.link_key, r.print);
          bands.run(r.post_date, r.post_id, r.bands);
        }
      })();
    }
    return {
      posts: rows.length,
      lookUs: lookCpu / rows.length,
      cpuUs: (cpu() - c0) / rows.length,
      wallUs: ((performance.now() - t0) * 1000) / rows.length,
      found,
    };
  } finally {
    db.close();
  }
}

try {
  copyFileSync(values.corpus, path, constants.COPYFILE_FICLONE);
  const before = refresh("schema 18");
  const db = open();
  const m0 = cpu();
  const t0 = performance.now();
  migrateSqlite(db, 22, () => {});
  const migration = { wall: (performance.now() - t0) / 1000, cpu: (cpu() - m0) / 1e6 };
  const bandRows = db.prepare("SELECT count(*) FROM story_bands").pluck().get();
  db.close();
  const after = refresh("migration 22");
  console.log(`\nstory checks of ${before.posts} new posts, 100 per transaction, on ${values.corpus}`);
  const row = (name, r) => [
    name,
    r.lookUs.toFixed(1),
    r.cpuUs.toFixed(1),
    r.wallUs.toFixed(1),
    r.found,
    `${(r.cpuUs / before.cpuUs).toFixed(2)}x`,
    `${(r.wallUs / before.wallUs).toFixed(2)}x`,
  ];
  const table = [
    [
      "band layout",
      "look-up CPU us/post",
      "all CPU us/post",
      "all wall us/post",
      "candidates",
      "CPU ratio",
      "wall ratio",
    ],
    row("schema 18: (band, post_date, post_id)", before),
    row("migration 22: key (post_id, band), index by day", after),
  ];
  const widths = table[0].map((_, i) => Math.max(...table.map((r) => String(r[i]).length)));
  for (const r of table) console.log(r.map((c, i) => String(c).padEnd(widths[i])).join("  "));
  console.log(
    `migration 22: ${bandRows} band rows moved in ${migration.wall.toFixed(1)} s wall, ${migration.cpu.toFixed(1)} s CPU`,
  );
  console.log(
    `load average at the end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
