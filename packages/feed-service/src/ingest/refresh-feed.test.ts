import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { openStore } from "../store/open-store.js";
import type { Store } from "../store/store.js";
import { FetchLimiter } from "./fetch-limiter.js";
import { runIngestPass } from "./ingest-pass.js";
import { refreshFeed } from "./refresh-feed.js";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const routes = new Map<string, Handler>();
let server: Server;
let base: string;

before(async () => {
  server = createServer((req, res) => {
    const h = routes.get(new URL(req.url ?? "/", "http://x").pathname);
    if (h) h(req, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

function item(i: number, guid = `urn:item:${i}`, body = `Body of item ${i}`) {
  return `<item><title>Item ${i} &amp;amp; more</title><link>/posts/${i}</link><guid isPermaLink="false">${guid}</guid>
    <pubDate>Mon, 0${(i % 9) + 1} Jan 2024 10:00:00 GMT</pubDate><description>&lt;p&gt;${body} &lt;script&gt;x()&lt;/script&gt;&lt;/p&gt;</description></item>`;
}
function rss(items: string, lang = "<language>en-US</language>") {
  return `<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>Test Feed</title><link>${base}/</link>${lang}${items}</channel></rss>`;
}

/** A route serving `doc()` with a strong ETag derived from the body, answering 304 when it matches. */
function serve(path: string, doc: () => string | Buffer, headers: Record<string, string> = {}) {
  routes.set(path, (req, res) => {
    const body = doc();
    const etag = `"${createHash("sha1").update(body).digest("hex")}"`;
    if (req.headers["if-none-match"] === etag) return void res.writeHead(304, { etag }).end();
    res.writeHead(200, { "content-type": "application/rss+xml", etag, ...headers }).end(body);
  });
}

async function withStore(fn: (store: Store) => Promise<void>) {
  const store = await openStore(":memory:");
  try {
    await fn(store);
  } finally {
    await store.close();
  }
}

async function addAndRefresh(store: Store, path: string, limiter = new FetchLimiter()) {
  const feed = await store.addFeed({ feedUrl: `${base}${path}`, feedName: `${base}${path}` });
  const result = await refreshFeed((await store.feedById(feed.feedId))!, { store, limiter });
  return { feed: (await store.feedById(feed.feedId))!, result };
}

async function refreshAgain(store: Store, feedId: number, now?: number) {
  return refreshFeed((await store.feedById(feedId))!, {
    store,
    limiter: new FetchLimiter(),
    now: now ? () => now : undefined,
  });
}

test("a first refresh stores normalised posts, names the feed and maps its language", async () => {
  serve("/basic.xml", () => rss([1, 2, 3].map((i) => item(i)).join("")));
  await withStore(async (store) => {
    const { feed, result } = await addAndRefresh(store, "/basic.xml");
    assert.deepEqual([result.outcome, result.inserted, result.updated], ["updated", 3, 0]);
    assert.equal(feed.feedName, "Test Feed");
    assert.equal(feed.siteUrl, `${base}/`);
    assert.equal(feed.errorCount, 0);
    assert.ok(feed.etag);
    assert.ok(feed.nextFetchAt > Date.now());
    const posts = await store.postsByFeed({ feedId: feed.feedId, limit: 10, offset: 0 });
    assert.equal(posts.length, 3);
    const p = posts.find((x) => x.postTitle === "Item 1 & more");
    assert.ok(p, `titles are unescaped once: ${posts.map((x) => x.postTitle)}`);
    assert.equal(p.postLink, `${base}/posts/1`);
    assert.equal(p.postExcerpt, "Body of item 1");
    assert.equal(new Date(p.postDate).toISOString(), "2024-01-02T10:00:00.000Z");
    const lang = await store.languageById(p.languageId);
    assert.equal(lang?.languageCode, "en");
  });
});

test("a second refresh of an unchanged feed takes the 304 path and changes nothing", async () => {
  let hits = 0;
  const doc = rss(item(1));
  serve("/same.xml", () => {
    hits++;
    return doc;
  });
  await withStore(async (store) => {
    const { feed } = await addAndRefresh(store, "/same.xml");
    const again = await refreshAgain(store, feed.feedId);
    assert.equal(again.outcome, "not-modified");
    assert.equal(hits, 2);
    assert.equal((await store.postsByFeed({ feedId: feed.feedId, limit: 10, offset: 0 })).length, 1);
  });
});

test("an updated entry updates its post instead of adding one", async () => {
  let body = "First version";
  serve("/updated.xml", () => rss(item(1, "urn:item:1", body)));
  await withStore(async (store) => {
    const { feed } = await addAndRefresh(store, "/updated.xml");
    body = "Second version";
    const again = await refreshAgain(store, feed.feedId);
    assert.deepEqual([again.inserted, again.updated], [0, 1]);
    const posts = await store.postsByFeed({ feedId: feed.feedId, limit: 10, offset: 0 });
    assert.equal(posts.length, 1);
    assert.equal(posts[0]!.postExcerpt, "Second version");
  });
});

test("a feed whose guids change on every fetch does not flood the database", async () => {
  let round = 0;
  serve("/unstable.xml", () => {
    round++;
    return rss([1, 2, 3].map((i) => item(i, `urn:${i}:${round}`)).join(""));
  });
  await withStore(async (store) => {
    const { feed } = await addAndRefresh(store, "/unstable.xml");
    for (let i = 0; i < 3; i++) {
      const again = await refreshAgain(store, feed.feedId);
      assert.equal(again.inserted, 0, `round ${round} inserted duplicates`);
    }
    assert.equal((await store.postsByFeed({ feedId: feed.feedId, limit: 10, offset: 0 })).length, 3);
  });
});

test("entries without guid are identified by link, then by a hash of title and content", async () => {
  const doc = rss(
    `<item><title>A</title><link>${base}/a</link></item><item><title>B</title><description>b</description></item>` +
      `<item><title>A again</title><link>${base}/a</link></item>`,
  );
  serve("/noguid.xml", () => doc);
  await withStore(async (store) => {
    const { feed, result } = await addAndRefresh(store, "/noguid.xml");
    assert.equal(result.inserted, 2, "the second entry with the same link is the same post");
    routes.delete("/noguid.xml");
    serve("/noguid.xml", () => `${doc} `);
    assert.equal((await refreshAgain(store, feed.feedId)).inserted, 0);
  });
});

test("HTTP errors are recorded on the feed with exponential backoff, never dropped", async () => {
  routes.set("/error.xml", (_req, res) => res.writeHead(500).end("no"));
  await withStore(async (store) => {
    const now = Date.now();
    const { feed, result } = await addAndRefresh(store, "/error.xml");
    assert.equal(result.outcome, "failed");
    assert.equal(feed.errorCount, 1);
    assert.deepEqual(
      [feed.lastErrorStage, feed.lastErrorCode, feed.lastError],
      ["http", "HTTP_5XX", "The server answered HTTP 500."],
    );
    const firstDelay = feed.nextFetchAt - now;
    await refreshAgain(store, feed.feedId, now);
    const twice = (await store.feedById(feed.feedId))!;
    assert.equal(twice.errorCount, 2);
    assert.ok(twice.nextFetchAt - now >= firstDelay * 2 - 1000, "backoff grows");
    const listed = (await store.adminFeeds()).find((f) => f.feedId === feed.feedId);
    assert.equal(listed?.errorCount, 2);
    routes.set("/error.xml", (_req, res) => res.writeHead(200).end(rss(item(1))));
    assert.equal((await refreshAgain(store, feed.feedId)).outcome, "updated");
    const healed = (await store.feedById(feed.feedId))!;
    // Healed: no failures in a row, a last success; the last error stays as history.
    assert.deepEqual([healed.errorCount, healed.lastErrorCode], [0, "HTTP_5XX"]);
    assert.ok(healed.lastSuccessAt! >= healed.lastErrorAt!);
  });
});

test("429 with Retry-After pushes the next fetch out and holds the host", async () => {
  routes.set("/busy.xml", (_req, res) => res.writeHead(429, { "retry-after": "7200" }).end());
  serve("/other-on-host.xml", () => rss(item(1)));
  await withStore(async (store) => {
    const limiter = new FetchLimiter();
    const { feed } = await addAndRefresh(store, "/busy.xml", limiter);
    assert.ok(feed.nextFetchAt >= Date.now() + 7_100_000);
    const other = await addAndRefresh(store, "/other-on-host.xml", limiter);
    assert.equal(other.result.outcome, "deferred");
    assert.equal(other.feed.errorCount, 0);
  });
});

test("a page that is no feed, and undecodable bytes, are handled", async () => {
  routes.set("/page.html", (_req, res) =>
    res.writeHead(200, { "content-type": "text/html" }).end("<!DOCTYPE html><html></html>"),
  );
  const latin = Buffer.concat([
    Buffer.from('<rss version="2.0"><channel><title>Caf'),
    Buffer.from([0xe9, 0x00, 0x07, 0xff]),
    Buffer.from(" & co</title><item><title>x < y</title><guid>g1</guid></item></channel></rss"),
  ]);
  routes.set("/latin.xml", (_req, res) => res.writeHead(200, { "content-type": "text/xml" }).end(latin));
  await withStore(async (store) => {
    const page = await addAndRefresh(store, "/page.html");
    assert.equal(page.result.outcome, "failed");
    assert.equal(page.feed.lastErrorCode, "PARSE_NOT_A_FEED");
    assert.match(page.feed.lastError ?? "", /^The document is not a feed we can read: it is an HTML page\.$/);
    const bad = await addAndRefresh(store, "/latin.xml");
    assert.equal(bad.result.outcome, "updated");
    assert.equal(bad.feed.feedName, "Café\u00ff & co");
    const [post] = await store.postsByFeed({ feedId: bad.feed.feedId, limit: 1, offset: 0 });
    assert.equal(post?.postTitle, "x < y");
  });
});

test("a permanent redirect updates the stored feed URL", async () => {
  routes.set("/old.xml", (_req, res) => res.writeHead(301, { location: "/new.xml" }).end());
  serve("/new.xml", () => rss(item(1)));
  await withStore(async (store) => {
    const { feed } = await addAndRefresh(store, "/old.xml");
    assert.equal(feed.feedUrl, `${base}/new.xml`);
  });
});

test("posts of a feed without a declared language get a detected one", async () => {
  const french =
    "Le gouvernement a annoncé mardi une série de mesures destinées à soutenir les agriculteurs touchés par la sécheresse.";
  serve("/fr.xml", () => rss(item(1, "urn:fr", french), ""));
  await withStore(async (store) => {
    const { feed } = await addAndRefresh(store, "/fr.xml");
    const [post] = await store.postsByFeed({ feedId: feed.feedId, limit: 1, offset: 0 });
    assert.equal((await store.languageById(post!.languageId))?.languageCode, "fr");
  });
});

test("an ingest pass refreshes due feeds and sums up", async () => {
  serve("/pass-a.xml", () => rss(item(1) + item(2)));
  routes.set("/pass-b.xml", (_req, res) => res.writeHead(404).end());
  await withStore(async (store) => {
    await store.addFeed({ feedUrl: `${base}/pass-a.xml`, feedName: "A" });
    await store.addFeed({ feedUrl: `${base}/pass-b.xml`, feedName: "B" });
    const progress: number[] = [];
    const summary = await runIngestPass(store, { onProgress: (done) => progress.push(done) });
    assert.equal(summary.feeds, 2);
    assert.equal(summary.updated, 1);
    assert.equal(summary.failed, 1);
    assert.equal(summary.postsInserted, 2);
    assert.deepEqual(progress, [1, 2]);
    assert.match(summary.failures[0]!.error, /HTTP 404/);
    const none = await runIngestPass(store);
    assert.equal(none.feeds, 0, "nothing is due right after a pass");
    assert.equal((await runIngestPass(store, { all: true })).feeds, 2);
  });
});
