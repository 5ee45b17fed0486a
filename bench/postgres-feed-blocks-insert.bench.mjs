// What migration 56's insert trigger (postgres-counted-feed-clicks.ts: each new post's words matched
// against the counted words, one count per (word, feed, block)) adds to an insert of posts: on a new
// embedded database at this build's schema, with `--words` one-lexeme words counted and every post
// holding all of them (the heaviest case per post), `--rounds` rounds of one INSERT of `--posts`
// posts with the trigger on and with it disabled (ALTER TABLE ... DISABLE TRIGGER), in turns: the
// statement's wall, the backend's CPU (/proc/<pid>/stat, 10 ms ticks), on/off, and the load. The
// other triggers (the date counts, click blocks, feeds' months...) fire in both.
//
//   npx tsc -b && node bench/postgres-feed-blocks-insert.bench.mjs [--posts 5000] [--rounds 6] [--words 30]
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startEmbeddedPostgres } from "./embedded-postgres-server.mjs";

const { values } = parseArgs({
  options: { posts: { type: "string" }, rounds: { type: "string" }, words: { type: "string" } },
});
const posts = Number(values.posts ?? 5000);
const rounds = Number(values.rounds ?? 6);
const wordCount = Number(values.words ?? 30);
const dist = new URL("../packages/feed-service/dist/", import.meta.url);
const { openPostgresStore } = await import(new URL("store/postgres/postgres-store.js", dist).href);
const { syncCountedWords } = await import(new URL("store/postgres/postgres-counted-words.js", dist).href);
const pg = createRequire(new URL("../packages/feed-service/package.json", import.meta.url))("pg");
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

const folder = mkdtempSync(join(tmpdir(), "feed-blocks-insert-"));
const server = await startEmbeddedPostgres(folder, { persistent: false });
try {
  await server.query("CREATE DATABASE bench");
  const url = server.urlFor("bench");
  const store = await openPostgresStore({ url });
  // syncCountedWords holds one client and takes others for the blocks, months and periods.
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const step = (what) => console.error(`${new Date().toISOString().slice(11, 19)} ${what}`);
  const feeds = [];
  for (let f = 0; f < 300; f++) {
    feeds.push((await store.addFeed({ feedUrl: `https://b${f}.test/feed`, feedName: `B${f}` })).feedId);
  }
  const words = Array.from({ length: wordCount }, (_, i) => `word${i}`);
  const vector = words.map((w, i) => `${w}:${i + 1}`).join(" ");
  let next = 1;
  const insert = async (n, sql = pool) => {
    const from = next;
    next += n;
    await sql.query(
      `INSERT INTO posts (feed_id, guid, link, title, excerpt, content, seen_at, post_date, language_id, clicks, search_vector)
        SELECT ($1::int[])[1 + i % 300], 'g' || i, 'https://b.test/' || i, 'Post ' || i, '', '', 0,
          ${Date.UTC(2026, 0, 1)}::bigint - (i % 700)::bigint * 86400000, 1, 0, ($2 || ' x' || (i % 97) || ':40')::tsvector
        FROM generate_series($3::int, $4::int) i`,
      [feeds, vector, from, from + n - 1],
    );
  };
  step("feeds added");
  await insert(20_000);
  step("posts inserted");
  await pool.query("ANALYZE posts");
  const counted = await syncCountedWords(pool, { matches: 100, most: wordCount });
  step("words counted");
  const client = await pool.connect();
  await client.query("SET statement_timeout = 0");
  const pid = (await client.query("SELECT pg_backend_pid() AS p")).rows[0].p;
  const cpu = () => {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(f[11]) + Number(f[12])) * 10;
  };
  console.log(
    `${counted} counted words, each post holding all of them; ${posts} posts an INSERT; load ${load()}`,
  );
  console.log("| round | on: wall ms, CPU ms | off: wall ms, CPU ms | on/off (CPU) | load |");
  console.log("|---|---|---|---|---|");
  for (let round = 0; round < rounds; round++) {
    const r = {};
    for (const on of round % 2 ? [false, true] : [true, false]) {
      await client.query(`ALTER TABLE posts ${on ? "ENABLE" : "DISABLE"} TRIGGER posts_count_feed_blocks`);
      const c0 = cpu();
      const w0 = performance.now();
      await insert(posts, client);
      r[on ? "on" : "off"] = { wall: performance.now() - w0, cpu: cpu() - c0 };
    }
    console.log(
      `| ${round + 1} | ${r.on.wall.toFixed(0)}, ${r.on.cpu} | ${r.off.wall.toFixed(0)}, ${r.off.cpu} | ${(r.on.cpu / Math.max(r.off.cpu, 1)).toFixed(2)} | ${load()} |`,
    );
  }
  client.release();
  await pool.end();
  await store.close();
} finally {
  await server.stop();
  rmSync(folder, { recursive: true, force: true });
}
