// PostgreSQL most popular posts (operation 6) at limit 1000 from each clicked post's n-th newest
// clicks, measured beside the build's own mostPopularPosts on one connection, before any migration
// exists for it: the structure is built as TEMPORARY tables from the clicks (read only: nothing of
// the database is written), so it may run on a shared corpus.
//
// The structure (SQLite's migrations 26 and 27, bench/NOTES.md): a post has at least n clicks in a
// window that ends now exactly when its n-th newest click is in the window. `levels` holds each
// clicked post's n-th newest click time for n = 1..--consecutive, then the powers of two above it
// (`pow2`: the powers of two only), with its category and date, indexed by (level, time) and
// (level, category, time). `ordinals` numbers each post's clicks in click order: a post's clicks
// at or after `since` = its newest ordinal - its first ordinal at or after `since` + 1 (two seeks).
// The ranking counts each level's range from the highest level down to the first holding `limit`
// posts L (so every post of the page has at least L clicks in the window), then reads the ranges
// L..consecutive: a post found in k of them below the last has L - 1 + k clicks, one in the last
// is counted from its ordinals; above the consecutive levels every post of level L is counted.
// The page's columns come as the build's walk reads them (one statement by id).
//
// Per window and category: backend CPU ms (/proc/<backend>/schedstat: root or the server's user)
// and wall ms of the build's call and of the two level sets, the first call then the median of
// --repeats, the order rotated each repeat; whether all three answered the same ids and counts in
// the same order. --upkeep N: N clicks at now on posts drawn as the clicks fall, each an insert
// into `ordinals` alone and then with the levels moved (every level row of the post onto the click
// now at its depth, a new row where the post reaches a level), in one transaction rolled back,
// the two alternating in blocks: the CPU a click's level upkeep would add (temporary tables write
// no WAL: a lower bound of a real table's cost).
// --delta D adds a fourth way: the levels and ordinals as of the click D from the newest by id
// (a refresh point), the D clicks after it added at read (the candidates: the level ranges and the
// posts clicked since), and times a refresh of those D clicks (their posts' levels and ordinals
// computed again, rolled back): the upkeep a periodic refresh would cost instead of a trigger.
//
//   npx tsc -b && node bench/postgres-popular-levels-probe.mjs --url postgres://... \
//     [--days 485 --days 880 ...] [--category none --category 7] [--repeats 3] [--upkeep 2000]
//     [--consecutive 16] [--delta 2000] [--dist <a build's packages/feed-service/dist>]
// (the 1M folders: node bench/with-bench-postgres.mjs <folder> sh -c '... --url "$PGURL" ...')
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    dist: { type: "string" },
    days: { type: "string", multiple: true },
    category: { type: "string", multiple: true },
    repeats: { type: "string" },
    upkeep: { type: "string" },
    consecutive: { type: "string" },
    delta: { type: "string" },
  },
});
const dist = values.dist
  ? pathToFileURL(`${resolve(values.dist)}/`)
  : new URL("../packages/feed-service/dist/", import.meta.url);
const imp = (p) => import(new URL(p, dist).href);
const { openPostgresPool } = await imp("store/postgres/postgres-connection.js");
const { mostPopularPosts } = await imp("store/postgres/postgres-popular-posts.js");
const { POST_COLUMNS, POST_JOINS, NEWEST_FIRST } = await imp("store/postgres/postgres-columns.js");

const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");
const LIMIT = 1000;
const DAY = 86_400_000;
const CONSECUTIVE = Number(values.consecutive ?? 16);
const powersFrom = (first) => {
  const out = [];
  for (let n = first; n <= 4096; n *= 2) out.push(n);
  return out;
};
const SETS = {
  levels: {
    levels: [...Array.from({ length: CONSECUTIVE }, (_, i) => i + 1), ...powersFrom(CONSECUTIVE * 2)],
    consecutive: CONSECUTIVE,
  },
  pow2: { levels: powersFrom(1), consecutive: 2 },
};

