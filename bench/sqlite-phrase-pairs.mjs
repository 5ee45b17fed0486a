// What an index of adjacent word pairs would buy a two-word phrase on SQLite, measured on a
// prototype beside a corpus, not in the store. A phrase `"a b"` matches a post exactly when some
// column holds token `a` at a position and `b` at the next (https://sqlite.org/fts5.html#phrases);
// FTS5 finds that by reading both words' posting lists, positions included, over every post that
// holds both. A second FTS5 table whose rows hold, per column, one token per pair of consecutive
// tokens (`a` + U+E003 + `b`, the ascii tokenizer keeping it whole: fts5-index-row.ts) finds the
// same posts from one posting list of the phrase's own size, and its per-column instance counts
// are the phrase's, so `sampled_bm25_over` with posts_fts's totals and docsize table scores each
// row as posts_fts does (native/sampled_bm25.c). This script builds that table into a file of its
// own from the corpus (read only), then ranks a phrase's relevance pool both ways in turns and
// compares the pages (ids and scores, exactly) and the CPU of each.
//
//   npx tsc -b && node bench/sqlite-phrase-pairs.mjs --db <corpus.db> --pairs <new file>
//     [--phrase "version guide" ...] [--rounds 7] [--limit 20] [--offset 0]
// --pairs: built when the file does not exist (every post's index row, as fts5IndexRow writes
// posts_fts's); the corpus is opened read only and never written.
import { existsSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";

const require = createRequire(new URL("../packages/feed-service/package.json", import.meta.url));
const Database = require("better-sqlite3");
const dist = new URL("../packages/feed-service/dist/store/sqlite/", import.meta.url);
const { fts5IndexRow } = await import(new URL("fts5-index-row.js", dist).href);
const { searchIndexTotals } = await import(new URL("sqlite-clicked-index.js", dist).href);
const { StatementCache } = await import(new URL("sqlite-connection.js", dist).href);
const { loadRowLengths } = await import(new URL("sqlite-term-sample.js", dist).href);
const EXTENSION = new URL("../packages/feed-service/native/build/sampled_bm25.so", import.meta.url).pathname;

const { values } = parseArgs({
  options: {
    db: { type: "string" },
    pairs: { type: "string" },
    phrase: { type: "string", multiple: true },
    rounds: { type: "string" },
    limit: { type: "string" },
    offset: { type: "string" },
  },
});
if (!values.db || !values.pairs) throw new Error("--db <corpus> and --pairs <file> are required");
const phrases = values.phrase ?? ["version guide"];
const rounds = Number(values.rounds ?? 7);
const limit = Number(values.limit ?? 20);
const offset = Number(values.offset ?? 0);
/** The store's relevance pool and term sample (sqlite-search-queries.ts, sqlite-term-sample.ts). */
const POOL = 10_000;
const SAMPLE = 32_768;
const PAIR_MARK = "\uE003";
const WEIGHTS = "4.0, 1.0, 2.0, 0.0, -4.0";
const cpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** One pair token per two consecutive tokens of a column (tokens joined by spaces). */
const pairsOf = (column) => {
  const tokens = column.split(" ").filter((t) => t !== "");
  const out = [];
  for (let i = 0; i + 1 < tokens.length; i++) out.push(`${tokens[i]}${PAIR_MARK}${tokens[i + 1]}`);
  return out.join(" ");
};

if (!existsSync(values.pairs)) {
  const started = performance.now();
  const startedCpu = cpu();
  const out = new Database(values.pairs);
  out.pragma("journal_mode = OFF");
  out.pragma("synchronous = OFF");
  const corpus = new Database(values.db, { readonly: true, fileMustExist: true });
  // The same five columns as posts_fts, so that the weights and the left-out column are the same.
  out.exec(`CREATE VIRTUAL TABLE pair_fts USING fts5 (title, body, feed_name, language, title_words,
    content = '', tokenize = 'ascii')`);
  const insert = out.prepare(
    "INSERT INTO pair_fts (rowid, title, body, feed_name, language, title_words) VALUES (?, ?, ?, ?, '', '')",
  );
  const batch = corpus.prepare(`SELECT p.date_key AS key, p.language_id, p.title, p.excerpt, p.content,
      f.name AS feed_name FROM posts p JOIN feeds f ON f.id = p.feed_id
    WHERE p.date_key > ? ORDER BY p.date_key LIMIT 5000`);
  let after = Number.MIN_SAFE_INTEGER;
  let done = 0;
  for (;;) {
    const rows = batch.all(after);
    if (rows.length === 0) break;
    out.transaction(() => {
      for (const r of rows) {
        const row = fts5IndexRow(r.key, r.title, r.excerpt, r.content, r.feed_name, r.language_id);
        insert.run(row[0], pairsOf(row[1]), pairsOf(row[2]), pairsOf(row[3]));
      }
    })();
    after = rows.at(-1).key;
    done += rows.length;
    if (done % 100_000 < 5000)
      console.error(`  ${done} posts, ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  const built = performance.now();
  out.exec("INSERT INTO pair_fts (pair_fts) VALUES ('optimize')");
  out.close();
  corpus.close();
  console.log(
    `built ${values.pairs}: ${done} posts in ${((built - started) / 1000).toFixed(1)} s wall (optimize ${((performance.now() - built) / 1000).toFixed(1)} s more), ${((cpu() - startedCpu) / 1000).toFixed(1)} s CPU, ${(statSync(values.pairs).size / 2 ** 20).toFixed(0)} MiB; load ${loadavg()[0].toFixed(1)}`,
  );
}

const db = new Database(values.db, { readonly: true, fileMustExist: true });
db.loadExtension(EXTENSION);
db.pragma("cache_size = -65536");
// Attached to a read-only connection, the file is read only too.
db.prepare("ATTACH DATABASE ? AS pairs").run(values.pairs);
const stmts = new StatementCache(db);
const totals = searchIndexTotals(stmts);
// Every row's length in the connection's cache, as a heavy query thread's warm-up leaves it.
const lengths = loadRowLengths(stmts);
const idsOf = db
  .prepare(
    "SELECT k.date_key, k.id FROM posts k INDEXED BY posts_by_date_key WHERE k.date_key IN (SELECT value FROM json_each(?))",
  )
  .raw();
/** The page's [id, score] from its [key, score] rows (the store maps only the page's keys). */
const rank = (keyed) => {
  const ids = new Map(idsOf.all(JSON.stringify(keyed.map(([key]) => key))));
  return keyed.map(([key, score]) => [ids.get(key), score]);
};
/** The pool (the newest POOL hits of `walk`) ranked as the store ranks it: score, then key, descending. */
const ranked = (walk) => `SELECT key, score FROM (${walk}) ORDER BY score DESC, key DESC LIMIT ? OFFSET ?`;
const sampleFrom = db
  .prepare("SELECT rowid FROM posts_fts ORDER BY rowid DESC LIMIT 1 OFFSET ?")
  .pluck()
  .get(SAMPLE - 1);
console.log(
  `${lengths} row lengths cached; phrase pairs, ${values.db} with ${values.pairs}: relevance pool ${POOL}, limit ${limit}, offset ${offset}; process CPU ms, ${rounds} rounds in turns; load ${loadavg()[0].toFixed(1)} (2 cores, shared)`,
);
for (const phrase of phrases) {
  const words = phrase.split(" ");
  if (words.length !== 2) throw new Error(`two words only: ${phrase}`);
  const pair = `"${words[0]}${PAIR_MARK}${words[1]}"`;
  // The phrase's count in the newest SAMPLE posts, from posts_fts, as the store's term sample.
  const inSample = db
    .prepare("SELECT count(*) FROM posts_fts WHERE posts_fts MATCH ? AND rowid >= ?")
    .pluck()
    .get(`"${phrase}"`, sampleFrom ?? 0);
  const viaPhrase = db
    .prepare(
      ranked(`SELECT rowid AS key, sampled_bm25(posts_fts, 'posts_fts_docsize', ${WEIGHTS}, ?, ?) AS score
        FROM posts_fts WHERE posts_fts MATCH ? ORDER BY rowid DESC LIMIT ?`),
    )
    .raw();
  const viaPairs = db
    .prepare(
      ranked(`SELECT rowid AS key, sampled_bm25_over(pair_fts, ?, ?, 'posts_fts_docsize', ${WEIGHTS}, ?, ?)
        AS score FROM pairs.pair_fts WHERE pair_fts MATCH ? ORDER BY rowid DESC LIMIT ?`),
    )
    .raw();
  // The walk alone, no score: what finding the pool costs each way.
  const findPhrase = db.prepare(
    "SELECT rowid FROM posts_fts WHERE posts_fts MATCH ? ORDER BY rowid DESC LIMIT ?",
  );
  const findPairs = db.prepare(
    "SELECT rowid FROM pairs.pair_fts WHERE pair_fts MATCH ? ORDER BY rowid DESC LIMIT ?",
  );
  const ms = { phrase: [], pairs: [] };
  const statement = { phrase: [], pairs: [] };
  const found = { phrase: [], pairs: [] };
  let same = true;
  let hits = 0;
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ["phrase", "pairs"] : ["pairs", "phrase"];
    const pages = {};
    for (const way of order) {
      const at = cpu();
      const keyed =
        way === "phrase"
          ? viaPhrase.all(SAMPLE, inSample, `"${phrase}"`, POOL, limit, offset)
          : viaPairs.all(totals.rows, totals.tokens, SAMPLE, inSample, pair, POOL, limit, offset);
      statement[way].push(cpu() - at);
      pages[way] = rank(keyed);
      ms[way].push(cpu() - at);
      const walk = cpu();
      (way === "phrase" ? findPhrase.all(`"${phrase}"`, POOL) : findPairs.all(pair, POOL)).length;
      found[way].push(cpu() - walk);
      hits = keyed.length;
    }
    same &&= JSON.stringify(pages.phrase) === JSON.stringify(pages.pairs);
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const hitCount = (table, match) =>
    db
      .prepare(`SELECT count(*) FROM ${table} WHERE ${table.split(".").at(-1)} MATCH ?`)
      .pluck()
      .get(match);
  const line = (way) =>
    `first ${ms[way][0].toFixed(1)}, median ${median(ms[way].slice(1)).toFixed(1)} ms (the statement ${statement[way][0].toFixed(1)} / ${median(statement[way].slice(1)).toFixed(1)}, the walk unscored ${found[way][0].toFixed(1)} / ${median(found[way].slice(1)).toFixed(1)})`;
  console.log(
    `"${phrase}": ${hitCount("posts_fts", `"${phrase}"`)} hits (pairs: ${hitCount("pairs.pair_fts", pair)}), page of ${hits}, ${inSample} in the sample; page the same (ids, scores): ${same ? "yes" : "NO"}\n  posts_fts phrase: ${line("phrase")}\n  pair index:       ${line("pairs")}; ratio ${(median(ms.pairs.slice(1)) / median(ms.phrase.slice(1))).toFixed(2)}x`,
  );
}
db.close();
