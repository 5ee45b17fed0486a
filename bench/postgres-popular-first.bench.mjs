// PostgreSQL most popular posts (operation 6) at limit 1000, first call on a read connection as
// each build's warm-ups leave it, one build against another on the same server. The start
// warm-up (postgres-warm.ts: pg_prewarm into shared buffers) runs once per build, each keeping
// its own per-connection warm-up (postgres-connection-warm.ts, with the store's prime where the
// build has one) as the store would; then, window by window, each build opens a fresh connection
// with the read pool's settings, lets its per-connection warm-up run (timed), and calls
// mostPopularPosts: the first call, then the median of --repeats more. A fresh connection per
// call is what the service's first call meets on any read connection. Beside each wall time, the
// server process's CPU time and minor page faults for the call (/proc of the backend): on a shared
// machine the wall time is mostly the load's, while a first call's extra CPU and faults are what
// the warm-ups left cold. Builds alternate window by window and swap order each round.
// The windows come from the corpus: the newest 45,000 and 90,000 clicks, half of all clicks, and
// since the first click (the latency bench's popular-posts rows), with no category and with the
// category holding the most clicks. Prints the load average beside each round and whether every
// build answered the same rows and counts. --unprimed adds the new build without its prime.
//
//   npx tsc -b && node bench/postgres-popular-first.bench.mjs --url postgres://... \
//     --baseline <old build's packages/feed-service/dist> [--rounds 2] [--repeats 5] [--no-category]
//     [--unprimed]
// (the 1M folders: node bench/with-bench-postgres.mjs <folder> sh -c '... --url "$PGURL" ...')
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { readPoolOpener, withFreshConnection } from "./postgres-read-pool.mjs";
import { timedOnBackend } from "./postgres-server-cpu.mjs";

const TARGET_MS = 50;
const { values } = parseArgs({
  options: {
    url: { type: "string" },
    baseline: { type: "string" },
    rounds: { type: "string" },
    repeats: { type: "string" },
    "no-category": { type: "boolean" },
    // A third build: the new one without the prime (its B-tree reads only), to tell them apart.
    unprimed: { type: "boolean" },
  },
});
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");

async function build(label, distPath, prime = true) {
  const dist = pathToFileURL(`${resolve(distPath)}/`);
  const imp = (p) => import(new URL(p, dist).href);
  const { openPostgresPool } = await imp("store/postgres/postgres-connection.js");
  const { ConnectionWarmUp } = await imp("store/postgres/postgres-connection-warm.js");
  const { warmPostgres } = await imp("store/postgres/postgres-warm.js");
  const { mostPopularPosts, warmPopularPosts } = await imp("store/postgres/postgres-popular-posts.js");
  // As postgres-store.ts builds it: a build whose warm-up takes a prime (answering popular posts
  // once in each way on each connection) gets the store's; an older one ignores the argument.
  const connections = new ConnectionWarmUp(prime ? (client) => warmPopularPosts(client) : undefined);
  // The read pool's settings (postgres-store.ts READ_SETTINGS) and the store's type parsers.
  const open = readPoolOpener(openPostgresPool, values.url);
  const admin = await open();
  const started = performance.now();
  const report = await warmPostgres(admin, undefined, undefined, connections);
  await admin.end();
  console.log(
    `${label}: start warm-up ${((performance.now() - started) / 1000).toFixed(1)} s, ${Math.round(report.bytes / 2 ** 20)} MB in shared buffers${report.skipped ? ` (${report.skipped})` : ""} (load ${load()})`,
  );
  return { label, open, connections, mostPopularPosts };
}

const builds = [await build("old", values.baseline), await build("new", "packages/feed-service/dist")];
if (values.unprimed) builds.push(await build("unprimed", "packages/feed-service/dist", false));

const probe = await builds[0].open();
const clicksAt = async (offset) =>
  (
    await probe.query(
      "SELECT clicked_at::float8 AS at FROM clicks ORDER BY clicked_at DESC OFFSET $1 LIMIT 1",
      [offset],
    )
  ).rows[0].at;