// The read pool's settings (postgres-store.ts READ_SETTINGS) and the store's type parsers; the
// temporary tables get a local buffer pool of their own size.
const pool = await openPostgresPool({
  url: values.url,
  max: 1,
  createSchema: false,
  settings: { work_mem: "32MB", enable_seqscan: "off", max_parallel_workers_per_gather: 0, jit: "off" },
});
const client = await pool.connect();
const q = async (text, params) => (await client.query(text, params)).rows;
const [{ pid }] = await q("SELECT pg_backend_pid() AS pid");
const cpuMs = () => Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;

await q("SET temp_buffers = '768MB'");
await q("SET enable_seqscan = on");
const started = performance.now();
await q(`CREATE TEMPORARY TABLE ordinals AS SELECT post_id, clicked_at AS at,
  row_number() OVER (PARTITION BY post_id ORDER BY clicked_at, id)::int AS ord FROM clicks`);
await q("CREATE INDEX ON ordinals (post_id, at, ord)");
for (const [name, set] of Object.entries(SETS)) {
  await q(
    `CREATE TEMPORARY TABLE ${name} AS SELECT k.post_id, k.n AS level, k.at, p.category_id, p.post_date
      FROM (SELECT post_id, clicked_at AS at, row_number() OVER (PARTITION BY post_id ORDER BY clicked_at DESC, id DESC)::int AS n
        FROM clicks) k JOIN clicked_posts p ON p.id = k.post_id WHERE k.n = ANY($1::int[])`,
    [set.levels],
  );
  await q(`CREATE INDEX ON ${name} (level, at) INCLUDE (post_id, post_date)`);
  await q(`CREATE INDEX ON ${name} (level, category_id, at) INCLUDE (post_id, post_date)`);
  await q(`CREATE INDEX ON ${name} (post_id, level)`);
  // Sets the visibility map, so that the ranges are read index-only as a real table's would be.
  await q(`VACUUM ANALYZE ${name}`);
}
await q("VACUUM ANALYZE ordinals");
// --delta D: the levels and ordinals as of the click D from the newest by id, the later D clicks
// being those since the last refresh.
const delta = Number(values.delta ?? 0);
let lastId = 0;
if (delta > 0) {
  [{ id: lastId }] = await q("SELECT id FROM clicks ORDER BY id DESC OFFSET $1 LIMIT 1", [delta]);
  await q(
    `CREATE TEMPORARY TABLE snapshot_ordinals AS SELECT post_id, clicked_at AS at,
    row_number() OVER (PARTITION BY post_id ORDER BY clicked_at, id)::int AS ord FROM clicks WHERE id <= $1`,
    [lastId],
  );
  await q("CREATE INDEX ON snapshot_ordinals (post_id, at, ord)");
  await q(
    `CREATE TEMPORARY TABLE snapshot AS SELECT k.post_id, k.n AS level, k.at, p.category_id, p.post_date
      FROM (SELECT post_id, clicked_at AS at, row_number() OVER (PARTITION BY post_id ORDER BY clicked_at DESC, id DESC)::int AS n
        FROM clicks WHERE id <= $2) k JOIN clicked_posts p ON p.id = k.post_id WHERE k.n = ANY($1::int[])`,
    [SETS.levels.levels, lastId],
  );
  await q("CREATE INDEX ON snapshot (level, at) INCLUDE (post_id, post_date)");
  await q("CREATE INDEX ON snapshot (level, category_id, at) INCLUDE (post_id, post_date)");
  await q("CREATE INDEX ON snapshot (post_id, level)");
  await q("VACUUM ANALYZE snapshot");
  await q("VACUUM ANALYZE snapshot_ordinals");
}
await q("SET enable_seqscan = off");
const [sizes] = await q(
  "SELECT (SELECT count(*) FROM levels) AS levels, (SELECT count(*) FROM pow2) AS pow2, (SELECT count(*) FROM ordinals) AS clicks",
);
console.log(
  `temporary tables in ${((performance.now() - started) / 1000).toFixed(1)} s: ${sizes.levels} level rows (1..${CONSECUTIVE}, then powers of two), ${sizes.pow2} (powers of two), ${sizes.clicks} clicks; load ${load()}`,
);

