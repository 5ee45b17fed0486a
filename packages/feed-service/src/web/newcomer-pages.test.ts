/**
 * What the pages tell a reader beyond the operations' records, over real HTTP on SQLite and on
 * PostgreSQL: how many posts a search matches (exact up to spec §4's 10,000, "more than" beyond;
 * counted by the store on a full page, read off a page that ends the list),
 * which feeds fail to update and why (without the stored message, which may name internal hosts),
 * and feed names in collation order on the page and in the JSON API alike.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { IncomingPost } from "../store/store.js";
import { fixtureNow, hour, type RunningService, startTestService } from "../test-support/service-fixture.js";
import { postgresBackend, sqliteBackend, type TestBackend } from "../test-support/test-backends.js";

const pg = postgresBackend();
after(() => pg.stop());

function post(guid: string, title: string, at: number, languageId = 1): IncomingPost {
  return {
    guid,
    link: `https://example.org/${guid}`,
    title,
    excerpt: title,
    content: `<p>${title}</p>`,
    publishedAt: at,
    updatedAt: null,
    seenAt: at,
    languageId,
  };
}

/** The text of the search page's status line. */
function summary(page: string): string {
  const found = /<p class="summary" role="status">([^<]*)<\/p>/.exec(page);
  assert.ok(found, "the page has a status line");
  return found[1]!;
}

