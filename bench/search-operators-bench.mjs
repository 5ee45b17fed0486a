// The worst cases of the search operators (spec §4) on a copy of a demo database, through the
// operation table as every adapter calls it: a prefix of 3 common letters, title:the, feed: of
// the largest feed, after: ten years back, each alone and with common words, in each order.
// Prints one line per query and order: the first call's time and the median of 5 more.
//
//   npm run build && node bench/search-operators-bench.mjs /tmp/copy-of-feed-service-1000000-v2.db
//
// Copy the database first: opening it may migrate it.
import { performance } from "node:perf_hooks";
import { createOperationRunner, openStore, parseSearchQuery } from "../packages/feed-service/dist/index.js";

const location = process.argv[2];
if (!location) {
  console.error("usage: node bench/search-operators-bench.mjs <copy of a demo database>");
  process.exit(2);
}
const store = await openStore(location);
const runner = createOperationRunner({ store, parseSearch: parseSearchQuery });
const feeds = await store.feeds();
const largest = feeds.reduce((a, b) => (b.postCount > a.postCount ? b : a));
const feedWord = largest.feedName.split(/\s+/)[0].toLowerCase();
const tenYearsAgo = new Date(Date.now() - 3652 * 86_400_000).toISOString().slice(0, 10);
console.log(`largest feed: ${largest.feedName} (${largest.postCount} posts); feed:${feedWord}`);

const queries = [
  "the*",
  "pro*",
  "con* new",
  "title:the",
  "title:the new",
  `feed:${feedWord}`,
  `feed:${feedWord} the`,
  `feed:${feedWord} new data`,
  `after:${tenYearsAgo}`,
  `after:${tenYearsAgo} the`,
  `after:${tenYearsAgo} the new`,
  "lang:en the",
  "lang:de,fr the",
  `the -feed:${feedWord}`,
  `pro* title:the feed:${feedWord} after:${tenYearsAgo}`,
];

async function time(args) {
  const start = performance.now();
  const rows = await runner.call("search", args, { baseUrl: "http://localhost" });
  return { ms: performance.now() - start, rows: rows.length };
}

for (const q of queries) {
  for (const sortBy of ["relevance", "date", "clicks"]) {
    const args = { limit: 20, offset: 0, searchTerms: q, sortBy, languageIds: "" };
    let first;
    try {
      first = await time(args);
    } catch (error) {
      console.log(`${q.padEnd(48)} ${sortBy.padEnd(9)} ${error.code ?? error.message}`);
      continue;
    }
    const again = [];
    for (let i = 0; i < 5; i++) {
      try {
        again.push((await time(args)).ms);
      } catch {
        again.push(Number.POSITIVE_INFINITY);
      }
    }
    again.sort((a, b) => a - b);
    console.log(
      `${q.padEnd(48)} ${sortBy.padEnd(9)} first ${first.ms.toFixed(1).padStart(7)} ms  median ${again[2].toFixed(1).padStart(7)} ms  rows ${first.rows}`,
    );
  }
}
await store.close();