const exact = (id, ordinals = "ordinals") => `coalesce(
  (SELECT o.ord FROM ${ordinals} o WHERE o.post_id = ${id} ORDER BY o.at DESC, o.ord DESC LIMIT 1)
  - (SELECT o.ord FROM ${ordinals} o WHERE o.post_id = ${id} AND o.at >= $1 ORDER BY o.at, o.ord LIMIT 1) + 1, 0)`;

/** The level the ranking reads from: the deepest whose range in the window holds LIMIT posts. */
async function startLevel(table, set, since, categoryId) {
  const inCategory = categoryId === null ? "" : " AND category_id = $3";
  for (const level of [...set.levels].reverse()) {
    const [{ n }] = await q(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM ${table} WHERE level = $1 AND at >= $2${inCategory} LIMIT ${LIMIT}) x`,
      categoryId === null ? [level, since] : [level, since, categoryId],
    );
    if (n >= LIMIT) return level;
  }
  return set.levels[0];
}

/** The candidates' counts from the levels ($1 since, $2 the start level, $3 the last consecutive). */
function fromLevels(table, set, at, inCategory, ordinals = "ordinals") {
  return at <= set.consecutive
    ? `SELECT post_id AS id, post_date, CASE WHEN deep THEN ${exact("c.post_id", ordinals)} ELSE n END AS period
        FROM (SELECT post_id, max(post_date) AS post_date, count(*)::int + $2 - 1 AS n, bool_or(level = $3) AS deep
          FROM ${table} WHERE level >= $2 AND level <= $3 AND at >= $1${inCategory} GROUP BY post_id) c`
    : `SELECT post_id AS id, post_date, ${exact("l.post_id", ordinals)} AS period FROM ${table} l
        WHERE level = $2 AND at >= $1 AND $3::int > 0${inCategory}`;
}

async function rankByLevels(table, set, since, categoryId) {
  const at = await startLevel(table, set, since, categoryId);
  const inCategory = categoryId === null ? "" : " AND category_id = $4";
  const ranked = await q(
    `SELECT id, period FROM (${fromLevels(table, set, at, inCategory)}) r
      ORDER BY period DESC, post_date DESC, id DESC LIMIT ${LIMIT}`,
    categoryId === null ? [since, at, set.consecutive] : [since, at, set.consecutive, categoryId],
  );
  return { level: at, ranked };
}

/**
 * The same from levels and ordinals as of click id $4 (`snapshot`, `snapshot_ordinals`), with the
 * clicks after it added: a post outside the level ranges had at most L - 1 clicks in the window
 * then, so the candidates are the ranges and the posts clicked since; those alone are counted
 * from their clicks.
 */
async function rankBySnapshot(since, categoryId, lastId) {
  const set = SETS.levels;
  const at = await startLevel("snapshot", set, since, categoryId);
  const inCategory = categoryId === null ? "" : " AND category_id = $5";
  const ranked = await q(
    `WITH c AS MATERIALIZED (${fromLevels("snapshot", set, at, inCategory, "snapshot_ordinals")}),
      d AS (SELECT k.post_id AS id, p.post_date, count(*)::int AS n FROM clicks k JOIN clicked_posts p ON p.id = k.post_id
        WHERE k.id > $4 AND k.clicked_at >= $1${inCategory.replace("category_id", "p.category_id")} GROUP BY k.post_id, p.post_date)
    SELECT id, period FROM (
      SELECT c.id, c.post_date, c.period + coalesce(d.n, 0) AS period FROM c LEFT JOIN d ON d.id = c.id
      UNION ALL
      SELECT d.id, d.post_date, (SELECT count(*)::int FROM clicks k WHERE k.post_id = d.id AND k.clicked_at >= $1)
        FROM d WHERE NOT EXISTS (SELECT 1 FROM c WHERE c.id = d.id)) r
    ORDER BY period DESC, post_date DESC, id DESC LIMIT ${LIMIT}`,
    categoryId === null
      ? [since, at, set.consecutive, lastId]
      : [since, at, set.consecutive, lastId, categoryId],
  );
  return { level: at, ranked };
}

function withColumns(ranked) {
  return q(
    `SELECT ${POST_COLUMNS}, r.period AS "periodClicks"
      FROM unnest($1::int[], $2::int[]) AS r(id, period) JOIN posts p ON p.id = r.id ${POST_JOINS}
      ORDER BY r.period DESC, ${NEWEST_FIRST}`,
    [ranked.map((r) => r.id), ranked.map((r) => r.period)],
  );
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const repeats = Number(values.repeats ?? 3);
const now = Date.now();
const days = (values.days ?? ["880", "485", "385", "469"]).map(Number);
const categories = (values.category ?? ["none"]).map((c) => (c === "none" ? null : Number(c)));
const ways = ["build", "levels", "pow2", ...(delta > 0 ? ["snapshot"] : [])];
console.log(
  "\nbackend CPU ms / wall ms: first call, then the median of the repeats; L = the level the ranking reads from",
);
console.log(
  `| window | build | levels (L) | pow2 (L) |${delta > 0 ? ` levels as of ${delta} clicks ago (L) |` : ""} same rows | load |`,
);
console.log(`|---|---|---|---|${delta > 0 ? "---|" : ""}---|---|`);
for (const d of days) {
  for (const categoryId of categories) {
    const since = now - d * DAY;
    const times = Object.fromEntries(ways.map((w) => [w, []]));
    const level = {};
    const answers = new Set();
    for (let r = 0; r <= repeats; r++) {
      const order = ways.map((_, i) => ways[(i + r) % ways.length]);
      for (const way of order) {
        const cpu0 = cpuMs();
        const wall0 = performance.now();
        let page;
        if (way === "build") page = await mostPopularPosts(client, { since, limit: LIMIT, categoryId });
        else {
          const found =
            way === "snapshot"
              ? await rankBySnapshot(since, categoryId, lastId)
              : await rankByLevels(way, SETS[way], since, categoryId);
          level[way] = found.level;
          page = await withColumns(found.ranked);
        }
        times[way].push([cpuMs() - cpu0, performance.now() - wall0]);
        answers.add(page.map((p) => `${p.postId}:${p.periodClicks}`).join(","));
      }
    }
    const cell = (way) => {
      const [first, ...rest] = times[way];
      const m = (i) => median(rest.map((t) => t[i])).toFixed(1);
      return `${first[0].toFixed(1)} / ${first[1].toFixed(1)}; ${m(0)} / ${m(1)}${level[way] ? ` (L ${level[way]})` : ""}`;
    };
    console.log(
      `| daysBack ${d}${categoryId === null ? "" : ` category ${categoryId}`} | ${cell("build")} | ${cell("levels")} | ${cell("pow2")} |${delta > 0 ? ` ${cell("snapshot")} |` : ""} ${answers.size === 1 ? "yes" : "NO"} | ${load()} |`,
    );
  }
}

if (delta > 0) {
  // A refresh: the levels and ordinals of every post clicked since the snapshot computed again from
  // all its clicks (an upper bound: appended clicks could extend the ordinals instead), in a
  // transaction rolled back, three times.
  const posts = "SELECT DISTINCT post_id FROM clicks WHERE id > $1";
  console.log(`\nrefresh of the ${delta} clicks since the snapshot, load ${load()}`);
  for (let i = 0; i < 3; i++) {
    await q("BEGIN");
    const cpu0 = cpuMs();
    const wall0 = performance.now();
    await q(`DELETE FROM snapshot WHERE post_id IN (${posts})`, [lastId]);
    await q(
      `INSERT INTO snapshot SELECT k.post_id, k.n, k.at, p.category_id, p.post_date
        FROM (SELECT c.post_id, c.clicked_at AS at, row_number() OVER (PARTITION BY c.post_id ORDER BY c.clicked_at DESC, c.id DESC)::int AS n
          FROM clicks c WHERE c.post_id IN (${posts})) k JOIN clicked_posts p ON p.id = k.post_id WHERE k.n = ANY($2::int[])`,
      [lastId, SETS.levels.levels],
    );
    await q(`DELETE FROM snapshot_ordinals WHERE post_id IN (${posts})`, [lastId]);
    await q(
      `INSERT INTO snapshot_ordinals SELECT c.post_id, c.clicked_at,
        row_number() OVER (PARTITION BY c.post_id ORDER BY c.clicked_at, c.id)::int FROM clicks c WHERE c.post_id IN (${posts})`,
      [lastId],
    );
    const cpu = cpuMs() - cpu0;
    const [{ n }] = await q(`SELECT count(*)::int AS n FROM (${posts}) x`, [lastId]);
    await q("ROLLBACK");
    console.log(
      `  ${n} posts: ${cpu.toFixed(1)} ms backend CPU, ${(performance.now() - wall0).toFixed(1)} ms wall: ${((cpu / delta) * 1000).toFixed(0)} µs a click`,
    );
  }
}

const clicks = Number(values.upkeep ?? 0);
if (clicks > 0) {
  // A click at now: its ordinal the post's newest + 1; each level row of the post moves onto the
  // click now at its depth (ordinal newest - level + 1), and the post's first row at a level it
  // has just reached is added.
  await q("CREATE INDEX ON ordinals (post_id, ord)");
  const posts = (
    await q("SELECT post_id FROM ordinals TABLESAMPLE BERNOULLI (2) LIMIT $1", [clicks * 2])
  ).map((r) => r.post_id);
  const insert =
    "INSERT INTO ordinals SELECT $1, $2, coalesce(max(ord), 0) + 1 FROM ordinals WHERE post_id = $1";
  const move = (table) => `WITH n AS (SELECT max(ord) AS m FROM ordinals WHERE post_id = $1),
      moved AS (UPDATE ${table} l SET at = (SELECT o.at FROM ordinals o, n WHERE o.post_id = l.post_id AND o.ord = n.m - l.level + 1)
        WHERE l.post_id = $1 RETURNING 1)
    INSERT INTO ${table} (post_id, level, at, category_id, post_date)
      SELECT $1, n.m, (SELECT o.at FROM ordinals o WHERE o.post_id = $1 ORDER BY o.ord LIMIT 1), p.category_id, p.post_date
      FROM n, clicked_posts p WHERE p.id = $1 AND n.m = ANY($2::int[])`;
  await q("BEGIN");
  const block = Math.max(1, Math.floor(clicks / 4));
  const kinds = [
    "insert only",
    "insert + levels",
    "insert only",
    "insert + pow2",
    "insert only",
    "insert + levels",
  ];
  let at = Date.now();
  console.log(`\nupkeep: ${block} clicks a block, load ${load()}`);
  for (const [i, kind] of kinds.entries()) {
    const batch = posts.slice((i * block) % posts.length, ((i * block) % posts.length) + block);
    const cpu0 = cpuMs();
    const wall0 = performance.now();
    for (const post of batch) {
      at += 1;
      // Named statements: planned once, as a trigger's statements are (PL/pgSQL's plan cache).
      await client.query({ name: "click", text: insert, values: [post, at] });
      if (kind !== "insert only") {
        const table = kind === "insert + levels" ? "levels" : "pow2";
        await client.query({ name: table, text: move(table), values: [post, SETS[table].levels] });
      }
    }
    const per = (ms) => ((ms / batch.length) * 1000).toFixed(0);
    console.log(
      `  ${kind}: ${per(cpuMs() - cpu0)} µs backend CPU a click, ${per(performance.now() - wall0)} µs wall (load ${load()})`,
    );
  }
  await q("ROLLBACK");
}
client.release();
await pool.end();