const [{ total }] = (await probe.query("SELECT count(*)::float8 AS total FROM clicks")).rows;
const [{ first }] = (await probe.query("SELECT min(clicked_at)::float8 AS first FROM clicks")).rows;
const [{ category }] = (
  await probe.query(
    "SELECT category_id AS category FROM clicked_posts WHERE category_id IS NOT NULL GROUP BY category_id ORDER BY sum(clicks) DESC LIMIT 1",
  )
).rows;
const windows = [
  { label: "newest 45,000 clicks", since: await clicksAt(44_999) },
  { label: "newest 90,000 clicks", since: await clicksAt(89_999) },
  { label: "half the clicks", since: await clicksAt(Math.floor(total / 2) - 1) },
  { label: "since the first click", since: first },
];
await probe.end();
const cases = windows.flatMap((w) =>
  [null, ...(values["no-category"] ? [] : [category])].map((categoryId) => ({
    label: `${w.label}${categoryId === null ? "" : `, category ${categoryId}`}`,
    args: { since: w.since, limit: 1000, categoryId },
  })),
);

async function firstCall(b, args, repeats) {
  return withFreshConnection(b.open, b.connections.onConnect, async (client, pid) => {
    const warmMs = b.connections.timings.at(-1);
    const calls = [];
    for (let i = 0; i <= repeats; i++)
      calls.push(await timedOnBackend(pid, () => b.mostPopularPosts(client, args)));
    const med = (xs) => xs.slice(1).sort((x, y) => x - y)[Math.floor((xs.length - 1) / 2)] ?? xs[0];
    const [times, cpu, faults] = ["ms", "cpu", "faults"].map((k) => calls.map((c) => c[k]));
    return {
      first: times[0],
      median: med(times),
      firstCpu: cpu[0],
      medianCpu: med(cpu),
      firstFaults: faults[0],
      medianFaults: med(faults),
      warmMs,
      key: calls[0].answer.map((r) => `${r.postId}:${r.periodClicks}`).join(","),
    };
  });
}

const rounds = Number(values.rounds ?? 2);
const repeats = Number(values.repeats ?? 5);
const results = new Map(cases.map((c) => [c.label, { old: [], new: [], unprimed: [], same: true }]));
for (let round = 0; round < rounds; round++) {
  console.log(`\nround ${round + 1} (load ${load()})`);
  for (const c of cases) {
    const order = round % 2 === 0 ? builds : [...builds].reverse();
    const got = {};
    for (const b of order) got[b.label] = await firstCall(b, c.args, repeats);
    const r = results.get(c.label);
    for (const b of builds) {
      r[b.label].push(got[b.label]);
      if (got[b.label].key !== got.old.key) r.same = false;
    }
    const f = (x) =>
      `${x.first.toFixed(1)} / ${x.median.toFixed(1)} (server CPU ${x.firstCpu.toFixed(1)} / ${x.medianCpu.toFixed(1)}, faults ${x.firstFaults} / ${x.medianFaults}; warm-up ${x.warmMs?.toFixed(0) ?? "-"} ms)`;
    console.log(`  ${c.label.padEnd(36)} ${builds.map((b) => `${b.label} ${f(got[b.label])}`).join("   ")}`);
  }
}

console.log(
  `\nfirst / median of ${repeats} ms (the server process's CPU ms and minor faults), median over ${rounds} rounds; new first as a share of ${TARGET_MS} ms (load ${load()})`,
);
const mid = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)];
};
for (const [label, r] of results) {
  const pick = (xs) =>
    Object.fromEntries(
      Object.keys(xs[0])
        .filter((k) => k !== "key")
        .map((k) => [k, mid(xs.map((x) => x[k]))]),
    );
  const o = pick(r.old);
  const n = pick(r.new);
  const f = (x) =>
    `${x.first.toFixed(1)} / ${x.median.toFixed(1)} (CPU ${x.firstCpu.toFixed(1)} / ${x.medianCpu.toFixed(1)}, faults ${x.firstFaults} / ${x.medianFaults})`;
  const p = r.unprimed.length > 0 ? `   unprimed ${f(pick(r.unprimed))}` : "";
  console.log(
    `  ${label.padEnd(28)} old ${f(o)}   new ${f(n)}${p}   new first ${(n.first / TARGET_MS).toFixed(2)}x, its server CPU ${(n.firstCpu / TARGET_MS).toFixed(2)}x   ${r.same ? "same rows" : "ROWS DIFFER"}`,
  );
}
