import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { FeedFetchError } from "./fetch-error.js";
import { fetchFeed } from "./fetch-feed.js";
import { FetchLimiter } from "./fetch-limiter.js";

const rss = '<?xml version="1.0"?><rss version="2.0"><channel><title>T</title></channel></rss>';
const seen: IncomingMessage["headers"][] = [];
let server: Server;
let base: string;
let concurrent = 0;
let maxConcurrent = 0;

const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  "/feed": (req, res) => {
    if (req.headers["if-none-match"] === '"v1"') {
      res.writeHead(304, { etag: '"v1"' }).end();
      return;
    }
    res.writeHead(200, {
      "content-type": "application/rss+xml",
      etag: '"v1"',
      "last-modified": "Sat, 01 Jan 2022 00:00:00 GMT",
    });
    res.end(rss);
  },
  "/gzip": (_req, res) => res.writeHead(200, { "content-encoding": "gzip" }).end(gzipSync(rss)),
  "/br": (_req, res) => res.writeHead(200, { "content-encoding": "br" }).end(brotliCompressSync(rss)),
  "/deflate": (_req, res) => res.writeHead(200, { "content-encoding": "deflate" }).end(deflateSync(rss)),
  "/bad-gzip": (_req, res) =>
    res.writeHead(200, { "content-encoding": "gzip" }).end(Buffer.from("not gzip at all")),
  "/bomb": (_req, res) =>
    res.writeHead(200, { "content-encoding": "gzip" }).end(gzipSync(Buffer.alloc(50 * 1024 * 1024))),
  "/big": (_req, res) =>
    res.writeHead(200, { "content-length": String(2 * 1024 * 1024) }).end(Buffer.alloc(2 * 1024 * 1024, 32)),
  "/big-chunked": (_req, res) => {
    res.writeHead(200);
    for (let i = 0; i < 40; i++) res.write(Buffer.alloc(64 * 1024, 32));
    res.end();
  },
  "/moved": (_req, res) => res.writeHead(301, { location: "/moved-again" }).end(),
  "/moved-again": (_req, res) => res.writeHead(308, { location: `${base}/feed` }).end(),
  "/temporary": (_req, res) => res.writeHead(302, { location: "/moved" }).end(),
  "/loop": (_req, res) => res.writeHead(302, { location: "/loop" }).end(),
  "/to-ftp": (_req, res) => res.writeHead(302, { location: "ftp://example.com/feed" }).end(),
  "/missing": (_req, res) => res.writeHead(404).end("nope"),
  "/broken": (_req, res) => res.writeHead(500).end("boom"),
  "/busy": (_req, res) => res.writeHead(429, { "retry-after": "120" }).end(),
  "/down": (_req, res) =>
    res.writeHead(503, { "retry-after": new Date(Date.now() + 60_000).toUTCString() }).end(),
  "/slow-headers": (_req, res) => {
    setTimeout(() => res.writeHead(200).end(rss), 2000).unref();
  },
  "/slow-body": (_req, res) => {
    res.writeHead(200);
    res.write("<rss>");
    const t = setInterval(() => res.write(" "), 100);
    t.unref();
    res.on("close", () => clearInterval(t));
  },
  "/counted": (_req, res) => {
    concurrent++;
    maxConcurrent = Math.max(maxConcurrent, concurrent);
    setTimeout(() => {
      concurrent--;
      res.writeHead(200).end(rss);
    }, 50);
  },
};

