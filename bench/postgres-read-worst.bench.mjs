// PostgreSQL's plain-word read worst cases (search of the commonest word by clicks and by
// relevance, limit 1000; aggregateLanguageData), in process on a synthetic corpus of the shape in
// bench/NOTES.md ("PostgreSQL: smart categories counted per day, posts per month"): feeds of
// log-normal sizes, archives written in random date order, 8 languages, Zipf words. Builds the
// corpus once (embedded PostgreSQL, 512 MB shared buffers) through the store's own writer, then
// runs each build given in a fresh process, alternating, and prints first call and warm median
// per call as a ratio to spec §4's 50 ms. The word searched is the corpus's commonest (drawn from
// its own counts, not a list), plus words drawn at random from its top 50.
//
//   node bench/postgres-read-worst.bench.mjs --posts 200000 --folder /tmp/x --builds dist-base,dist --rounds 2
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startEmbeddedPostgres } from "./embedded-postgres-server.mjs";

const { values: args } = parseArgs({
  options: {
    posts: { type: "string", default: "200000" },
    folder: { type: "string" },
    builds: { type: "string", default: "dist" },
    rounds: { type: "string", default: "2" },
    child: { type: "string" },
    url: { type: "string" },
    seed: { type: "string", default: "1" },
  },
});
const pkg = new URL("../packages/feed-service/", import.meta.url);
const LIMIT_MS = 50;

function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

async function startServer(folder) {
  const server = await startEmbeddedPostgres(folder, { settings: ["shared_buffers=512MB"] });
  if (server.fresh) await server.createDatabase("bench");
  return { url: server.urlFor("bench"), stop: server.stop };
}

const LANGUAGES = ["en", "de", "fr", "es", "ja", "it", "pt", "nl"];
const LANGUAGE_WEIGHTS = [0.55, 0.1, 0.08, 0.07, 0.06, 0.05, 0.05, 0.04];

async function buildCorpus(url, posts) {
  const { openStore } = await import(new URL("dist/store/open-store.js", pkg).href);
  const store = await openStore(url);
  const random = rng(Number(args.seed));
  const languages = [];
  for (const code of LANGUAGES) languages.push(await store.ensureLanguage(code));
  const categories = [];
  for (let i = 0; i < 9; i++) categories.push(await store.addCategory(`cat${i}`));
  const pick = (weights) => {
    let r = random();
    for (let i = 0; i < weights.length; i++) {
      r -= weights[i];
      if (r < 0) return i;
    }
    return weights.length - 1;
  };
  // Log-normal feed sizes (sigma 1.6) scaled to `posts`.
  const feeds = 1000;
  const gauss = () => Math.sqrt(-2 * Math.log(random() || 1e-9)) * Math.cos(2 * Math.PI * random());
  const raw = Array.from({ length: feeds }, () => Math.exp(1.6 * gauss()));
  const sum = raw.reduce((a, b) => a + b, 0);
  const sizes = raw.map((r) => Math.max(1, Math.round((r / sum) * posts)));
  // Zipf words: word k drawn with weight 1/(k+1); 3,000 words.
  const WORDS = 3000;
  const cumulative = [];
  let acc = 0;
  for (let k = 0; k < WORDS; k++) {
    acc += 1 / (k + 1);
    cumulative.push(acc);
  }
  const word = () => {
    const r = random() * acc;
    let lo = 0;
    let hi = WORDS - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < r) lo = mid + 1;
      else hi = mid;
    }
    return `w${lo}`;
  };
  const text = (n) => Array.from({ length: n }, word).join(" ");
  const now = Date.UTC(2026, 0, 15);
  const YEAR = 365 * 86_400_000;
  let written = 0;
  const ids = [];
  for (let f = 0; f < feeds; f++) {
    const language = languages[pick(LANGUAGE_WEIGHTS)];
    const category = random() < 0.85 ? categories[Math.floor(random() * 9)] : null;
    const feed = await store.addFeed({
      feedUrl: `https://feed${f}.example/rss`,
      feedName: `Feed ${f}`,
      categoryId: category?.categoryId ?? null,
      languageId: language.languageId,
    });
    const span = (1 + Math.floor(random() * 12)) * YEAR;
    const batch = [];
    for (let i = 0; i < sizes[f]; i++) {
      const at = now - Math.floor(random() * span);
      batch.push({
        guid: `g${f}-${i}`,
        link: `https://feed${f}.example/p/${i}`,
        title: text(4 + Math.floor(random() * 6)),
        excerpt: text(20 + Math.floor(random() * 30)),
        content: `<p>${text(30)}</p>`,
        publishedAt: at,
        updatedAt: null,
        seenAt: at,
        languageId: language.languageId,
      });
    }
    // Stored in random date order: chunks of the shuffled archive.
    for (let i = batch.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [batch[i], batch[j]] = [batch[j], batch[i]];
    }
    for (let i = 0; i < batch.length; i += 500) {
      await store.applyFeedUpdate(feed.feedId, { posts: batch.slice(i, i + 500), fetchState: {} });
    }
    written += batch.length;
    if (f % 100 === 0) console.error(`feed ${f}, ${written} posts`);
  }
  // Clicks: Zipf over a random fifth of the posts (a few posts clicked often, most never).
  const max = await store.recentPosts({ limit: 1, offset: 0, languageIds: null });
  const top = max[0]?.postId ?? 0;
  for (let c = 0; c < 40_000; c++) {
    const id = 1 + Math.floor(top * random() ** 3);
    ids.push(id);
    await store.insertClick(id, `c${c}`, now - Math.floor(random() * YEAR));
  }
  await store.addSmartCategory({ name: "w0", query: "w0" });
  await store.close();
  console.error(`built: ${written} posts, ${ids.length} clicks`);
}

