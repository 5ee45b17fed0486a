// What a click costs on SQLite (Store.recordClick: the dedupe check, the click row, the post's
// counter and, since schema 23, the post's row of the clicked posts' index re-keyed), this build
// against a baseline build, on the same shaped corpus, in alternating rounds so that the machine's
// load weighs on both alike. Two draws of posts: already clicked ones (their index row deleted and
// written again) and any post (mostly a first click: a row written). Each build clicks its own
// posts (odd ids for this build, even for the baseline): the baseline does not keep the clicked
// index, so a post it clicked is left with a stale row there: run this after the search benches
// on a copy, or on a copy of its own.
//
//   npx tsc -b && TMPDIR=<your copy tree> node bench/sqlite-click.bench.mjs
//     [--shape long-tail] [--posts 1000000] [--baseline <a copy of the other build's dist>]
//     [--clicks 400] [--rounds 6]
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { loadBuilds } from "./builds-under-test.mjs";
import { openShapeCorpus } from "./shape-corpus.mjs";

const requireFromService = createRequire(new URL("../packages/feed-service/package.json", import.meta.url));

const { values } = parseArgs({
  options: {
    shape: { type: "string" },
    posts: { type: "string" },
    baseline: { type: "string" },
    clicks: { type: "string" },
    rounds: { type: "string" },
  },
});
const shape = values.shape ?? "long-tail";
const posts = Number(values.posts ?? 1_000_000);
const perRound = Number(values.clicks ?? 400);
const rounds = Number(values.rounds ?? 6);

const builds = await loadBuilds(values.baseline);

/** A small deterministic generator (a linear congruential one): the same draws every run. */
function random(seed) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

const { path } = await openShapeCorpus(shape, posts);
const opened = [];
for (const build of builds) opened.push({ build, store: await build.openStore(path) });
// The post ids of each draw, read once (read only): each build takes its own parity.
const Database = requireFromService("better-sqlite3");
const db = new Database(path, { readonly: true });
const draws = {
  "clicked posts": db.prepare("SELECT id FROM posts WHERE clicks > 0").pluck().all(),
  "any post": db.prepare("SELECT id FROM posts").pluck().all(),
};
db.close();

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const loadBefore = loadavg()[0];
console.log(
  `\nclicks on SQLite, shape ${shape}: ${perRound} clicks a round, ${rounds} rounds a build, alternating`,
);
console.log(
  ["draw", ...opened.map(({ build }) => `${build.name} clicks/s (median, min-max)`), "new/old"].join(" | "),
);
let at = Date.now();
for (const [label, ids] of Object.entries(draws)) {
  const rates = opened.map(() => []);
  const next = random(17);
  for (let round = 0; round < rounds; round++) {
    const order = opened.map((_, b) => b);
    if (round % 2 === 1) order.reverse();
    for (const b of order) {
      const parity = opened[b].build.name === "old" ? 0 : 1;
      const started = performance.now();
      for (let i = 0; i < perRound; i++) {
        let id = ids[Math.floor(next() * ids.length)];
        if (id % 2 !== parity) id += id > 1 ? -1 : 1;
        // A new client every click: no dedupe window hides one.
        await opened[b].store.recordClick(id, `bench-${b}-${round}-${i}`, at++, 60_000);
      }
      rates[b].push((perRound * 1000) / (performance.now() - started));
    }
  }
  const cells = rates.map(
    (r) => `${median(r).toFixed(0)} (${Math.min(...r).toFixed(0)}-${Math.max(...r).toFixed(0)})`,
  );
  const ratio = rates.length > 1 ? (median(rates[1]) / median(rates[0])).toFixed(2) : "—";
  console.log([label, ...cells, ratio].join(" | "));
}
console.log(
  `load average ${loadBefore.toFixed(1)} before, ${loadavg()[0].toFixed(1)} after (2 cores, shared)`,
);
for (const { store } of opened) await store.close();
