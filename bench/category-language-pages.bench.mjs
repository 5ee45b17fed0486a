// Posts by category within a language list (getPostsByCategory with languageIds) on PostgreSQL,
// where the category and the languages share few posts or none: the pairs are the corpus's own
// (its roll-up language_totals, per category and language), every pair with no post in common of
// the two largest categories, the pair whose share of its category is smallest, the two rarest
// languages of the largest category together, and a seeded random draw of the others; pages
// first, middle, last and just past the end, and since the corpus's middle post id (first page and
// offset 1,500). With --baseline, each call runs on the baseline build
// and on this one alternately (the build that goes first swaps from case to case), on the same
// database, opened without migrating (builds-under-test.mjs openUnmigrated): first call and median
// of --repeats more, each against spec §4's 50 ms, the load average beside them, and whether both
// builds gave the same page.
//
//   npx tsc -b && TMPDIR=<folder> node bench/category-language-pages.bench.mjs [--shape demo]
//     [--posts N] [--baseline <another build's packages/feed-service/dist>] [--draw 6] [--seed 1]
//     [--repeats 3]
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import pg from "pg";
import { loadBuilds, openUnmigrated } from "./builds-under-test.mjs";
import { openShapePostgres } from "./shape-corpus.mjs";
import { SeededRandom } from "./shape-vocabulary.mjs";

const { values } = parseArgs({
  options: {
    shape: { type: "string" },
    posts: { type: "string" },
    baseline: { type: "string" },
    draw: { type: "string" },
    seed: { type: "string" },
    repeats: { type: "string" },
  },
});
const shape = values.shape ?? "demo";
const posts = Number(values.posts ?? 1_000_000);
const draw = Number(values.draw ?? 6);
const repeats = Number(values.repeats ?? 3);
const TARGET_MS = 50;
const f1 = (x) => x.toFixed(1);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const builds = await loadBuilds(values.baseline);
const postgres = await openShapePostgres(shape, posts);
const opened = [];
try {
  for (const build of builds) opened.push({ build, store: await openUnmigrated(build, postgres.url) });
  const client = new pg.Client({ connectionString: postgres.url });
  await client.connect();
  const pairs = (
    await client.query(`SELECT c.id AS category, l.id AS language, coalesce(t.n, 0)::float8 AS n, c.total
      FROM (SELECT category_key AS id, sum(posts)::float8 AS total FROM language_totals WHERE category_key > 0 GROUP BY 1) c
      CROSS JOIN (SELECT DISTINCT language_id AS id FROM language_totals) l
      LEFT JOIN (SELECT category_key, language_id, sum(posts) AS n FROM language_totals GROUP BY 1, 2) t
        ON t.category_key = c.id AND t.language_id = l.id
      ORDER BY c.total DESC, n, l.id`)
  ).rows;
  const middleId = Math.floor((await client.query("SELECT max(id) AS m FROM posts")).rows[0].m / 2);
  await client.end();
  const byCategory = [...new Set(pairs.map((p) => p.category))];
  const cases = [];
  const add = (why, category, languages) => {
    const n = pairs
      .filter((p) => p.category === category && languages.includes(p.language))
      .reduce((s, p) => s + p.n, 0);
    const key = `${category}:${languages.join(",")}`;
    if (!cases.some((c) => c.key === key)) cases.push({ key, why, category, languages, n });
  };
  for (const category of byCategory.slice(0, 2)) {
    for (const p of pairs.filter((q) => q.category === category && q.n === 0))
      add("none in common", category, [p.language]);
  }
  const shared = pairs.filter((p) => p.n > 0);
  const tiniest = [...shared].sort((a, b) => a.n / a.total - b.n / b.total)[0];
  if (tiniest) add("smallest share of its category", tiniest.category, [tiniest.language]);
  const largest = pairs.filter((p) => p.category === byCategory[0] && p.n > 0).slice(0, 2);
  if (largest.length === 2)
    add(
      "the largest category's two rarest languages",
      byCategory[0],
      largest.map((p) => p.language),
    );
  const random = new SeededRandom(Number(values.seed ?? 1));
  for (let i = 0; i < draw && shared.length > 0; i++) {
    const p = shared[Math.floor(random.next() * shared.length)];
    add("drawn at random", p.category, [p.language]);
  }
  const load = () =>
    loadavg()
      .map((x) => x.toFixed(2))
      .join(" ");
  console.log(`\nposts by category within languages, shape ${shape}, postgres; load ${load()}`);
  const head = ["category", "languages", "posts in both / category", "why", "offset"];
  for (const { build } of opened)
    head.push(`${build.name} first`, `${build.name} median`, `${build.name} ratio`);
  head.push("rows");
  if (opened.length > 1) head.push("same page");
  console.log(`| ${head.join(" | ")} |`);
  console.log(`|${head.map(() => "---").join("|")}|`);
  const worst = opened.map(() => 0);
  let k = 0;
  for (const c of cases) {
    const total = pairs.find((p) => p.category === c.category)?.total ?? 0;
    const calls = [...new Set([0, Math.floor(c.n / 2), Math.max(0, c.n - 20), c.n])].map((offset) => ({
      offset,
      sincePostId: null,
    }));
    // Since the corpus's middle post id, first page and a page past the day seek's threshold.
    calls.push({ offset: 0, sincePostId: middleId }, { offset: 1500, sincePostId: middleId });
    for (const { offset, sincePostId } of calls) {
      const runs = opened.map(() => []);
      const pages = opened.map(() => "");
      const order = opened.map((_, b) => b);
      if (k++ % 2 === 1) order.reverse();
      for (let i = 0; i <= repeats; i++) {
        for (const b of order) {
          const started = performance.now();
          const rows = await opened[b].store.postsByCategory({
            categoryId: c.category,
            languageIds: c.languages,
            sincePostId,
            sinceDate: null,
            limit: 20,
            offset,
          });
          runs[b].push(performance.now() - started);
          pages[b] = rows.map((r) => r.postId).join(",");
        }
      }
      const at = sincePostId === null ? offset : `${offset}, since id ${sincePostId}`;
      const cells = [c.category, c.languages.join(","), `${c.n} / ${total}`, c.why, at];
      for (const [b, r] of runs.entries()) {
        const ratio = Math.max(r[0], median(r.slice(1))) / TARGET_MS;
        worst[b] = Math.max(worst[b], ratio);
        cells.push(f1(r[0]), f1(median(r.slice(1))), `${ratio.toFixed(2)}x`);
      }
      cells.push(pages.at(-1) === "" ? 0 : pages.at(-1).split(",").length);
      if (opened.length > 1) cells.push(pages.every((p) => p === pages[0]) ? "yes" : "NO");
      console.log(`| ${cells.join(" | ")} |`);
    }
  }
  console.log(
    `worst ratio to 50 ms: ${opened.map(({ build }, b) => `${build.name} ${worst[b].toFixed(2)}x`).join(", ")}; load ${load()}`,
  );
} finally {
  for (const { store } of opened) await store.close();
  await postgres.stop();
}