async function child(dist, url) {
  const { openStore } = await import(new URL(`${dist}/store/open-store.js`, pkg).href);
  const { parseSearchQuery } = await import(new URL(`${dist}/search/parse-search-query.js`, pkg).href);
  const store = await openStore(url);
  if (typeof store.warmCache === "function") await store.warmCache();
  const de = (await store.languages()).find((l) => l.languageCode === "de").languageId;
  const calls = [
    [
      "search w0 by clicks, limit 1000",
      (q) => store.searchPosts({ query: q, sort: "clicks", limit: 1000, offset: 0, languageIds: null }),
    ],
    [
      "search w0 by clicks, limit 10",
      (q) => store.searchPosts({ query: q, sort: "clicks", limit: 10, offset: 0, languageIds: null }),
    ],
    [
      "search w0 by relevance, limit 1000",
      (q) => store.searchPosts({ query: q, sort: "relevance", limit: 1000, offset: 0, languageIds: null }),
    ],
    [
      "search w0 by clicks in de, limit 1000",
      (q) => store.searchPosts({ query: q, sort: "clicks", limit: 1000, offset: 0, languageIds: [de] }),
    ],
    [
      "search w0 by relevance in de, limit 1000",
      (q) => store.searchPosts({ query: q, sort: "relevance", limit: 1000, offset: 0, languageIds: [de] }),
    ],
    ["aggregateLanguageData", () => store.aggregateLanguageData(Date.UTC(2026, 0, 15))],
  ];
  const random = rng(Number(args.seed) + 7);
  const drawn = `w${1 + Math.floor(random() * 49)}`;
  calls.push(
    [
      `search ${drawn} (drawn from the top 50) by clicks, limit 1000`,
      () =>
        store.searchPosts({
          query: parseSearchQuery(drawn),
          sort: "clicks",
          limit: 1000,
          offset: 0,
          languageIds: null,
        }),
    ],
    [
      `search ${drawn} by relevance, limit 1000`,
      () =>
        store.searchPosts({
          query: parseSearchQuery(drawn),
          sort: "relevance",
          limit: 1000,
          offset: 0,
          languageIds: null,
        }),
    ],
  );
  const query = parseSearchQuery("w0");
  const out = [];
  for (const [name, call] of calls) {
    const times = [];
    let ids = "";
    for (let i = 0; i < 4; i++) {
      const t = performance.now();
      const r = await call(query);
      times.push(performance.now() - t);
      ids = Array.isArray(r)
        ? r.map((p) => `${p.postId ?? p.languageId}:${p.clicks ?? ""}:${p.postCount ?? ""}`).join(",")
        : "";
    }
    const warm = times.slice(1).sort((a, b) => a - b)[1];
    out.push({ name, first: times[0], warm, digest: hash(ids) });
  }
  await store.close();
  process.stdout.write(JSON.stringify(out));
}

function hash(s) {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return (h >>> 0).toString(16);
}

if (args.child) {
  await child(args.child, args.url);
} else {
  const folder = args.folder ?? join(process.env.TMPDIR ?? "/tmp", `pg-read-worst-${args.posts}`);
  const built = existsSync(join(folder, "built"));
  const server = await startServer(folder);
  try {
    if (!built) {
      await buildCorpus(server.url, Number(args.posts));
      execFileSync("touch", [join(folder, "built")]);
    }
    const builds = args.builds.split(",");
    const table = new Map();
    for (let round = 0; round < Number(args.rounds); round++) {
      for (const dist of builds) {
        const load = loadavg()
          .map((l) => l.toFixed(1))
          .join(" ");
        const out = JSON.parse(
          execFileSync(
            process.execPath,
            [new URL(import.meta.url).pathname, "--child", dist, "--url", server.url],
            {
              encoding: "utf8",
              maxBuffer: 1 << 26,
            },
          ),
        );
        for (const row of out) {
          const cells = table.get(row.name) ?? [];
          cells.push(
            `${dist}#${round + 1}: ${row.first.toFixed(1)} / ${row.warm.toFixed(1)} ms (${(row.first / LIMIT_MS).toFixed(2)}x / ${(row.warm / LIMIT_MS).toFixed(2)}x) [${row.digest}] load ${load}`,
          );
          table.set(row.name, cells);
        }
      }
    }
    for (const [name, cells] of table) {
      console.log(name);
      for (const c of cells) console.log(`  ${c}`);
    }
  } finally {
    await server.stop();
  }
}
