/**
 * Feed health as the refresh records it: each kind of failure, provoked for real against local
 * servers (HTTP statuses, redirects, timeouts, refused and reset connections, TLS spoken to a plain
 * HTTP port, an unresolvable host, oversize and corrupt bodies, binary bodies, pages and broken
 * documents), lands on the feed with its stage and stable code; failures in a row back off
 * exponentially to the ceiling, and a success resets the count but keeps the last error.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { openStore } from "../store/open-store.js";
import type { Store } from "../store/store.js";
import { failureCodes } from "./failure-codes.js";
import { FetchLimiter } from "./fetch-limiter.js";
import { type RefreshContext, refreshFeed } from "./refresh-feed.js";
import { defaultSchedulePolicy } from "./schedule-policy.js";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const routes = new Map<string, Handler>();
let server: Server;
let base: string;
let closedPort: number;
let store: Store;

const rss = `<rss version="2.0"><channel><title>Fine</title><item><title>A</title><guid>a</guid></item></channel></rss>`;
const png = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");

before(async () => {
  server = createServer((req, res) => {
    const h = routes.get(req.url ?? "");
    if (h) h(req, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
  closedPort = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  store = await openStore(":memory:");
});
after(async () => {
  server.closeAllConnections();
  server.close();
  await store.close();
});

const status =
  (code: number, headers: Record<string, string> = {}): Handler =>
  (_req, res) =>
    void res.writeHead(code, headers).end();
routes.set("/401", status(401));
routes.set("/404", status(404));
routes.set("/410", status(410));
routes.set("/418", status(418));
routes.set("/500", status(500));
routes.set("/503", status(503, { "retry-after": "60" }));
routes.set("/no-location", status(302));
routes.set("/loop", status(302, { location: "/loop" }));
routes.set("/to-ftp", status(301, { location: "ftp://files.example/feed.xml" }));
routes.set("/silent", () => {});
routes.set("/reset", (req) => req.socket.destroy());
routes.set("/large", (_req, res) => void res.writeHead(200).end(rss.repeat(50)));
routes.set(
  "/bad-gzip",
  (_req, res) => void res.writeHead(200, { "content-encoding": "gzip" }).end("not gzip at all"),
);
routes.set("/image", (_req, res) => void res.writeHead(200, { "content-type": "image/png" }).end(png));
routes.set(
  "/page",
  (_req, res) =>
    void res
      .writeHead(200, { "content-type": "text/html" })
      .end("<!DOCTYPE html><html><body>Hi</body></html>"),
);
routes.set(
  "/broken-json",
  (_req, res) =>
    void res.writeHead(200, { "content-type": "application/feed+json" }).end('{"version": "1.1", "items": ['),
);
routes.set(
  "/fine",
  (_req, res) => void res.writeHead(200, { "content-type": "application/rss+xml" }).end(rss),
);

async function refreshOnce(url: string, extra: Partial<RefreshContext> = {}) {
  const added = await store.addFeed({ feedUrl: url, feedName: url });
  const result = await refreshFeed((await store.feedById(added.feedId))!, {
    store,
    limiter: new FetchLimiter(),
    fetch: { firstByteTimeoutMs: 300, maxBytes: 2000 },
    ...extra,
  });
  return { result, feed: (await store.feedById(added.feedId))! };
}

const cases: Array<[string, () => string, string, string]> = [
  ["401", () => `${base}/401`, "http", "HTTP_401"],
  ["404", () => `${base}/404`, "http", "HTTP_404"],
  ["410", () => `${base}/410`, "http", "HTTP_410"],
  ["another 4xx", () => `${base}/418`, "http", "HTTP_4XX"],
  ["500", () => `${base}/500`, "http", "HTTP_5XX"],
  ["503 with Retry-After", () => `${base}/503`, "http", "HTTP_5XX"],
  ["a redirect without Location", () => `${base}/no-location`, "http", "BAD_REDIRECT"],
  ["a redirect loop", () => `${base}/loop`, "http", "TOO_MANY_REDIRECTS"],
  ["a redirect to ftp", () => `${base}/to-ftp`, "fetch", "BAD_URL"],
  ["no answer", () => `${base}/silent`, "fetch", "FETCH_TIMEOUT"],
  ["a reset connection", () => `${base}/reset`, "fetch", "CONNECTION_RESET"],
  ["a refused connection", () => `http://127.0.0.1:${closedPort}/feed`, "fetch", "CONNECTION_REFUSED"],
  ["an unknown host", () => "http://no-such-host.invalid/feed.xml", "fetch", "DNS"],
  ["TLS to a plain HTTP port", () => `${base.replace("http:", "https:")}/fine`, "fetch", "TLS"],
  ["a body over the cap", () => `${base}/large`, "fetch", "TOO_LARGE"],
  ["corrupt gzip", () => `${base}/bad-gzip`, "fetch", "BAD_COMPRESSION"],
  ["an image", () => `${base}/image`, "decode", "NOT_TEXT"],
  ["an HTML page", () => `${base}/page`, "parse", "PARSE_NOT_A_FEED"],
  ["truncated JSON", () => `${base}/broken-json`, "parse", "PARSE_MALFORMED"],
];

for (const [what, url, stage, code] of cases) {
  test(`${what} is recorded as ${stage} ${code}`, async () => {
    const before = Date.now();
    const { result, feed } = await refreshOnce(url());
    assert.deepEqual([result.outcome, result.stage, result.code], ["failed", stage, code], result.error);
    assert.deepEqual([feed.lastErrorStage, feed.lastErrorCode, feed.errorCount], [stage, code, 1]);
    assert.equal(feed.lastError, result.error);
    assert.match(feed.lastError ?? "", /^\S.*\.$/, "a sentence for people");
    assert.doesNotMatch(feed.lastError ?? "", /\n|\bat \w+ \(|node:/, "no stack trace");
    assert.ok(feed.lastErrorAt! >= before && feed.lastErrorAt === feed.lastFetchedAt);
    assert.equal(feed.lastSuccessAt, null);
  });
}

test("every failure code is documented in the package README", () => {
  const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
  const missing = Object.keys(failureCodes).filter((code) => !readme.includes(`\`${code}\``));
  assert.deepEqual(missing, []);
});

test("a feed that keeps failing is polled less and less, and a success resets it", async () => {
  let up = false;
  routes.set("/flaky", (_req, res) => {
    if (up) res.writeHead(200, { "content-type": "application/rss+xml" }).end(rss);
    else res.writeHead(500).end();
  });
  const added = await store.addFeed({ feedUrl: `${base}/flaky`, feedName: "Flaky" });
  const minute = 60_000;
  let now = Date.UTC(2026, 0, 5);
  const waits: number[] = [];
  for (let i = 0; i < 9; i++) {
    const feed = (await store.feedById(added.feedId))!;
    await refreshFeed(feed, { store, limiter: new FetchLimiter(), now: () => now });
    const after = (await store.feedById(added.feedId))!;
    assert.equal(after.errorCount, i + 1);
    waits.push((after.nextFetchAt - now) / minute);
    now = after.nextFetchAt;
  }
  // 15 min doubling each time, up to the 24-hour ceiling.
  assert.deepEqual(waits, [15, 30, 60, 120, 240, 480, 960, 1440, 1440]);
  const failedAt = now;
  up = true;
  await refreshFeed((await store.feedById(added.feedId))!, {
    store,
    limiter: new FetchLimiter(),
    now: () => now,
  });
  const healed = (await store.feedById(added.feedId))!;
  assert.deepEqual([healed.errorCount, healed.lastSuccessAt, healed.lastErrorCode], [0, now, "HTTP_5XX"]);
  assert.ok(healed.lastErrorAt! < failedAt, "the last error is the last failure's, kept as history");
  assert.ok(healed.nextFetchAt - now <= defaultSchedulePolicy.maxIntervalMs);
  // The next failure starts the backoff again from its first step.
  up = false;
  await refreshFeed((await store.feedById(added.feedId))!, {
    store,
    limiter: new FetchLimiter(),
    now: () => now,
  });
  const again = (await store.feedById(added.feedId))!;
  assert.deepEqual([again.errorCount, (again.nextFetchAt - now) / minute], [1, 15]);
});