for (const backend of [sqliteBackend, pg] satisfies TestBackend[]) {
  describe(`pages for newcomers (${backend.name})`, () => {
    let service: RunningService;
    let fr: number;
    const feeds: Record<string, number> = {};
    before(async () => {
      service = await startTestService({ backend });
      const store = service.store;
      fr = (await store.ensureLanguage("fr")).languageId;
      for (const name of ["Zebra", "Sviluppo Web Italia", "Sécurité & Réseaux", "éclair", "apple"]) {
        feeds[name] = (
          await store.addFeed({
            feedUrl: `https://${encodeURIComponent(name)}.example.org/feed`,
            feedName: name,
          })
        ).feedId;
      }
      // 30 posts about walruses (every third in French), 10,001 about quaggas.
      await store.applyFeedUpdate(feeds.apple!, {
        fetchState: {},
        posts: Array.from({ length: 30 }, (_, i) =>
          post(`w${i}`, `Walrus sighting ${i}`, fixtureNow - i * hour, i % 3 === 0 ? fr : 1),
        ),
      });
      await store.applyFeedUpdate(feeds.Zebra!, {
        fetchState: {},
        posts: Array.from({ length: 10_001 }, (_, i) =>
          post(`q${i}`, `Quagga ${i}`, fixtureNow - i * 60_000),
        ),
      });
      await store.applyFeedUpdate(feeds.éclair!, {
        fetchState: {},
        posts: [post("lone", "A lone narwhal", fixtureNow - hour)],
      });
      // Broken: an HTTP 404 since a success three days ago, with a message naming an internal host.
      await store.applyFeedUpdate(feeds["Sécurité & Réseaux"]!, {
        posts: [],
        fetchState: {
          lastSuccessAt: Date.UTC(2026, 0, 12, 8, 0, 0),
          errorCount: 4,
          lastErrorAt: fixtureNow - 2 * hour,
          lastError: "HTTP 404 from http://10.0.0.5:8080/internal/feed via /srv/feed-service/cache",
          lastErrorStage: "http",
          lastErrorCode: "HTTP_404",
        },
      });
      // Never read: its host name is unknown.
      await store.applyFeedUpdate(feeds["Sviluppo Web Italia"]!, {
        posts: [],
        fetchState: {
          errorCount: 1,
          lastErrorAt: fixtureNow - 3 * hour,
          lastError: "getaddrinfo ENOTFOUND db.internal",
          lastErrorStage: "fetch",
          lastErrorCode: "DNS",
        },
      });
    });
    after(() => service?.close());

    const get = async (path: string) => {
      const response = await fetch(service.baseUrl + path);
      return { status: response.status, text: await response.text() };
    };

    it("search says how many posts match, exactly below 10,000", async () => {
      assert.equal(summary((await get("/search?q=walrus")).text), "30 posts match · showing 1–25");
      assert.equal(summary((await get("/search?q=walrus&page=2")).text), "30 posts match · showing 26–30");
      assert.equal(summary((await get(`/search?q=walrus&lang=${fr}`)).text), "10 posts match · showing 1–10");
      assert.equal(summary((await get("/search?q=walrus+-sighting")).text), "No post matches.");
      assert.equal(summary((await get("/search?q=narwhal")).text), "1 post matches · showing 1–1");
      const past = await get("/search?q=walrus&page=3");
      assert.equal(summary(past.text), "30 posts match; no more on this page.");
    });

    it("search says 'more than 10,000' beyond spec §4's bound, and how to see them all", async () => {
      const page = await get("/search?q=quagga");
      assert.equal(summary(page.text), "More than 10,000 posts match · showing 1–25");
      assert.match(
        page.text,
        /Best match ranks the 10,000 newest of them; <a href="\/search\?q=quagga&amp;sort=date">/,
      );
      // The last page relevance ranks ends the list it shows, not the matches.
      const lastRanked = await get("/search?q=quagga&page=400");
      assert.equal(summary(lastRanked.text), "More than 10,000 posts match · showing 9,976–10,000");
      const pastRanked = await get("/search?q=quagga&page=401");
      assert.equal(summary(pastRanked.text), "More than 10,000 posts match; no more on this page.");
      const byDate = await get("/search?q=quagga&sort=date&page=401");
      assert.equal(summary(byDate.text), "More than 10,000 posts match · showing 10,001–10,001");
      assert.doesNotMatch(byDate.text, /Best match ranks/, "the date order sees every match");
    });

    it("search's count follows the search's rules: a bad language list is the same 400", async () => {
      const bad = await get("/search?q=walrus&lang=x");
      assert.equal(bad.status, 400);
      assert.match(bad.text, /languageIds/);
    });

    it("a failing feed's page says since when and why, and nothing of the stored message", async () => {
      const broken = await get(`/feeds/${feeds["Sécurité & Réseaux"]}`);
      assert.equal(broken.status, 200);
      assert.match(
        broken.text,
        /<div class="notice failing" role="note">\n<p><strong>This feed has not been updated since <time datetime="2026-01-12T08:00:00.000Z" title="2026-01-12 08:00 UTC">12 Jan 2026<\/time><\/strong>, because there is no feed at its address any more \(<code>HTTP_404<\/code>\)\.<\/p>\n<p>The last 4 attempts failed, the latest <time [^>]+>2 h ago<\/time>; it will be tried again\.<\/p>/,
      );
      for (const secret of ["10.0.0.5", "/internal/", "/srv/", "8080"])
        assert.ok(!broken.text.includes(secret), secret);
      const never = await get(`/feeds/${feeds["Sviluppo Web Italia"]}`);
      assert.match(
        never.text,
        /<strong>This feed could never be read<\/strong>, because its server&#39;s name cannot be found \(<code>DNS<\/code>\)\./,
      );
      assert.match(never.text, /The last attempt failed <time [^>]+>3 h ago<\/time>/);
      assert.ok(!never.text.includes("db.internal"));
      const healthy = await get(`/feeds/${feeds.apple}`);
      assert.doesNotMatch(healthy.text, /class="notice/);
    });

    it("/feeds marks the failing feeds and lists every feed in collation order, as the JSON API does", async () => {
      const page = (await get("/feeds")).text;
      const names = [...page.matchAll(/<th scope="row"><a href="\/feeds\/\d+">([^<]+)<\/a>/g)].map(
        (m) => m[1],
      );
      const expected = ["apple", "éclair", "Sécurité &amp; Réseaux", "Sviluppo Web Italia", "Zebra"];
      assert.deepEqual(names, expected);
      const marked = [
        ...page.matchAll(
          /<a href="\/feeds\/(\d+)">[^<]+<\/a> <span class="badge failing" title="([^"]+)">not updating<\/span>/g,
        ),
      ];
      assert.deepEqual(
        marked.map((m) => [Number(m[1]), m[2]]),
        [
          [feeds["Sécurité & Réseaux"], "Not updated: there is no feed at its address any more (HTTP_404)."],
          [feeds["Sviluppo Web Italia"], "Not updated: its server&#39;s name cannot be found (DNS)."],
        ],
      );
      assert.match(page, /5 feeds, by name\. 2 of them are not updating\./);
      const api = (await (await fetch(`${service.baseUrl}/api/v1/feeds`)).json()) as {
        items: Array<{ feedName: string }>;
      };
      assert.deepEqual(
        api.items.map((f) => f.feedName),
        expected.map((n) => n.replace("&amp;", "&")),
      );
    });
  });
}
