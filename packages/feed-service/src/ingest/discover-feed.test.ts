import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { discoverFeed, feedLinksInHtml } from "./discover-feed.js";

let server: Server;
let base: string;
const pages: Record<string, [string, string]> = {
  "/blog/": [
    "text/html; charset=utf-8",
    `<!DOCTYPE html><html><head><title>Blog</title>
     <link rel="stylesheet" href="/s.css">
     <link type='application/atom+xml' title="Atom" rel="alternate" href="feed.atom">
     </head><body>hi</body></html>`,
  ],
  "/blog/feed.atom": [
    "application/atom+xml",
    '<feed xmlns="http://www.w3.org/2005/Atom"><title>The Blog</title><link href="/blog/"/></feed>',
  ],
  "/plain/": ["text/html", "<html><head></head><body>no feeds here</body></html>"],
};

before(async () => {
  server = createServer((req, res) => {
    const page = pages[req.url ?? ""];
    if (!page) return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": page[0] }).end(page[1]);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => server.close());

test("feedLinksInHtml reads rel=alternate feed links in any attribute order, honouring <base>", () => {
  const html = `<base href="https://cdn.example/x/"><link rel="alternate" type="application/rss+xml" href="rss.xml">
    <link rel="alternate" type="text/html" href="/fr/"><link href="/feed.json" rel="Alternate" type="application/feed+json">`;
  assert.deepEqual(feedLinksInHtml(html, "https://e.example/"), [
    "https://cdn.example/x/rss.xml",
    "https://cdn.example/feed.json",
  ]);
});

test("discoverFeed follows an HTML page to its feed, or takes a feed URL as it is", async () => {
  const viaPage = await discoverFeed(`${base}/blog/`);
  assert.deepEqual(viaPage, {
    feedUrl: `${base}/blog/feed.atom`,
    title: "The Blog",
    siteUrl: `${base}/blog/`,
  });
  assert.equal((await discoverFeed(`${base}/blog/feed.atom`)).feedUrl, `${base}/blog/feed.atom`);
});

test("a page without feed links and a missing page are clear errors", async () => {
  await assert.rejects(discoverFeed(`${base}/plain/`), {
    code: "FEED_PARSE_FAILED",
    message: /names no feed/,
  });
  await assert.rejects(discoverFeed(`${base}/nothing`), { code: "FEED_FETCH_FAILED", message: /HTTP 404/ });
});
