// The local feed server of the ingest benchmark, run as a child process so that serving costs
// the ingest process no event-loop time: generates the feeds, listens on 127.0.0.1 port 0 and
// prints the port (arguments: feeds, items, and every how many items one is a copy of another
// feed's, 0 for none; then optionally a word list for the documents' words, as `--words`). GET /feed/<n>.xml serves feed n. A message `{ first }` from the parent replaces
// every document by the feed's next one (items numbered from `first`: new entries, as a refresh
// finds them) and is answered `{ ready: first }` once the new documents are served.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { feedDocument, useWordList } from "./feed-ingest-fixtures.mjs";

const feeds = Number(process.argv[2] ?? 1000);
const items = Number(process.argv[3] ?? 50);
// Every n-th item a copy of another feed's (feed-ingest-fixtures.mjs); 0: none.
const copyEvery = Number(process.argv[4] ?? 0);
if (process.argv[5]) useWordList(process.argv[5], (path) => readFileSync(path, "utf8"));
let docs = [];
const server = createServer((req, res) => {
  const m = /^\/feed\/(\d+)\.xml$/.exec(req.url ?? "");
  const doc = m ? docs[Number(m[1])] : undefined;
  if (!doc) return void res.writeHead(404).end();
  res.writeHead(200, { "content-type": "application/rss+xml; charset=utf-8", "content-length": doc.length });
  res.end(doc);
});
const documents = (base, first) =>
  Array.from({ length: feeds }, (_, i) => feedDocument(i, items, base, first, copyEvery));
server.listen(0, "127.0.0.1", () => {
  const base = `http://127.0.0.1:${server.address().port}`;
  docs = documents(base, 0);
  process.on("message", (m) => {
    docs = documents(base, m.first);
    process.send({ ready: m.first });
  });
  process.stdout.write(`${server.address().port}\n`);
});
process.on("disconnect", () => process.exit(0));
