/**
 * Hostile feed and suggestion text on every admin page, over SQLite and PostgreSQL: markup,
 * `javascript:` links, a very long name, control characters and a right-to-left override reach
 * the pages as escaped text only — no tag, no link, no character that reorders what is around it.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { hashPassword } from "../../admin/passwords.js";
import { AdminClient } from "../../test-support/admin-client.js";
import { hostileTexts, seedHostileFeed } from "../../test-support/hostile-feed.js";
import { fixtureNow, startTestService } from "../../test-support/service-fixture.js";
import { postgresBackend, sqliteBackend, type TestBackend } from "../../test-support/test-backends.js";

const password = "correct horse battery";
const rtl = "invoice\u202Efdp.exe";
// (No NUL: PostgreSQL text cannot hold one, and the store refuses it on both backends' paths.)
const control = "bell\u0007start\u0001escape\u001b[31m";
const long = `Long${"x".repeat(450)}`;

const backends: TestBackend[] = [sqliteBackend, postgresBackend()];
after(() => Promise.all(backends.map((b) => b.stop())));

for (const backend of backends) {
  describe(`hostile text on the admin pages (${backend.name})`, () => {
    it("is shown as text on every admin page", async () => {
      const service = await startTestService({ backend });
      const { store } = service;
      try {
        await store.admin.addUser("cli:setup", "ann", await hashPassword(password), fixtureNow);
        const hostile = await seedHostileFeed(store, fixtureNow);
        const feed = await store.admin.addFeed(
          "cli:setup",
          { feedUrl: "https://rtl.example/feed", feedName: `${rtl} ${control} ${long}` },
          fixtureNow,
        );
        // A failure message as a hostile server could make ingest store it.
        await store.applyFeedUpdate(feed.feedId, {
          posts: [],
          fetchState: {
            errorCount: 3,
            lastError: `${hostileTexts[0]} ${rtl}`,
            lastErrorAt: fixtureNow,
            lastErrorStage: "fetch",
            lastErrorCode: "HTTP_5XX",
          },
        });
        await store.admin.addSuggestion(
          {
            url: "https://evil.example/<script>",
            feedUrl: "https://evil.example/feed?<img src=x onerror=alert(1)>",
            feedTitle: `${hostileTexts[1]} ${rtl}`,
            categoryId: hostile.categoryId,
            note: `${hostileTexts[5]} ${control} ${long}`,
            clientHash: "h",
          },
          fixtureNow,
        );
        await store.admin.addSmartCategory(
          "cli:setup",
          { name: `${hostileTexts[2]}`, query: "hostile" },
          fixtureNow,
        );
        await store.admin.addLanguage("cli:setup", "de", `${hostileTexts[4]} ${rtl}`, fixtureNow);

        const ann = new AdminClient(service.baseUrl);
        assert.equal((await ann.signIn("ann", password)).status, 303);
        const pages = [
          "/admin",
          "/admin/suggestions",
          "/admin/feeds",
          `/admin/feeds/${hostile.feedId}`,
          `/admin/feeds/${feed.feedId}`,
          "/admin/categories",
          `/admin/categories/${hostile.categoryId}/remove`,
          "/admin/smart-categories",
          "/admin/languages",
          "/admin/users",
          "/admin/audit",
        ];
        for (const path of pages) {
          const { status, body } = await ann.get(path);
          assert.equal(status, 200, path);
          const main = body.slice(body.indexOf("<main"), body.indexOf("</main>"));
          // No markup from the data: the only tags are the page's own.
          // Every "<" of data is escaped, so each tag here is the page's own: none from the data.
          assert.doesNotMatch(main, /<(script|img|svg|iframe|b)\b/i, path);
          assert.doesNotMatch(main, /href="javascript:/i, path);
          // Outside form fields, whose value must stay the stored text so that saving keeps it.
          const outsideValues = main.replace(/ value="[^"]*"/g, "");
          assert.doesNotMatch(outsideValues, /<[a-z][^>]*\son[a-z]+\s*=/i, `${path}: an event attribute`);
          assert.doesNotMatch(outsideValues, /\u202E|\u0007|\u0001|\u001b/, path);
          assert.doesNotMatch(
            body.slice(0, body.indexOf("</title>")),
            /\u202E|\u0007|\u0001|\u001b|<script/,
            path,
          );
        }
        const feedsPage = (await ann.get("/admin/feeds")).body;
        assert.ok(
          feedsPage.includes("&lt;script&gt;window.__pwned=&quot;feed&quot;&lt;/script&gt;Hostile feed"),
        );
        assert.ok(
          feedsPage.includes("<bdi>invoice[U+202E]fdp.exe bell[U+0007]start[U+0001]escape[U+001B][31m Long"),
        );
        // The long name is cut in lists, whole nowhere it could stretch a row.
        assert.ok(feedsPage.includes("x…</bdi>"));
        const detail = (await ann.get(`/admin/feeds/${feed.feedId}`)).body;
        assert.ok(detail.includes("HTTP_5XX at the fetch stage"));
        assert.ok(
          detail.includes(
            "&lt;script&gt;window.__pwned = &quot;title&quot;&lt;/script&gt; invoice[U+202E]fdp.exe",
          ),
        );
        const suggestions = (await ann.get("/admin/suggestions")).body;
        assert.ok(
          suggestions.includes(
            "&lt;a href=&quot;javascript:window.__pwned=&#39;link&#39;&quot;&gt;click me&lt;/a&gt;",
          ),
        );
        assert.ok(suggestions.includes("https://evil.example/feed?&lt;img src=x onerror=alert(1)&gt;"));
        const audit = (await ann.get("/admin/audit")).body;
        assert.ok(audit.includes("&lt;svg onload="));
        // The public feed page says the feed is broken, with the code, never the stored message.
        const publicPage = await ann.get(`/feeds/${feed.feedId}`);
        assert.match(publicPage.body, /HTTP_5XX/);
        assert.ok(!publicPage.body.includes("__pwned = &quot;title&quot;"));
      } finally {
        await service.close();
      }
    });
  });
}
