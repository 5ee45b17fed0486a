/**
 * /suggest as a visitor, and as someone using it to reach what they should not, on a real server
 * over SQLite and PostgreSQL, with a content server on 127.0.0.1 that counts every request it
 * gets: loopback, private, link-local and IPv6 loopback addresses, names that resolve to them,
 * non-web schemes, a redirect to a refused address — refused with a clear message and nothing
 * fetched; with private fetches allowed by the operator, a 20 MB page and a page that is not a
 * feed are refused, a site page is followed to its feed; the honeypot and the per-address daily
 * limit hold.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { checkFeedAddress } from "../../admin/feed-check.js";
import { publicAddressAgent } from "../../admin/public-address.js";
import { FeedServiceError } from "../../errors.js";
import { AdminClient } from "../../test-support/admin-client.js";
import { startTestService } from "../../test-support/service-fixture.js";
import { postgresBackend, sqliteBackend, type TestBackend } from "../../test-support/test-backends.js";

const rss = (title: string) =>
  `<?xml version="1.0"?><rss version="2.0"><channel><title>${title}</title><link>http://example.test/</link><item><title>Hello</title><link>http://example.test/1</link><guid>1</guid></item></channel></rss>`;

/** A content server counting requests by path. */
async function contentServer(
  host: string,
  redirectTo?: () => string,
): Promise<{ server: Server; base: string; hits: Map<string, number> }> {
  const hits = new Map<string, number>();
  const server = createServer((req, res) => {
    const path = req.url ?? "/";
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (path === "/site") {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(
        '<html><head><link rel="alternate" type="application/rss+xml" href="/feed.xml"></head><body>A site</body></html>',
      );
    } else if (path === "/feed.xml" || path.startsWith("/n/")) {
      res.writeHead(200, { "content-type": "application/rss+xml" });
      res.end(rss(`Feed ${path}`));
    } else if (path === "/plain") {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<html><head><title>No feed here</title></head><body>Just a page</body></html>");
    } else if (path === "/big") {
      // 20 MB of page, sent in 64 KiB pieces; the fetcher must stop reading long before the end.
      res.writeHead(200, { "content-type": "text/html" });
      const chunk = Buffer.alloc(64 * 1024, "a");
      let sent = 0;
      const more = () => {
        while (sent < 20 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", more);
        }
        res.end();
      };
      res.on("error", () => {});
      more();
    } else if (path === "/redirect" && redirectTo) {
      res.writeHead(302, { location: redirectTo() });
      res.end();
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return { server, base: `http://${host.includes(":") ? `[${host}]` : host}:${port}`, hits };
}

let local: Awaited<ReturnType<typeof contentServer>>;
before(async () => {
  local = await contentServer("127.0.0.1");
});
after(() => local.server.close());

function total(hits: Map<string, number>): number {
  return [...hits.values()].reduce((a, b) => a + b, 0);
}

function urlError(body: string): string | undefined {
  return /<p class="field-error" id="f-url-error">([^<]*)<\/p>/.exec(body)?.[1];
}

async function suggest(client: AdminClient, fields: Record<string, string>) {
  await client.get("/suggest");
  return client.post("/suggest", fields, { csrf: null });
}

const backends: TestBackend[] = [sqliteBackend, postgresBackend()];
after(() => Promise.all(backends.map((b) => b.stop())));

for (const backend of backends) {
  describe(`suggest (${backend.name})`, () => {
    it("refuses loopback, private, link-local and IPv6 loopback addresses and non-web schemes, fetching nothing", async () => {
      const service = await startTestService({ backend });
      try {
        const visitor = new AdminClient(service.baseUrl);
        const page = await visitor.get("/");
        assert.match(page.body, /<a href="\/suggest">Suggest a feed<\/a>/);
        const port = new URL(local.base).port;
        const before = total(local.hits);
        for (const url of [
          `${local.base}/feed.xml`,
          `http://localhost:${port}/feed.xml`,
          `http://127.1:${port}/feed.xml`,
          `http://2130706433:${port}/feed.xml`,
          `http://[::1]:${port}/feed.xml`,
          `http://[::ffff:127.0.0.1]:${port}/feed.xml`,
          `http://0.0.0.0:${port}/feed.xml`,
          "http://10.20.30.40/feed.xml",
          "http://192.168.1.1/feed.xml",
          "http://172.16.0.1/feed.xml",
          "http://169.254.169.254/latest/meta-data/",
          "http://[fe80::1]/feed.xml",
          "http://[fd00::1]/feed.xml",
        ]) {
          const answer = await suggest(visitor, { url });
          assert.equal(answer.status, 400, url);
          assert.match(
            urlError(answer.body) ?? "",
            /That address is refused: .* Suggest a site on the public internet\./,
            url,
          );
        }
        for (const url of [
          "file:///etc/passwd",
          "javascript:alert(1)",
          "ftp://example.org/feed",
          "data:text/xml,<rss/>",
        ]) {
          const answer = await suggest(visitor, { url });
          assert.equal(answer.status, 400, url);
          assert.match(urlError(answer.body) ?? "", /must start with http:\/\/ or https:\/\//, url);
        }
        const credentials = await suggest(visitor, { url: "http://user:secret@example.org/feed" });
        assert.match(urlError(credentials.body) ?? "", /must not hold a user name or password/);
        assert.equal(total(local.hits), before, "the content server was reached");
        assert.deepEqual(await service.store.admin.suggestions(), []);
        // The refused value is shown back as text, the hostile scheme never as a link.
        const js = await suggest(visitor, { url: 'javascript:alert("<x>")' });
        assert.ok(!js.body.includes('href="javascript:'));
        assert.ok(js.body.includes("javascript:alert(&quot;&lt;x&gt;&quot;)"));
      } finally {
        await service.close();
      }
    });

    it("a form from another site, the honeypot, and more than 10 a day from one address: nothing kept, nothing fetched", async () => {
      const service = await startTestService({ backend, allowPrivateFetch: true });
      try {
        const visitor = new AdminClient(service.baseUrl, "127.0.0.60");
        const before = total(local.hits);
        await visitor.get("/suggest");
        const cross = await visitor.post(
          "/suggest",
          { url: `${local.base}/n/0.xml` },
          { csrf: null, origin: "http://evil.example" },
        );
        assert.equal(cross.status, 403);
        const bot = await suggest(visitor, { url: `${local.base}/n/0.xml`, website: "http://spam.example" });
        assert.equal(bot.status, 200);
        assert.match(bot.body, /Thank you/);
        assert.equal(total(local.hits), before);
        assert.deepEqual(await service.store.admin.suggestions(), []);

        for (let i = 1; i <= 10; i++) {
          const ok = await suggest(visitor, { url: `${local.base}/n/${i}.xml`, note: `number ${i}` });
          assert.equal(ok.status, 200, `suggestion ${i}`);
          assert.match(ok.body, /Thank you: your suggestion waits for an editor\./);
        }
        const eleventh = await suggest(visitor, { url: `${local.base}/n/11.xml` });
        assert.equal(eleventh.status, 429);
        assert.equal(eleventh.headers.get("retry-after"), "86400");
        assert.match(eleventh.body, /At most 10 suggestions a day/);
        assert.equal(local.hits.get("/n/11.xml"), undefined);
        // Another address is not held up.
        const neighbour = new AdminClient(service.baseUrl, "127.0.0.61");
        assert.equal((await suggest(neighbour, { url: `${local.base}/n/12.xml` })).status, 200);
        const waiting = await service.store.admin.suggestions("waiting");
        assert.equal(waiting.length, 11);
        // Suggesting a waiting feed again is turned away.
        const again = await suggest(neighbour, { url: `${local.base}/n/12.xml` });
        assert.match(urlError(again.body) ?? "", /suggested already/);
      } finally {
        await service.close();
      }
    });

    it("with private fetches allowed: a 20 MB page and a page without a feed are refused; a site page leads to its feed", async () => {
      const service = await startTestService({ backend, allowPrivateFetch: true });
      try {
        const visitor = new AdminClient(service.baseUrl, "127.0.0.70");
        const big = await suggest(visitor, { url: `${local.base}/big` });
        assert.equal(big.status, 400);
        assert.match(
          urlError(big.body) ?? "",
          /the page is larger than the 2 MiB a suggestion may be \(TOO_LARGE\)/,
        );
        const plain = await suggest(visitor, { url: `${local.base}/plain` });
        assert.equal(plain.status, 400);
        assert.match(urlError(plain.body) ?? "", /a web page that names no feed/);
        const missing = await suggest(visitor, { url: `${local.base}/nothing-here` });
        assert.match(urlError(missing.body) ?? "", /404/);
        assert.deepEqual(await service.store.admin.suggestions(), []);

        const category = await service.store.addCategory("Blogs");
        const site = await suggest(visitor, {
          url: `${local.base}/site`,
          category: String(category.categoryId),
          note: "Worth reading",
        });
        assert.equal(site.status, 200);
        const [kept] = await service.store.admin.suggestions("waiting");
        assert.equal(kept?.url, `${local.base}/site`);
        assert.equal(kept?.feedUrl, `${local.base}/feed.xml`);
        assert.equal(kept?.feedTitle, "Feed /feed.xml");
        assert.equal(kept?.categoryId, category.categoryId);
        assert.equal(kept?.note, "Worth reading");
        const [audit] = await service.store.admin.auditLog({ limit: 1 });
        assert.equal(audit?.actor, "visitor");
        assert.equal(audit?.action, "suggestion.add");
      } finally {
        await service.close();
      }
    });
  });
}

describe("the public-address rule on redirects", () => {
  it("checks every hop: a redirect to a refused address is not followed, its server never reached", async () => {
    const target = await contentServer("127.0.0.2");
    const first = await contentServer("127.0.0.1", () => `${target.base}/feed.xml`);
    try {
      // Only 127.0.0.2 is refused here, so that the first hop (a loopback server) can be reached.
      const agent = publicAddressAgent({
        allowPrivate: false,
        rule: (address) => (address === "127.0.0.2" ? "127.0.0.2 is refused" : null),
      });
      await assert.rejects(checkFeedAddress(`${first.base}/redirect`, { dispatcher: agent }), (error) => {
        assert.ok(error instanceof FeedServiceError);
        assert.match(
          error.message,
          /^That address is refused: 127\.0\.0\.2 is refused\. Suggest a site on the public internet\.$/,
        );
        return true;
      });
      assert.equal(first.hits.get("/redirect"), 1);
      assert.equal(total(target.hits), 0);
      // The same redirect is followed where the rule allows it.
      const open = publicAddressAgent({ allowPrivate: true });
      const found = await checkFeedAddress(`${first.base}/redirect`, { dispatcher: open });
      assert.equal(found.feedUrl, `${target.base}/feed.xml`);
      assert.equal(target.hits.get("/feed.xml"), 1);
      await agent.close();
      await open.close();
    } finally {
      first.server.close();
      target.server.close();
    }
  });
});
