// Byte-for-byte comparison of two builds' answers: the real `feed-service serve --no-ingest` of this
// checkout and of another checkout (--baseline-tree, its built packages) on the same database,
// both with the same --public-url (tracking links name it), asked the same SOAP calls and JSON
// API pages, one build after the other. Searches ask past their first page (offset 20), which is
// not recorded in the search history, so neither server's answers change the other's.
// Usage: npx tsc -b && node bench/answer-bytes.mjs --baseline-tree <checkout> --database <file or postgres:// URL>
import { parseArgs } from "node:util";
import { startServe, stopServe } from "./serve-process.mjs";

const { values } = parseArgs({
  options: { "baseline-tree": { type: "string" }, database: { type: "string" } },
});
if (!values["baseline-tree"] || !values.database)
  throw new Error("--baseline-tree <checkout> --database <db>");
const publicUrl = "http://feeds.example";

const serve = (tree) => startServe(values.database, ["--public-url", publicUrl], { tree });

const cell = (type, value) => `xsi:type="xsd:${type}">${value}`;
const soap = (op, params = {}) =>
  '<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" ' +
  'xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><soapenv:Body>' +
  `<ns1:${op} soapenv:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/" xmlns:ns1="http://webservices">` +
  Object.entries(params)
    .map(([name, [type, value]]) => `<${name} ${cell(type, value)}</${name}>`)
    .join("") +
  `</ns1:${op}></soapenv:Body></soapenv:Envelope>`;
const page = (limit, offset, extra = {}) => ({
  limit: ["double", limit],
  offset: ["double", offset],
  ...extra,
});
const search = (terms, sortBy, limit = 1000, languageIds = "") =>
  soap("search", {
    ...page(limit, 20),
    searchTerms: ["string", terms],
    sortBy: ["string", sortBy],
    languageIds: ["string", languageIds],
  });
const soapCalls = [
  [
    "getMostRecentPosts limit 1000",
    soap("getMostRecentPosts", page(1000, 0, { languageIds: ["string", ""] })),
  ],
  ["getMostRecentPosts limit 20", soap("getMostRecentPosts", page(20, 0, { languageIds: ["string", ""] }))],
  ["getMostRecentPosts limit 101", soap("getMostRecentPosts", page(101, 0, { languageIds: ["string", ""] }))],
  [
    "getMostRecentPosts limit 1000 offset 5000",
    soap("getMostRecentPosts", page(1000, 5000, { languageIds: ["string", ""] })),
  ],
  [
    "getMostRecentPosts limit 1000 languages 6,7",
    soap("getMostRecentPosts", page(1000, 0, { languageIds: ["string", "6,7"] })),
  ],
  ["getPostsByFeed 1 limit 1000", soap("getPostsByFeed", page(1000, 0, { feedId: ["double", 1] }))],
  [
    "getPostsByCategory 1 limit 1000",
    soap("getPostsByCategory", page(1000, 0, { categoryId: ["double", 1], languageIds: ["string", ""] })),
  ],
  [
    "getPostsBySmartCategory 1 limit 1000",
    soap(
      "getPostsBySmartCategory",
      page(1000, 0, {
        smartCategoryId: ["double", 1],
        smartCategoryKey: ["string", ""],
        languageIds: ["string", ""],
      }),
    ),
  ],
  ["search 'the' relevance limit 1000", search("the", "relevance")],
  ["search 'the' date limit 1000", search("the", "date")],
  ["search 'the' clicks limit 1000", search("the", "clicks")],
  ["search 'pro*' relevance limit 1000", search("pro*", "relevance")],
  ["search '\"new release\"' date limit 1000", search('"new release"', "date")],
  ["search 'solución' date limit 1000", search("solución", "date")],
  ["search 'the' date limit 1000 language 1", search("the", "date", 1000, "1")],
  [
    "getMostPopularPosts 36500 limit 1000",
    soap("getMostPopularPosts", { daysBack: ["double", 36500], limit: ["double", 1000] }),
  ],
  [
    "getMostPopularFeeds 36500 limit 1000",
    soap("getMostPopularFeeds", { daysBack: ["double", 36500], limit: ["double", 1000] }),
  ],
  [
    "getMostProlificFeeds 36500 limit 1000",
    soap("getMostProlificFeeds", { daysBack: ["double", 36500], limit: ["double", 1000] }),
  ],
  ["getCategories", soap("getCategories")],
  ["getSmartCategories", soap("getSmartCategories")],
  ["getLanguages", soap("getLanguages")],
  ["getFeeds", soap("getFeeds")],
  ["getAggregateLanguageData", soap("getAggregateLanguageData")],
];
const jsonPages = [
  "/api/v1/posts?limit=1000",
  "/api/v1/posts?limit=20",
  "/api/v1/posts?limit=1000&offset=5000",
  "/api/v1/search?q=the&sortBy=date&limit=1000&offset=20",
  "/api/v1/search?q=solución&sortBy=relevance&limit=1000&offset=20",
  "/api/v1/posts/popular?daysBack=36500&limit=1000",
  "/api/v1/feeds/1/posts?limit=1000",
  "/api/v1/categories/1/posts?limit=1000",
  "/api/v1/feeds",
  "/api/v1/languages/stats",
];

async function answers(server) {
  const out = [];
  for (const [label, body] of soapCalls) {
    const r = await fetch(`${server.base}/webservices/FeedAggregator`, {
      method: "POST",
      headers: { "content-type": "text/xml; charset=utf-8", soapaction: '""' },
      body,
    });
    out.push([`SOAP ${label}`, r.status, Buffer.from(await r.arrayBuffer())]);
  }
  for (const path of jsonPages) {
    const r = await fetch(`${server.base}${path}`);
    out.push([`JSON ${path}`, r.status, Buffer.from(await r.arrayBuffer())]);
  }
  return out;
}

async function answersOf(tree) {
  const server = await serve(tree);
  try {
    return await answers(server);
  } finally {
    await stopServe(server);
  }
}

const old = await answersOf(values["baseline-tree"]);
const now = await answersOf(new URL("..", import.meta.url).pathname);
let differ = 0;
for (let i = 0; i < old.length; i++) {
  const [label, status, bytes] = old[i];
  const [, newStatus, newBytes] = now[i];
  const same = status === newStatus && bytes.equals(newBytes);
  if (!same) differ++;
  console.log(
    `${same ? "same  " : "DIFFER"} ${label}: ${status} ${bytes.length} bytes${same ? "" : ` / ${newStatus} ${newBytes.length} bytes`}`,
  );
}
console.log(`${old.length - differ} of ${old.length} answers byte-identical`);
process.exit(differ === 0 ? 0 : 1);
