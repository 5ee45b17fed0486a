// What migration 56's wider `clicked_posts_by_feed` (each row's language and counted words beside
// its key, postgres-counted-feed-clicks.ts) costs a click: every click writes a new version of its
// clicked_posts row and an entry in each of its indexes (clicks is in their keys). On a database
// that must not be written (a shared 1M folder), two TEMP copies of clicked_posts, one with the
// indexes as they are and one with the migration's, take the same random clicks (clicks + 1 on a
// random clicked post, one UPDATE a click, as record_click's own UPDATE of the row), in turns,
// `--rounds` rounds of `--clicks` each: ms per 1,000 clicks each way, new/old, and the load.
// A first click's other work (posts, the roll-ups, the click blocks) is the same on both: not here.
//
//   node bench/pg-folder-run.mjs <folder> sh -c 'node bench/postgres-feed-clicks-index.bench.mjs --url "$PG_URL" [--clicks 2000] [--rounds 4]'
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import pg from "pg";

const { values } = parseArgs({
  options: { url: { type: "string" }, clicks: { type: "string" }, rounds: { type: "string" } },
});
const clicks = Number(values.clicks ?? 2000);
const rounds = Number(values.rounds ?? 4);
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const client = new pg.Client({ connectionString: values.url });
await client.connect();
await client.query("SET temp_buffers = '512MB'");
const { rows: indexes } = await client.query(
  "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename = 'clicked_posts' AND indexname NOT LIKE '%pkey'",
);
for (const name of ["old", "new"]) {
  await client.query(`CREATE TEMP TABLE k_${name} AS SELECT * FROM public.clicked_posts`);
  await client.query(`ALTER TABLE k_${name} ADD PRIMARY KEY (id)`);
  for (const { indexname, indexdef } of indexes) {
    if (name === "new" && indexname === "clicked_posts_by_feed") continue;
    await client.query(
      indexdef.replace(/ ON public\.clicked_posts /, ` ON k_${name} `).replace(/INDEX \w+ /, "INDEX "),
    );
  }
  if (name === "new") {
    await client.query("CREATE INDEX ON k_new (feed_id, clicks, id) INCLUDE (language_id, words)");
  }
  await client.query(`VACUUM ANALYZE k_${name}`);
}
const { rows: ids } = await client.query(
  `SELECT id FROM k_old ORDER BY random() LIMIT ${clicks * rounds * 2}`,
);
console.log(`${indexes.length + 1} indexes; ${clicks} clicks a round; load ${load()}`);
console.log("| round | old ms / 1,000 clicks | new ms / 1,000 clicks | new/old | load |");
console.log("|---|---|---|---|---|");
let next = 0;
for (let round = 0; round < rounds; round++) {
  const ms = {};
  for (const name of round % 2 ? ["new", "old"] : ["old", "new"]) {
    const batch = ids.slice(next, next + clicks);
    next += clicks;
    const started = performance.now();
    for (const { id } of batch)
      await client.query(`UPDATE k_${name} SET clicks = clicks + 1 WHERE id = $1`, [id]);
    ms[name] = ((performance.now() - started) * 1000) / clicks;
  }
  console.log(
    `| ${round + 1} | ${ms.old.toFixed(0)} | ${ms.new.toFixed(0)} | ${(ms.new / ms.old).toFixed(2)} | ${load()} |`,
  );
}
await client.end();
