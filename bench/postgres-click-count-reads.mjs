// The readers of the counted words' click counts (spec §4: pages by clicks of a counted word past
// the first 1,000, the unranged ones by the blocks, postgres-counted-clicks.ts, and those within
// `after:`/`before:` by the unclicked period counts, postgres-counted-click-ranges.ts) on a shaped
// corpus's PostgreSQL copy, with the counts in the shape before migration 66 (the blocks a table of
// their own) and after it (the blocks two columns of the period rows, counted_click_blocks a view
// of them), in turns: each shape put in place (postgres-click-upkeeps.mjs) and its tables vacuumed,
// then a store of this build opened and each page asked once ("first") and --repeats times
// (median, "warm") through searchPosts, the page's ids compared between the shapes. The readers'
// code is the same in both builds; only the rows they read differ. It switches the copy's shape:
// run it on a COPY of the corpus tree.
//
//   TMPDIR=<copy tree> BENCH_PG_SHARED_BUFFERS_MB=1024 node bench/postgres-click-count-reads.mjs
//     --shape long-tail --posts 200000 [--rounds 3] [--repeats 5] [--after 2016-01-16]
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startBenchPostgres } from "./feed-service-postgres-corpus.mjs";
import { clickUpkeeps, settleClickCounts } from "./postgres-click-upkeeps.mjs";
import { shapesFolder } from "./shape-corpus.mjs";

const { values } = parseArgs({
  options: {
    shape: { type: "string", default: "long-tail" },
    posts: { type: "string", default: "200000" },
    rounds: { type: "string", default: "3" },
    repeats: { type: "string", default: "5" },
    after: { type: "string", default: "2016-01-16" },
  },
});
const dist = new URL("../packages/feed-service/dist/", import.meta.url);
const { default: pg } = await import(createRequire(new URL("../package.json", dist)).resolve("pg"));
const { openStore } = await import(new URL("store/open-store.js", dist).href);
const { parseSearchQuery } = await import(new URL("search/parse-search-query.js", dist).href);
const upkeeps = await clickUpkeeps(dist);
const shapes = { "before 66": upkeeps.migration64, 66: upkeeps.current };
const repeats = Number(values.repeats);
const after = Date.parse(values.after);
const load = () => loadavg()[0].toFixed(1);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const folder = join(shapesFolder, `${values.shape}-${values.posts}-postgres`);
const server = await startBenchPostgres(folder);
const admin = new pg.Client({ connectionString: server.url });
await admin.connect();
try {
  // Migrated to this build's schema first (an open of the shape before 66 must not migrate it).
  const first = await openStore(server.url);
  await first.close();
  // The counted word with the most matches, and where its pages by clicks lie (all languages).
  const { rows: picked } = await admin.query(
    `SELECT s.lexeme, sum(b.unclicked + b.clicked)::int AS n, sum(b.clicked)::int AS clicked
      FROM counted_searches s JOIN counted_click_searches k ON k.search_id = s.id
      JOIN counted_click_blocks b ON b.search_id = s.id GROUP BY 1 ORDER BY 2 DESC LIMIT 1`,
  );
  const { lexeme: word, n, clicked } = picked[0];
  const { rows: ranged } = await admin.query(
    "SELECT count(*)::int AS n FROM posts WHERE search_vector @@ $1::tsquery AND post_date >= $2",
    [`'${word}'`, after],
  );
  const half = clicked + Math.floor((n - clicked) / 2);
  const pages = [
    ["clicks", null, Math.max(1_000, Math.floor(clicked / 2))],
    ["clicks", null, half],
    ["clicks", null, n - 20],
    [`after:${values.after}`, after, Math.floor(ranged[0].n / 2)],
    [`after:${values.after}`, after, ranged[0].n - 20],
  ];
  console.log(
    `\n${values.shape}-${values.posts}: '${word}' ${n} matches (${clicked} clicked), ${ranged[0].n} after ${values.after}; first / warm (median of ${repeats}) ms`,
  );
  console.log(`| round | shape | ${pages.map(([s, , o]) => `${s} ${o}`).join(" | ")} | load |`);
  console.log(`|---|---|${pages.map(() => "---|").join("")}---|`);
  const answers = new Map();
  for (let round = 1; round <= Number(values.rounds); round++) {
    const order = round % 2 === 1 ? Object.keys(shapes) : Object.keys(shapes).reverse();
    for (const shape of order) {
      await admin.query(shapes[shape]);
      await settleClickCounts(admin);
      const before = load();
      const store = await openStore(server.url);
      const cells = [];
      try {
        for (const [label, from, offset] of pages) {
          const query = parseSearchQuery(word);
          const q =
            from === null ? query : { ...query, filterClauses: [[{ kind: "date", from, until: null }]] };
          const times = [];
          let ids = "";
          for (let i = 0; i <= repeats; i++) {
            const t0 = performance.now();
            const found = await store.searchPosts({
              query: q,
              sort: "clicks",
              limit: 20,
              offset,
              languageIds: null,
            });
            times.push(performance.now() - t0);
            ids = createHash("sha1")
              .update(found.map((p) => p.postId).join(","))
              .digest("hex")
              .slice(0, 8);
          }
          const key = `${label} ${offset}`;
          const seen = answers.get(key);
          if (seen !== undefined && seen !== ids) throw new Error(`${key}: ids ${ids} against ${seen}`);
          answers.set(key, ids);
          cells.push(`${times[0].toFixed(1)} / ${median(times.slice(1)).toFixed(1)}`);
        }
      } finally {
        await store.close();
      }
      console.log(`| ${round} | ${shape} | ${cells.join(" | ")} | ${before}-${load()} |`);
    }
  }
  console.log(`\nthe same ids in every run: ${[...answers].map(([k, v]) => `${k} ${v}`).join(", ")}`);
  await admin.query(upkeeps.current);
} finally {
  await admin.end();
  await server.stop();
}
