// Pages by clicks of a counted word within `feed:` (migration 56, postgres-counted-feed-clicks.ts),
// and of a counted word within languages (`lang:de the`: the word plans), against a build without them, on a database that must not be migrated (a shared 1M folder at an
// older schema). This build's connection gets the migration's objects as TEMP tables (they shadow
// the database's own for that connection alone and go when it ends; nothing is written to the
// database's tables): the word's counts per feed and block, and a copy of clicked_posts with the
// migration's index (and the indexes it had). The baseline runs on a connection of its own, on
// the database as it is. Old and new in turns, each page six rounds (the order swapped each
// round): the first call, the median of the other five, the backend's CPU (/proc/<pid>/stat, 10
// ms ticks), new/old, and whether both builds answered the same pages.
//
//   npx tsc -b && node bench/pg-folder-run.mjs <folder> sh -c 'node bench/postgres-counted-feed-clicks.bench.mjs \
//     --url "$PG_URL" --baseline <old checkout>/packages/feed-service/dist [--word the] \
//     [--pages "feed:日 the@0+1000,feed:日 the@15232+20"] [--explain [--plans]]
//
// --explain: after the table, EXPLAIN (ANALYZE, BUFFERS) of each statement this build's search runs
// for each page (after the rounds: warm buffers).'
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { explainRecorded, openExplainClient, recordingSql } from "./explain-statements.mjs";

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    baseline: { type: "string" },
    word: { type: "string" },
    pages: { type: "string" },
    explain: { type: "boolean" },
    plans: { type: "boolean" },
  },
});
const NEW = new URL("../packages/feed-service/dist/", import.meta.url);
const OLD = pathToFileURL(`${resolve(values.baseline)}/`);
const conn = { old: await openExplainClient(OLD, values.url), new: await openExplainClient(NEW, values.url) };
const client = conn.new.client;
const imp = (dist, path) => import(new URL(path, dist).href);
const { parseSearchQuery } = await imp(NEW, "search/parse-search-query.js");
const { resolveSearchFilters } = await imp(NEW, "operations/search-filters.js");
const { foldLanguageClauses } = await imp(NEW, "search/search-query.js");
const { SEARCH_EXPRESSION } = await imp(NEW, "store/postgres/postgres-search-facets.js");
const { COUNTED_FEED_BLOCK_IDS } = await imp(NEW, "store/postgres/postgres-counted-feed-clicks.js");
const { usesOperators } = await imp(NEW, "search/search-query.js");
// As the store: a query with operators after its `lang:` clauses are folded into the page's
// languages by searchWithOperators, any other (`lang:de the`) by the word plans' searchPosts.
const searchOf = async (dist) => {
  const { searchWithOperators } = await imp(dist, "store/postgres/postgres-search-operators.js");
  const { searchPosts } = await imp(dist, "store/postgres/postgres-search-queries.js");
  return (sql, page) => (usesOperators(page.query) ? searchWithOperators(sql, page) : searchPosts(sql, page));
};
const builds = { old: await searchOf(OLD), new: await searchOf(NEW) };
const word = values.word ?? "the";
const pages = (
  values.pages ??
  `feed:日 ${word}@0+20,feed:日 ${word}@0+1000,feed:日 ${word}@5000+20,feed:日 ${word}@15232+20,feed:日 ${word}@30445+20,feed:日 ${word}@30465+20,feed:日 lang:zh ${word}@0+1000,lang:de ${word}@0+1000,lang:de ${word}@0+20`
)
  .split(",")
  .map((p) => {
    const [terms, at] = p.split("@");
    const [offset, limit] = at.split("+").map(Number);
    return { terms, offset, limit };
  });
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

const feedNames = async () =>
  (await client.query('SELECT id AS "feedId", name AS "feedName" FROM feeds')).rows;
const languages = async () =>
  (await client.query('SELECT id AS "languageId", code AS "languageCode" FROM languages')).rows;
const queryOf = async (terms) =>
  foldLanguageClauses(
    await resolveSearchFilters({ feedNames, languages, feeds: feedNames }, parseSearchQuery(terms)),
    null,
  );
const cpuOf = async (c) => {
  const pid = (await c.query("SELECT pg_backend_pid() AS p")).rows[0].p;
  return () => {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(f[11]) + Number(f[12])) * 10;
  };
};
const cpu = { old: await cpuOf(conn.old.client), new: await cpuOf(client) };

