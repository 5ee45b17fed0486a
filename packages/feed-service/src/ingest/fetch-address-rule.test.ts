/**
 * Ingest's fetch rule (spec §5.5): with `publicAddressesOnly` (what the commands set unless
 * --allow-private-fetch) a feed on a loopback, private or link-local address, or behind a name or
 * a redirect that leads to one, is refused before any request leaves, and the refusal is recorded
 * on the feed as ADDRESS_REFUSED; without it the same feed is fetched. A content server counts
 * every request it gets. On SQLite and PostgreSQL.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { Agent } from "undici";
import { openStore } from "../store/open-store.js";
import { postgresBackend, sqliteBackend, type TestBackend } from "../test-support/test-backends.js";
import { sendSubscriptionRequest } from "../websub/hub-request.js";
import { publicOnlyConnector, refusedAddress } from "./fetch-address-rule.js";
import { FeedFetchError } from "./fetch-error.js";
import { createFetchAgent, fetchFeed } from "./fetch-feed.js";
import { runIngestPass } from "./ingest-pass.js";

const rss = `<rss version="2.0"><channel><title>Local</title><item><title>A</title><guid>a</guid></item></channel></rss>`;

let requests = 0;
let v4: Server;
let v6: Server | undefined;
let port4: number;
let port6 = 0;
let redirector: Server;
let redirectorRequests = 0;
let redirectBase: string;

function contentServer(): Server {
  return createServer((_req, res) => {
    requests++;
    res.writeHead(200, { "content-type": "application/rss+xml" }).end(rss);
  });
}

before(async () => {
  v4 = contentServer();
  await new Promise<void>((r) => v4.listen(0, "127.0.0.1", r));
  port4 = (v4.address() as AddressInfo).port;
  const six = contentServer();
  // IPv6 loopback may be off in a container; the [::1] case is then refused without a server.
  v6 = await new Promise<Server | undefined>((resolve) => {
    six.once("error", () => resolve(undefined));
    six.listen(0, "::1", () => resolve(six));
  });
  if (v6) port6 = (v6.address() as AddressInfo).port;
  // Stands in for a public host: the tests' agent lets 127.0.0.2 through and nothing else.
  redirector = createServer((req, res) => {
    redirectorRequests++;
    const to = new URL(req.url ?? "/", "http://x").searchParams.get("to") ?? "";
    res.writeHead(302, { location: to }).end();
  });
  await new Promise<void>((r) => redirector.listen(0, "127.0.0.2", r));
  redirectBase = `http://127.0.0.2:${(redirector.address() as AddressInfo).port}`;
});
after(() => {
  for (const s of [v4, v6, redirector]) {
    s?.closeAllConnections();
    s?.close();
  }
});

async function refusal(promise: Promise<unknown>): Promise<FeedFetchError> {
  const error = await promise.then(
    () => assert.fail("the fetch was expected to be refused"),
    (e: unknown) => e,
  );
  assert.ok(error instanceof FeedFetchError, String(error));
  return error;
}

describe("the address rule", () => {
  it("refuses loopback, private, link-local, unique-local, unspecified and multicast addresses", () => {
    for (const a of [
      "127.0.0.1",
      "::1",
      "[::1]",
      "10.1.2.3",
      "172.20.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "fe80::1",
      "fd12::1",
      "0.0.0.0",
      "::",
      "224.0.0.1",
      "ff02::1",
      "::ffff:10.0.0.1",
    ]) {
      assert.match(refusedAddress(a) ?? "", /not a public internet address/, a);
    }
    for (const a of ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946", "1.1.1.1"]) {
      assert.equal(refusedAddress(a), null, a);
    }
  });

  it("fetchFeed refuses a private literal or a name resolving to one, with nothing fetched", async () => {
    const before = requests;
    const targets = [
      `http://127.0.0.1:${port4}/feed.xml`,
      `http://localhost:${port4}/feed.xml`,
      `http://[::1]:${port6 || 9}/feed.xml`,
      "http://10.0.0.1/feed.xml",
      "http://169.254.169.254/latest/meta-data/",
    ];
    for (const url of targets) {
      const error = await refusal(fetchFeed(url, { publicAddressesOnly: true, connectTimeoutMs: 2_000 }));
      assert.equal(error.failure, "ADDRESS_REFUSED", url);
      assert.match(error.message, /not a public internet address.*--allow-private-fetch/, url);
    }
    assert.equal(requests, before, "no request reached the content server");
    // Allowed (the default of the library, and the commands with --allow-private-fetch): fetched.
    const got = await fetchFeed(`http://127.0.0.1:${port4}/feed.xml`);
    assert.equal(got.status, "fetched");
    if (v6) assert.equal((await fetchFeed(`http://[::1]:${port6}/feed.xml`)).status, "fetched");
    assert.equal(requests, before + (v6 ? 2 : 1));
  });

  it("a redirect from an allowed host to a private address or name is refused at that hop", async () => {
    // The real rule, except that 127.0.0.2 counts as public: the redirector plays a public site.
    const agent = new Agent({
      connect: publicOnlyConnector({
        timeout: 2_000,
        rule: (address) => (address === "127.0.0.2" ? null : refusedAddress(address)),
      }),
    });
    try {
      const before = requests;
      const beforeHops = redirectorRequests;
      for (const to of [
        `http://127.0.0.1:${port4}/feed.xml`,
        `http://localhost:${port4}/feed.xml`,
        "http://169.254.169.254/latest/meta-data/",
      ]) {
        const url = `${redirectBase}/?to=${encodeURIComponent(to)}`;
        const error = await refusal(fetchFeed(url, { dispatcher: agent }));
        assert.equal(error.failure, "ADDRESS_REFUSED", to);
      }
      assert.equal(redirectorRequests, beforeHops + 3, "the first hop was reached each time");
      assert.equal(requests, before, "the private target never was");
    } finally {
      await agent.close();
    }
  });
});

describe("WebSub hub requests under the rule (serve's subscriber agent)", () => {
  it("a hub on a private address is not asked; allowed, it is", async () => {
    const agent = createFetchAgent({ publicAddressesOnly: true });
    const request = {
      mode: "subscribe" as const,
      hubUrl: `http://127.0.0.1:${port4}/hub`,
      topicUrl: "https://blog.example/feed",
      callbackUrl: "https://aggregator.example/websub/x",
      secret: "s".repeat(32),
      leaseSeconds: 3600,
    };
    try {
      const before = requests;
      await assert.rejects(sendSubscriptionRequest(request, { dispatcher: agent }), (error: Error) => {
        assert.match(error.message, /The hub was not asked: 127\.0\.0\.1 is not a public internet address/);
        return true;
      });
      assert.equal(requests, before);
      await sendSubscriptionRequest(request, {});
      assert.equal(requests, before + 1);
    } finally {
      await agent.close();
    }
  });
});

const backends: TestBackend[] = [sqliteBackend, postgresBackend()];
after(() => Promise.all(backends.map((b) => b.stop())));

for (const backend of backends) {
  describe(`ingest with public addresses only (${backend.name})`, () => {
    it("records ADDRESS_REFUSED on each private feed without fetching it, and fetches it when allowed", async () => {
      const db = await backend.newDatabase();
      const store = await openStore(db.location);
      try {
        const urls = [
          `http://127.0.0.1:${port4}/feed.xml`,
          `http://localhost:${port4}/feed.xml`,
          `http://[::1]:${port6 || 9}/feed.xml`,
          "http://10.0.0.1/feed.xml",
          "http://169.254.169.254/latest/meta-data/",
          `${redirectBase}/?to=${encodeURIComponent(`http://127.0.0.1:${port4}/feed.xml`)}`,
        ];
        const ids: number[] = [];
        for (const [i, url] of urls.entries())
          ids.push((await store.addFeed({ feedUrl: url, feedName: `F${i}` })).feedId);
        const before = requests;
        const beforeHops = redirectorRequests;
        const refused = await runIngestPass(store, { all: true, fetch: { publicAddressesOnly: true } });
        assert.equal(refused.failed, urls.length);
        assert.equal(requests, before, "nothing reached the content server");
        assert.equal(redirectorRequests, beforeHops, "not even the redirector (it is loopback too)");
        for (const id of ids) {
          const feed = await store.feedById(id);
          assert.equal(feed?.lastErrorCode, "ADDRESS_REFUSED", feed?.feedUrl);
          assert.equal(feed?.lastErrorStage, "fetch");
          assert.match(feed?.lastError ?? "", /--allow-private-fetch/);
        }
        // Allowed: the loopback feeds are fetched (the 10.x and 169.254.x ones are not tried, nor
        // localhost, which may resolve to ::1 first where the IPv4 server does not listen).
        for (const i of [1, 3, 4]) await store.removeFeed(ids[i]!);
        const allowed = await runIngestPass(store, { all: true, fetch: { connectTimeoutMs: 2_000 } });
        assert.equal(allowed.updated, v6 ? 3 : 2, JSON.stringify(allowed.failures));
        assert.equal((await store.feedById(ids[0]!))?.errorCount, 0);
      } finally {
        await store.close();
        db.drop();
      }
    });
  });
}
