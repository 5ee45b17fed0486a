/**
 * The JSON API (spec §5.1) through a real server and database: the shared operation and fault
 * expectations through the JSON client, and what only the JSON API has: next-page links,
 * defaults, markup-safe JSON text, ETag/304 and Cache-Control, CORS, problem documents for
 * unknown routes and malformed path parameters, HEAD.
 *
 * The suite runs once per backend (SQLite and PostgreSQL): one body, the same assertions.
 *
 * @example
 * jsonApiSuite(sqliteBackend);
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { faultExpectations } from "../test-support/fault-expectations.js";
import { getJson, jsonClient } from "../test-support/operation-clients.js";
import { operationExpectations } from "../test-support/operation-expectations.js";
import {
  type Fixture,
  fixtureNow,
  hour,
  type RunningService,
  seedFixture,
  startTestService,
} from "../test-support/service-fixture.js";
import type { TestBackend } from "../test-support/test-backends.js";

interface Items {
  items: Array<Record<string, unknown>>;
  next?: string | null;
}

export function jsonApiSuite(backend: TestBackend): void {
  describe(`JSON API (${backend.name})`, () => {
    let service: RunningService;
    let fx: Fixture;
    let clock = fixtureNow;

    before(async () => {
      service = await startTestService({ backend, now: () => clock });
      fx = await seedFixture(service.store);
    });
    after(() => service.close());

    const context = () => ({
      client: jsonClient(service.baseUrl),
      fx,
      baseUrl: service.baseUrl,
      setClock: (ms: number) => {
        clock = ms;
      },
      now: () => clock,
    });
    describe("the operations' expectations", () => operationExpectations(context));
    describe("the fault rules", () => faultExpectations(context));

    const get = (url: string, headers?: Record<string, string>) => getJson(service.baseUrl, url, headers);

    test("post lists link their next page until the last; other lists have no next", async () => {
      const seen: unknown[] = [];
      let url: string | null = "/api/v1/posts?limit=3&languageIds=";
      let pages = 0;
      while (url !== null) {
        const r = await get(url);
        assert.equal(r.status, 200, url);
        const body = r.json as Items;
        seen.push(...body.items.map((i) => i.postId));
        pages += 1;
        if (body.next !== null) {
          assert.ok(body.next!.startsWith(`${service.baseUrl}/api/v1/posts?`), body.next!);
          const next = new URL(body.next!);
          assert.equal(next.searchParams.get("limit"), "3");
          url = next.pathname + next.search;
        } else url = null;
      }
      assert.equal(pages, 3);
      assert.deepEqual(
        seen,
        ["b2", "a1", "b1", "d1", "c2", "a2", "c1", "a3"].map((n) => fx.posts[n]),
      );
      const exact = (await get("/api/v1/posts?limit=8")).json as Items;
      assert.match(String(exact.next), /offset=8/, "a full page may have a next one");
      const beyond = (await get("/api/v1/posts?limit=8&offset=8")).json as Items;
      assert.deepEqual([beyond.items.length, beyond.next], [0, null]);
      assert.equal(((await get("/api/v1/posts/popular?daysBack=30&limit=1")).json as Items).next, null);
      assert.equal(
        ((await get(`/api/v1/feeds/${fx.feeds.flexWeekly}/posts?limit=1`)).json as Items).next !== null,
        true,
      );
      assert.equal("next" in ((await get("/api/v1/categories")).json as Items), false);
    });

    test("defaults where §4 allows them; unknown query parameters are ignored", async () => {
      const all = (await get("/api/v1/posts?colour=blue")).json as Items;
      assert.equal(all.items.length, 8);
      // daysBack 7 by default: a1 (3 clicks, 1 h ago) and c1 (1 click, 7 h ago) and a2 (2 days ago).
      const popular = (await get("/api/v1/posts/popular")).json as Items;
      assert.deepEqual(
        popular.items.map((i) => i.postId),
        ["a1", "a2", "c1"].map((n) => fx.posts[n]),
      );
      const prolific = (await get("/api/v1/feeds/prolific")).json as Items;
      assert.ok(prolific.items.length >= 3);
      const noQ = await get("/api/v1/search");
      assert.equal(noQ.status, 400);
      assert.match(String((noQ.json as { detail: string }).detail), /^The q query parameter is required/);
    });

    test("a smart category by id or by key; anything else in its place is a bad argument", async () => {
      const byId = (await get(`/api/v1/smart-categories/${fx.smart.id}/posts`)).json as Items;
      const byKey = (await get(`/api/v1/smart-categories/${fx.smart.key.toUpperCase()}/posts`)).json as Items;
      assert.deepEqual(byId, byKey);
      assert.equal(byId.items.length, 2);
      const other = await get("/api/v1/smart-categories/flex-stuff/posts");
      assert.equal(other.status, 400);
      assert.match(
        String((other.json as { detail: string }).detail),
        /must be its id \(a whole number\) or its key \(a UUID\); got "flex-stuff"\./,
      );
    });

    test("ETag on every 200, 304 for a matching If-None-Match, a new tag after a write; Cache-Control", async () => {
      for (const url of [
        "/api/v1/categories",
        "/api/v1/posts/popular?daysBack=30",
        "/api/v1/languages/stats",
      ]) {
        const first = await get(url);
        const etag = first.headers.get("etag");
        assert.match(String(etag), /^"[\w-]{22}"$/, url);
        assert.equal(first.headers.get("cache-control"), "public, max-age=30");
        const again = await get(url, { "If-None-Match": `"nope", W/${etag}` });
        assert.equal(again.status, 304, url);
        assert.equal(again.text, "");
        assert.equal(again.headers.get("etag"), etag);
        assert.equal(again.headers.get("access-control-allow-origin"), "*");
        assert.equal((await get(url, { "If-None-Match": '"other"' })).status, 200);
      }
      const before = (await get("/api/v1/categories")).headers.get("etag")!;
      await service.store.addCategory("Durian");
      const changed = await get("/api/v1/categories", { "If-None-Match": before });
      assert.equal(changed.status, 200, "a write changes the answer, so the old tag no longer matches");
      assert.notEqual(changed.headers.get("etag"), before);
      assert.equal((changed.json as Items).items.length, 4);
    });

    test("CORS on answers, problems and the preflight; HEAD answers headers only", async () => {
      const ok = await get("/api/v1/languages");
      assert.equal(ok.headers.get("access-control-allow-origin"), "*");
      assert.match(String(ok.headers.get("access-control-expose-headers")), /ETag/);
      const problem = await get("/api/v1/posts?limit=x");
      assert.equal(problem.status, 400);
      assert.equal(problem.headers.get("access-control-allow-origin"), "*");
      const preflight = await fetch(`${service.baseUrl}/api/v1/posts`, {
        method: "OPTIONS",
        headers: { Origin: "https://app.example", "Access-Control-Request-Method": "GET" },
      });
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers.get("access-control-allow-origin"), "*");
      assert.match(String(preflight.headers.get("access-control-allow-headers")), /If-None-Match/);
      const head = await fetch(`${service.baseUrl}/api/v1/languages`, { method: "HEAD" });
      assert.equal(head.status, 200);
      assert.equal(head.headers.get("etag"), ok.headers.get("etag"));
      assert.equal(await head.text(), "");
    });

    test("a path under /api that no route has is a problem document (404)", async () => {
      const r = await get("/api/v1/nothing-here");
      assert.equal(r.status, 404);
      assert.equal(r.headers.get("content-type"), "application/problem+json; charset=utf-8");
      assert.deepEqual(Object.keys(r.json as object).slice(0, 4), ["type", "title", "status", "detail"]);
      assert.match(String((r.json as { detail: string }).detail), /openapi\.json/);
    });

    test("a known path asked with another method is 405 with Allow, an unknown one still 404", async () => {
      for (const [method, path] of [
        ["POST", "/api/v1/posts"],
        ["DELETE", "/api/v1/feeds/1/posts"],
        ["PUT", "/api/v1/languages"],
        ["PATCH", "/api/v1/search?q=x"],
        ["POST", "/api/v1/openapi.json"],
      ]) {
        const r = await fetch(service.baseUrl + path!, { method });
        assert.equal(r.status, 405, `${method} ${path}`);
        assert.equal(r.headers.get("allow"), "GET, HEAD, OPTIONS");
        assert.equal(r.headers.get("content-type"), "application/problem+json; charset=utf-8");
        assert.equal(r.headers.get("access-control-allow-origin"), "*");
        const problem = (await r.json()) as Record<string, unknown>;
        assert.deepEqual(
          [problem.status, problem.title, problem.code],
          [405, "Method Not Allowed", "FEED_METHOD_NOT_ALLOWED"],
        );
        assert.match(String(problem.detail), new RegExp(`answers GET and HEAD only .*got ${method}\\.`));
      }
      const unknown = await fetch(`${service.baseUrl}/api/v1/nothing-here`, { method: "POST" });
      assert.equal(unknown.status, 404);
    });

    test("messages name the query parameters as the URL spells them (since, q), not the SOAP arguments", async () => {
      const since = await get(`/api/v1/categories/${fx.categories.apple}/posts?since=yesterday`);
      assert.equal(since.status, 400);
      const detail = String((since.json as { detail: string }).detail);
      assert.match(
        detail,
        /^The since query parameter must be empty, a whole post id such as 1234, or an ISO 8601 instant/,
      );
      assert.doesNotMatch(detail, /sincepost/);
      const q = await get("/api/v1/search?q=%20%20");
      assert.equal(q.status, 400);
      assert.match(
        String((q.json as { detail: string }).detail),
        /^The q query parameter must be text of 1 to 256 characters/,
      );
      const missing = await get("/api/v1/search");
      assert.match(String((missing.json as { detail: string }).detail), /^The q query parameter is required/);
      // Parameters named alike keep their names.
      const limit = await get("/api/v1/posts?limit=-1");
      assert.match(
        String((limit.json as { detail: string }).detail),
        /^The limit argument must be a whole number/,
      );
    });

    test("text with markup and entities comes out as JSON that escapes < > & and parses back unchanged", async () => {
      const other = await startTestService({ backend, now: () => fixtureNow });
      try {
        const feed = await other.store.addFeed({
          feedUrl: "https://hostile.example.org/feed",
          feedName: "Tom & Jerry <script>",
          categoryId: null,
          languageId: 1,
        });
        const title = `<b>Bold</b> & "quoted" &amp; </script><script>alert(1)</script>`;
        await other.store.applyFeedUpdate(feed.feedId, {
          posts: [
            {
              guid: "x1",
              link: "https://hostile.example.org/1",
              title,
              excerpt: "1 < 2 && 3 > 2",
              content: "<p>1 &lt; 2</p>",
              publishedAt: fixtureNow - hour,
              updatedAt: null,
              seenAt: fixtureNow,
              languageId: 1,
            },
          ],
          fetchState: { lastFetchedAt: fixtureNow },
        });
        const r = await getJson(other.baseUrl, "/api/v1/posts");
        assert.doesNotMatch(r.text, /[<>&]/);
        assert.match(r.text, /\\u003cb\\u003eBold\\u003c\/b\\u003e \\u0026/);
        const item = (r.json as Items).items[0];
        assert.equal(item.postTitle, title);
        assert.equal(item.postExcerpt, "1 < 2 && 3 > 2");
        assert.equal(item.feedName, "Tom & Jerry <script>");
      } finally {
        await other.close();
      }
    });

    test("a store that fails answers 500 or 503 problems with a generic detail, never its internals", async () => {
      const broken = await startTestService({ backend });
      try {
        await broken.store.close();
        const r = await getJson(broken.baseUrl, "/api/v1/posts");
        assert.ok(r.status === 503 || r.status === 500, String(r.status));
        assert.equal(r.headers.get("content-type"), "application/problem+json; charset=utf-8");
        assert.doesNotMatch(r.text, /sqlite|postgres|pool|127\.0\.0\.1|\/tmp\/|\.db|\bat \S+ \(/i);
      } finally {
        await broken.close().catch(() => {});
      }
    });
  });
}