// Migration 56's objects for this build's connection only (temp tables come first in the search
// path); temp_buffers so that they are read from memory, as shared buffers would.
await client.query("SET temp_buffers = '512MB'");
const made = performance.now();
const [search] = (await client.query("SELECT id FROM counted_searches WHERE lexeme = $1", [word])).rows;
if (!search) throw new Error(`'${word}' is not a counted word of this database`);
await client.query("CREATE TEMP TABLE counted_feed_block_searches (search_id integer PRIMARY KEY)");
await client.query("INSERT INTO counted_feed_block_searches VALUES ($1)", [search.id]);
await client.query(
  `CREATE TEMP TABLE counted_feed_blocks AS SELECT $1::int AS search_id, p.feed_id,
      p.id / ${COUNTED_FEED_BLOCK_IDS} AS block, count(*)::int AS posts
    FROM posts p WHERE ${SEARCH_EXPRESSION} @@ $2::tsquery GROUP BY 2, 3`,
  [search.id, `'${word.replace(/'/g, "''")}'`],
);
await client.query("ALTER TABLE counted_feed_blocks ADD PRIMARY KEY (search_id, feed_id, block)");
await client.query("CREATE TEMP TABLE clicked_posts AS SELECT * FROM public.clicked_posts");
await client.query("ALTER TABLE clicked_posts ADD PRIMARY KEY (id)");
// The indexes of the table as it is (the old plans' walk), and migration 56's.
const { rows: indexes } = await client.query(
  "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename = 'clicked_posts' AND indexname NOT LIKE '%pkey'",
);
for (const { indexname, indexdef } of indexes) {
  if (indexname === "clicked_posts_by_feed") continue;
  await client.query(
    indexdef.replace(/ ON public\.clicked_posts /, " ON clicked_posts ").replace(/INDEX \w+ /, "INDEX "),
  );
}
await client.query("CREATE INDEX ON clicked_posts (feed_id, clicks, id) INCLUDE (language_id, words)");
await client.query("VACUUM ANALYZE counted_feed_blocks");
await client.query("VACUUM ANALYZE clicked_posts");
const [size] = (
  await client.query("SELECT count(*)::int AS n, sum(posts)::int AS matches FROM counted_feed_blocks")
).rows;
console.log(
  `'${word}': ${size.n} (feed, block) rows (${size.matches} matches), clicked_posts copied with ${indexes.length + 1} indexes; made in ${(performance.now() - made).toFixed(0)} ms; load ${load()}`,
);
console.log(
  "| page | old first ms | old median ms | old CPU ms | new first ms | new median ms | new CPU ms | new/old (median) | same pages | load |",
);
console.log("|---|---|---|---|---|---|---|---|---|---|");
const median = (runs, key) => {
  const v = runs
    .slice(1)
    .map((r) => r[key])
    .sort((a, b) => a - b);
  return v[Math.floor(v.length / 2)];
};
for (const { terms, offset, limit } of pages) {
  const page = { ...(await queryOf(terms)), sort: "clicks", offset, limit };
  const runs = { old: [], new: [] };
  const answers = new Set();
  for (let round = 0; round < 6; round++) {
    for (const name of round % 2 ? ["new", "old"] : ["old", "new"]) {
      const c0 = cpu[name]();
      const w0 = performance.now();
      const found = await builds[name](conn[name].client, page);
      runs[name].push({ wall: performance.now() - w0, cpu: cpu[name]() - c0 });
      answers.add(found.map((r) => r.postId).join(","));
    }
  }
  const [o, n] = [runs.old, runs.new];
  console.log(
    `| '${terms}' clicks, ${offset}+${limit} | ${o[0].wall.toFixed(1)} | ${median(o, "wall").toFixed(1)} | ${median(o, "cpu")} | ${n[0].wall.toFixed(1)} | ${median(n, "wall").toFixed(1)} | ${median(n, "cpu")} | ${(median(n, "wall") / median(o, "wall")).toFixed(2)} | ${answers.size === 1} | ${load()} |`,
  );
}
if (values.explain) {
  for (const { terms, offset, limit } of pages) {
    const page = { ...(await queryOf(terms)), sort: "clicks", offset, limit };
    const { sql, recorded } = recordingSql(client);
    await builds.new(sql, page);
    console.log(`\n'${terms}' clicks ${offset}+${limit}: ${recorded.length} statements, load ${load()}`);
    await explainRecorded(client, recorded, values.plans);
  }
}
await conn.old.close();
await conn.new.close();
