// What the index of posts by feed and word (migration 32, postgres-feed-words.ts) costs a write of
// posts: the same batch of posts inserted into `posts` with the index and without it (dropped
// inside the transaction), alternately, each rolled back, on one database, so that the machine's
// load weighs on both alike. A batch is copies of existing posts (new guids) into the posts' own
// feeds, inserted by one statement as a refresh's are, the posts' triggers included; its keys go
// to the index's pending list and, past gin_pending_list_limit, into the index within the
// statement, as they would at ingest. Prints each side's median ms and posts/s, and their ratio.
//
//   node bench/postgres-feed-words-writes.bench.mjs --url postgres://... [--posts 2000] [--rounds 5]
//     [--index posts_feed_titles]   (another index of posts to weigh the same way: migration 37's)
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    posts: { type: "string" },
    rounds: { type: "string" },
    index: { type: "string" },
  },
});
const posts = Number(values.posts ?? 2000);
const rounds = Number(values.rounds ?? 5);
const index = values.index ?? "posts_feed_words";
if (!/^\w+$/.test(index)) throw new Error(`not an index name: ${index}`);
const { default: pg } = await import(
  createRequire(new URL("../packages/feed-service/package.json", import.meta.url)).resolve("pg")
);
const client = new pg.Client({ connectionString: values.url });
await client.connect();

const [{ n }] = (
  await client.query("SELECT count(*)::int AS n FROM pg_indexes WHERE indexname = $1", [index])
).rows;
if (n !== 1) throw new Error(`the database has no ${index} index`);

const insert = `INSERT INTO posts (feed_id, guid, link, title, excerpt, content, seen_at, post_date, language_id, search_vector, phrase_vector)
  SELECT feed_id, 'feed-words-bench ' || id, link, title, excerpt, content, seen_at, post_date, language_id, search_vector, phrase_vector
  FROM posts WHERE id > (SELECT max(id) FROM posts) - $1 ORDER BY id`;

async function once(withIndex) {
  await client.query("BEGIN");
  try {
    if (!withIndex) await client.query(`DROP INDEX ${index}`);
    const started = performance.now();
    await client.query(insert, [posts]);
    return performance.now() - started;
  } finally {
    await client.query("ROLLBACK");
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const times = { without: [], with: [] };
const before = loadavg()[0];
await once(true); // both sides then start from the same cached pages
for (let r = 0; r < rounds; r++) {
  for (const side of r % 2 === 0 ? ["without", "with"] : ["with", "without"]) {
    times[side].push(await once(side === "with"));
  }
}
await client.end();
const rate = (ms) => (posts / ms) * 1000;
console.log(
  `\n| ${posts} posts in one INSERT, rolled back (${rounds} each, alternating) | median ms | posts/s |`,
);
console.log("|---|---:|---:|");
for (const side of ["without", "with"]) {
  const ms = median(times[side]);
  console.log(`| ${side} ${index} | ${ms.toFixed(1)} | ${rate(ms).toFixed(0)} |`);
}
console.log(
  `\nwith / without (medians): ${(median(times.with) / median(times.without)).toFixed(2)}x the time; load average ${before.toFixed(1)} -> ${loadavg()[0].toFixed(1)} (2 cores, shared)`,
);
