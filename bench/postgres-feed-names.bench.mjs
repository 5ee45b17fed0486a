// What resolving a search's `feed:` costs per call on PostgreSQL (operations/search-filters.ts with
// the store's feed names), with 3,000 and 10,000 feeds (spec §4: up to 10,000), this build against
// a baseline build, alternating call by call on one database, on a small embedded server of its
// own (removed at the end). The feeds' names are drawn from a seeded generator (words of several
// scripts); the `feed:` words are drawn from those names at random, a new one for each call.
// With --renames N, another connection renames a random feed every N calls (what a change costs:
// the names read again).
//
//   npx tsc -b && TMPDIR=<your tree> node bench/postgres-feed-names.bench.mjs
//     --baseline <a copy of packages/feed-service/dist from the other build> [--calls 300] [--renames 0]
//
// The baseline must know the database's schema (it is created by this build; an older build opens
// it as it is).
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { startEmbeddedPostgres } from "./embedded-postgres-server.mjs";

const { values } = parseArgs({
  options: { baseline: { type: "string" }, calls: { type: "string" }, renames: { type: "string" } },
});
const calls = Number(values.calls ?? 300);
const renameEvery = Number(values.renames ?? 0);

const loadBuild = async (name, folder) => ({
  name,
  store: await import(pathToFileURL(`${folder}/store/postgres/postgres-store.js`).href),
  filters: await import(pathToFileURL(`${folder}/operations/search-filters.js`).href),
  parse: await import(pathToFileURL(`${folder}/search/parse-search-query.js`).href),
});
const builds = [await loadBuild("new", new URL("../packages/feed-service/dist", import.meta.url).pathname)];
if (values.baseline) builds.unshift(await loadBuild("old", resolve(values.baseline)));

/** The demo's seeded generator (mulberry32): the same names on every run. */
const { SeededRandom } = await import(
  new URL("../packages/feed-service/dist/demo/seeded-random.js", import.meta.url).href
);
function random(seed) {
  const generator = new SeededRandom(seed);
  return () => generator.next();
}
const SYLLABLES = ["ka", "to", "ri", "mon", "sel", "dra", "vik", "lun", "mar", "ost", "pel", "quin"];
const CJK = ["日本", "東京", "新聞", "技術", "日報", "世界"];
function nameOf(draw) {
  const words = 1 + Math.floor(draw() * 3);
  const parts = [];
  for (let w = 0; w < words; w++) {
    if (draw() < 0.1) parts.push(CJK[Math.floor(draw() * CJK.length)]);
    else {
      let word = "";
      for (let s = 0, n = 2 + Math.floor(draw() * 2); s < n; s++)
        word += SYLLABLES[Math.floor(draw() * SYLLABLES.length)];
      parts.push(word[0].toUpperCase() + word.slice(1));
    }
  }
  return parts.join(" ");
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p90 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)];
const folder = mkdtempSync(join(tmpdir(), "feed-names-bench-"));
const server = await startEmbeddedPostgres(folder, { persistent: false, settings: ["shared_buffers=128MB"] });
try {
  for (const feeds of [3_000, 10_000]) {
    const url = await server.createDatabase(`feed_names_${feeds}`);
    const draw = random(feeds);
    const names = Array.from({ length: feeds }, () => nameOf(draw));
    // Created (and migrated) by this build, the last one loaded.
    const opened = [];
    for (const build of [...builds].reverse()) {
      opened.unshift({ build, store: await build.store.openPostgresStore({ url }) });
    }
    const writer = opened.at(-1).store;
    for (const [i, name] of names.entries()) {
      await writer.addFeed({ feedUrl: `https://feed-${i}.bench.test/rss`, feedName: name });
    }
    const ms = opened.map(() => []);
    const loadBefore = loadavg()[0];
    for (let call = 0; call < calls; call++) {
      if (renameEvery > 0 && call > 0 && call % renameEvery === 0) {
        const id = 1 + Math.floor(draw() * feeds);
        // A refresh that learnt a new title, as ingest writes it.
        await writer.applyFeedUpdate(id, { fetchState: {}, feed: { feedName: nameOf(draw) }, posts: [] });
        names[id - 1] = (await writer.feedNames()).find((f) => f.feedId === id).feedName;
      }
      const words = names[Math.floor(draw() * feeds)].split(" ");
      const word = words[Math.floor(draw() * words.length)].toLowerCase();
      const order = call % 2 === 0 ? opened.map((_, b) => b) : opened.map((_, b) => b).reverse();
      const found = [];
      for (const b of order) {
        const { build, store } = opened[b];
        const query = build.parse.parseSearchQuery(`feed:${word} the`);
        const started = performance.now();
        const resolved = await build.filters.resolveSearchFilters(store, query);
        ms[b].push(performance.now() - started);
        found[b] = [...resolved.filterClauses[0][0].feedIds].sort((x, y) => x - y).join(",");
      }
      if (found.some((f) => f !== found[0])) throw new Error(`the builds resolved feed:${word} differently`);
    }
    const cells = opened.map(
      ({ build }, b) =>
        `${build.name} median ${median(ms[b]).toFixed(3)} ms, p90 ${p90(ms[b]).toFixed(3)} ms`,
    );
    const ratio = opened.length > 1 ? `; new/old medians ${(median(ms[1]) / median(ms[0])).toFixed(3)}` : "";
    console.log(
      `feed: resolution, ${feeds} feeds, ${calls} calls each${renameEvery ? `, a rename every ${renameEvery}` : ""}: ${cells.join("; ")}${ratio}; the same ids on every call; load average ${loadBefore.toFixed(1)} before, ${loadavg()[0].toFixed(1)} after`,
    );
    for (const { store } of opened) await store.close();
  }
} finally {
  await server.stop();
  rmSync(folder, { recursive: true, force: true });
}