before(async () => {
  server = createServer((req, res) => {
    seen.push(req.headers);
    const route = routes[new URL(req.url ?? "/", "http://x").pathname];
    if (route) route(req, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

async function fails(url: string, opts: Parameters<typeof fetchFeed>[1] = {}): Promise<FeedFetchError> {
  try {
    await fetchFeed(url, opts);
  } catch (error) {
    assert.ok(error instanceof FeedFetchError, `expected a FeedFetchError, got ${error}`);
    assert.equal(error.code, "FEED_FETCH_FAILED");
    return error;
  }
  assert.fail(`fetching ${url} should have failed`);
}

test("a plain fetch sends a User-Agent that names the service, Accept-Encoding and Cache-Control", async () => {
  const got = await fetchFeed(`${base}/feed`);
  assert.equal(got.status, "fetched");
  if (got.status !== "fetched") return;
  assert.equal(Buffer.from(got.body).toString(), rss);
  assert.equal(got.etag, '"v1"');
  assert.equal(got.lastModified, "Sat, 01 Jan 2022 00:00:00 GMT");
  assert.equal(got.movedTo, null);
  const h = seen.at(-1)!;
  assert.match(h["user-agent"] ?? "", /^feed-service\//);
  assert.match(h["accept-encoding"] ?? "", /gzip/);
  assert.equal(h["cache-control"], "max-age=0");
});

test("a conditional GET with the stored ETag comes back 304 not-modified", async () => {
  const got = await fetchFeed(`${base}/feed`, {
    etag: '"v1"',
    lastModified: "Sat, 01 Jan 2022 00:00:00 GMT",
  });
  assert.equal(got.status, "not-modified");
  assert.equal(seen.at(-1)!["if-none-match"], '"v1"');
  assert.equal(seen.at(-1)!["if-modified-since"], "Sat, 01 Jan 2022 00:00:00 GMT");
});

test("gzip, br and deflate bodies are decompressed; corrupt gzip is a clear error", async () => {
  for (const path of ["/gzip", "/br", "/deflate"]) {
    const got = await fetchFeed(`${base}${path}`);
    assert.equal(got.status === "fetched" && Buffer.from(got.body).toString(), rss, path);
  }
  assert.match((await fails(`${base}/bad-gzip`)).message, /gzip compression is corrupt/);
});

test("a gzip bomb stops at the size cap", async () => {
  const e = await fails(`${base}/bomb`, { maxBytes: 1024 * 1024 });
  assert.match(e.message, /larger than 1048576 bytes once decompressed/);
});

test("oversized bodies are refused, declared or chunked", async () => {
  assert.match((await fails(`${base}/big`, { maxBytes: 1024 * 1024 })).message, /2097152 declared/);
  assert.match(
    (await fails(`${base}/big-chunked`, { maxBytes: 1024 * 1024 })).message,
    /larger than 1048576/,
  );
});

test("permanent redirects report the new URL; a temporary hop does not", async () => {
  const moved = await fetchFeed(`${base}/moved`);
  assert.equal(moved.status, "fetched");
  assert.equal(moved.movedTo, `${base}/feed`);
  const temp = await fetchFeed(`${base}/temporary`);
  assert.equal(temp.movedTo, null);
  assert.equal(temp.url, `${base}/feed`);
  assert.match((await fails(`${base}/loop`, { maxRedirects: 3 })).message, /More than 3 redirects/);
  assert.match((await fails(`${base}/to-ftp`)).message, /must use http or https/);
});

test("4xx and 5xx are errors with their status; 429/503 carry Retry-After", async () => {
  assert.equal((await fails(`${base}/missing`)).httpStatus, 404);
  assert.equal((await fails(`${base}/broken`)).httpStatus, 500);
  assert.equal((await fails(`${base}/busy`)).retryAfterMs, 120_000);
  const down = await fails(`${base}/down`);
  assert.equal(down.httpStatus, 503);
  assert.ok(down.retryAfterMs !== null && down.retryAfterMs > 50_000 && down.retryAfterMs <= 60_000);
});

test("slow servers time out: first byte, and total", async () => {
  const t0 = Date.now();
  assert.match(
    (await fails(`${base}/slow-headers`, { firstByteTimeoutMs: 300 })).message,
    /did not start answering/,
  );
  assert.match((await fails(`${base}/slow-body`, { totalTimeoutMs: 500 })).message, /longer than 500 ms/);
  assert.ok(Date.now() - t0 < 1900, "timeouts fired late");
});

test("connection refused and bad URLs are clear errors", async () => {
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
  const port = (closed.address() as AddressInfo).port;
  closed.close();
  assert.match((await fails(`http://127.0.0.1:${port}/feed`)).message, /refused the connection/);
  assert.match((await fails("not a url")).message, /not an absolute URL/);
  assert.match((await fails("file:///etc/passwd")).message, /must use http or https; got file/);
});

test("the limiter keeps per-host concurrency at its limit", async () => {
  const limiter = new FetchLimiter({ overall: 8, perHost: 2 });
  maxConcurrent = 0;
  await Promise.all(
    Array.from({ length: 8 }, () => limiter.run("127.0.0.1", () => fetchFeed(`${base}/counted`))),
  );
  assert.equal(maxConcurrent, 2);
  const overall = new FetchLimiter({ overall: 3, perHost: 10 });
  maxConcurrent = 0;
  await Promise.all(
    Array.from({ length: 9 }, () => overall.run("127.0.0.1", () => fetchFeed(`${base}/counted`))),
  );
  assert.equal(maxConcurrent, 3);
});
