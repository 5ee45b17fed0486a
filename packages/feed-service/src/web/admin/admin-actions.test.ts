/**
 * Every admin action through its page, as an administrator uses it, on a real server over SQLite
 * and PostgreSQL: feeds added (and fetched), edited, paused, resumed, refreshed and removed;
 * categories, smart categories and languages added, renamed and removed (removal told first);
 * administrators added, re-passworded and removed; suggestions approved and rejected several at
 * once; OPML uploaded and exported. Each change lands in the store and in the audit log as
 * admin:<name>; a refused one shows its error beside the field and changes nothing.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { hashPassword, verifyPassword } from "../../admin/passwords.js";
import { pausedUntil } from "../../store/admin-fields.js";
import { AdminClient } from "../../test-support/admin-client.js";
import { fixtureNow, startTestService } from "../../test-support/service-fixture.js";
import { postgresBackend, sqliteBackend, type TestBackend } from "../../test-support/test-backends.js";

const password = "correct horse battery";
const rss = (n: string) =>
  `<?xml version="1.0"?><rss version="2.0"><channel><title>Feed ${n}</title><link>http://example.test/${n}</link><item><title>Post of ${n}</title><link>http://example.test/${n}/1</link><guid>${n}-1</guid><pubDate>${new Date(fixtureNow - 3_600_000).toUTCString()}</pubDate></item></channel></rss>`;

let content: Server;
let contentBase = "";
before(async () => {
  content = createServer((req, res) => {
    const m = /^\/(\w+)\.xml$/.exec(req.url ?? "");
    if (m) {
      res.writeHead(200, { "content-type": "application/rss+xml" });
      res.end(rss(m[1]!));
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => content.listen(0, "127.0.0.1", resolve));
  contentBase = `http://127.0.0.1:${(content.address() as AddressInfo).port}`;
});
after(() => content.close());

const backends: TestBackend[] = [sqliteBackend, postgresBackend()];
after(() => Promise.all(backends.map((b) => b.stop())));

async function startSite(backend: TestBackend) {
  const service = await startTestService({ backend, allowPrivateFetch: true });
  await service.store.admin.addUser("cli:setup", "ann", await hashPassword(password), fixtureNow);
  const ann = new AdminClient(service.baseUrl);
  assert.equal((await ann.signIn("ann", password)).status, 303);
  return { service, store: service.store, ann };
}

function fieldError(body: string, id: string): string | undefined {
  return new RegExp(`id="${id}-error">([^<]*)<`).exec(body)?.[1];
}

for (const backend of backends) {
  describe(`admin actions (${backend.name})`, () => {
    it("feeds: add (fetched at once), edit, pause, resume, refresh, remove", async () => {
      const { service, store, ann } = await startSite(backend);
      try {
        await ann.get("/admin/feeds");
        const bad = await ann.post("/admin/feeds", { url: "ftp://x.example/feed" });
        assert.equal(bad.status, 400);
        assert.match(fieldError(bad.body, "f-url") ?? "", /must start with http:\/\/ or https:\/\//);
        const added = await ann.post("/admin/feeds", { url: `${contentBase}/alpha.xml`, name: "" });
        assert.equal(added.status, 303);
        const feedId = Number(/\/admin\/feeds\/(\d+)\?done=added/.exec(added.location ?? "")?.[1]);
        const feed = await store.feedById(feedId);
        assert.equal(feed?.feedName, "Feed alpha");
        assert.equal(feed?.postCount, 1);
        assert.ok(feed?.lastSuccessAt !== null);
        const again = await ann.post("/admin/feeds", { url: `${contentBase}/alpha.xml` });
        assert.match(fieldError(again.body, "f-url") ?? "", /already exists/);

        const page = await ann.get(`/admin/feeds/${feedId}`);
        assert.match(page.body, /Last success<\/dt><dd>/);
        assert.match(page.body, /Failures in a row<\/dt><dd>0/);
        assert.match(page.body, /WebSub<\/dt><dd>no hub named/);
        const category = await store.addCategory("Birds");
        const de = await store.ensureLanguage("de");
        const edited = await ann.post(`/admin/feeds/${feedId}/edit`, {
          name: "Alpha renamed",
          category: String(category.categoryId),
          language: String(de.languageId),
        });
        assert.equal(edited.status, 303);
        const after = await store.feedById(feedId);
        assert.deepEqual(
          [after?.feedName, after?.categoryId, after?.languageId],
          ["Alpha renamed", category.categoryId, de.languageId],
        );
        const emptyName = await ann.post(`/admin/feeds/${feedId}/edit`, {
          name: " ",
          category: "",
          language: "1",
        });
        assert.equal(emptyName.status, 400);
        assert.match(fieldError(emptyName.body, "f-name") ?? "", /feed name must be non-empty/);

        assert.equal((await ann.post(`/admin/feeds/${feedId}/pause`, { paused: "1" })).status, 303);
        assert.equal((await store.feedById(feedId))?.nextFetchAt, pausedUntil);
        assert.match((await ann.get(`/admin/feeds/${feedId}`)).body, /none while paused/);
        assert.equal((await ann.post(`/admin/feeds/${feedId}/pause`, { paused: "0" })).status, 303);
        assert.equal((await store.admin.pausedFeeds()).size, 0);
        assert.equal((await ann.post(`/admin/feeds/${feedId}/refresh`)).status, 303);
        assert.ok(((await store.feedById(feedId))?.lastFetchedAt ?? 0) > 0);
        assert.equal((await ann.post(`/admin/feeds/${feedId}/remove`)).status, 303);
        assert.equal(await store.feedById(feedId), undefined);
        assert.equal((await ann.get(`/admin/feeds/${feedId}`)).status, 404);

        const log = await store.admin.auditLog({ limit: 20 });
        assert.deepEqual(
          log
            .map((r) => r.action)
            .reverse()
            .slice(1),
          ["feed.add", "feed.edit", "feed.pause", "feed.resume", "feed.refresh", "feed.remove"],
        );
        assert.ok(log.slice(0, 6).every((r) => r.actor === "admin:ann"));
      } finally {
        await service.close();
      }
    });

    it("categories, smart categories and languages: add, rename, and removal told before it is done", async () => {
      const { service, store, ann } = await startSite(backend);
      try {
        await ann.get("/admin/categories");
        assert.equal((await ann.post("/admin/categories", { name: "News" })).status, 303);
        const [news] = await store.categories();
        const clash = await ann.post("/admin/categories", { name: "news" });
        assert.equal(clash.status, 400);
        assert.match(fieldError(clash.body, "f-name") ?? "", /already exists/);
        assert.equal(
          (await ann.post(`/admin/categories/${news!.categoryId}/rename`, { name: "World news" })).status,
          303,
        );
        const feed = await store.addFeed({
          feedUrl: "http://n.invalid/feed",
          feedName: "N",
          categoryId: news!.categoryId,
        });
        await store.applyFeedUpdate(feed.feedId, {
          fetchState: {},
          posts: [
            {
              guid: "1",
              link: "http://n.invalid/1",
              title: "One",
              excerpt: "",
              content: "",
              publishedAt: fixtureNow,
              updatedAt: null,
              seenAt: fixtureNow,
              languageId: 1,
            },
          ],
        });
        const confirm = await ann.get(`/admin/categories/${news!.categoryId}/remove`);
        assert.match(confirm.body, /1 feeds and 1 posts lose this category/);
        assert.equal((await store.categories()).length, 1);
        assert.equal((await ann.post(`/admin/categories/${news!.categoryId}/remove`)).status, 303);
        assert.deepEqual(await store.categories(), []);
        assert.equal((await store.feedById(feed.feedId))?.categoryId, null);

        await ann.get("/admin/smart-categories");
        const noQuery = await ann.post("/admin/smart-categories", { name: "Flex", query: "" });
        assert.equal(noQuery.status, 400);
        assert.equal(
          (await ann.post("/admin/smart-categories", { name: "Flex", query: "flex OR air" })).status,
          303,
        );
        const [smart] = await store.smartCategories();
        assert.equal(smart?.smartCategoryQuery, "flex OR air");
        await ann.post(`/admin/smart-categories/${smart!.smartCategoryId}/rename`, { name: "Flex news" });
        assert.equal((await store.smartCategoryById(smart!.smartCategoryId))?.smartCategoryName, "Flex news");
        assert.equal(
          (await ann.post(`/admin/smart-categories/${smart!.smartCategoryId}/remove`)).status,
          303,
        );
        assert.deepEqual(await store.smartCategories(), []);

        await ann.get("/admin/languages");
        assert.equal((await ann.post("/admin/languages", { code: "pt-BR", name: "" })).status, 303);
        const pt = (await store.languages()).find((l) => l.languageCode === "pt-BR")!;
        await ann.post(`/admin/languages/${pt.languageId}/rename`, { name: "Português" });
        assert.equal((await store.languageById(pt.languageId))?.languageName, "Português");
        await store.admin.editFeed("cli:test", feed.feedId, { languageId: pt.languageId }, fixtureNow);
        const told = await ann.get(`/admin/languages/${pt.languageId}/remove`);
        assert.match(told.body, /1 feeds and 0 posts use this language, so it cannot be removed/);
        const refused = await ann.post(`/admin/languages/${pt.languageId}/remove`);
        assert.equal(refused.status, 409);
        assert.match(refused.body, /file them under another language first/);
        assert.ok(await store.languageById(pt.languageId));
        const builtIn = await ann.get("/admin/languages/1/remove");
        assert.match(builtIn.body, /built in and cannot be removed/);
        const badTag = await ann.post("/admin/languages", { code: "not a tag!" });
        assert.equal(badTag.status, 400);
        assert.ok(fieldError(badTag.body, "f-code"));
      } finally {
        await service.close();
      }
    });

    it("administrators: add (twice-typed password), new password, remove; not oneself", async () => {
      const { service, store, ann } = await startSite(backend);
      try {
        await ann.get("/admin/users");
        const differ = await ann.post("/admin/users", {
          name: "bob",
          password: "bob's password 1",
          again: "bob's password 2",
        });
        assert.equal(differ.status, 400);
        assert.match(fieldError(differ.body, "f-password") ?? "", /The two passwords differ/);
        const short = await ann.post("/admin/users", { name: "bob", password: "short", again: "short" });
        assert.match(fieldError(short.body, "f-password") ?? "", /at least 12 characters/);
        assert.ok(!short.body.includes('value="short"'));
        const badName = await ann.post("/admin/users", {
          name: "<bob>",
          password: "long enough pw",
          again: "long enough pw",
        });
        assert.match(fieldError(badName.body, "f-name") ?? "", /user name must be/);
        assert.equal((await store.admin.users()).length, 1);
        assert.equal(
          (
            await ann.post("/admin/users", {
              name: "bob",
              password: "bob's password 1",
              again: "bob's password 1",
            })
          ).status,
          303,
        );
        const bob = (await store.admin.userCredentials("bob"))!;
        assert.ok(await verifyPassword("bob's password 1", bob.passwordHash));
        await ann.post(`/admin/users/${bob.userId}/password`, { password: "bob's password 2" });
        assert.ok(
          await verifyPassword("bob's password 2", (await store.admin.userCredentials("bob"))!.passwordHash),
        );
        const me = (await store.admin.userCredentials("ann"))!;
        assert.match((await ann.get(`/admin/users/${me.userId}/remove`)).body, /cannot remove yourself/);
        assert.equal((await ann.post(`/admin/users/${me.userId}/remove`)).status, 400);
        assert.equal((await ann.post(`/admin/users/${bob.userId}/remove`)).status, 303);
        assert.equal(await store.admin.userCredentials("bob"), undefined);
        const audit = (await ann.get("/admin/audit")).body;
        assert.match(audit, /user\.add/);
        assert.match(audit, /user\.passwd/);
        assert.match(audit, /user\.remove/);
        assert.ok(!audit.includes("bob's password"));
      } finally {
        await service.close();
      }
    });

    it("suggestions approved and rejected several at once; OPML uploaded and exported", async () => {
      const { service, store, ann } = await startSite(backend);
      try {
        const ids = [];
        for (const n of ["one", "two", "three"]) {
          const s = await store.admin.addSuggestion(
            {
              url: `${contentBase}/${n}.xml`,
              feedUrl: `${contentBase}/${n}.xml`,
              feedTitle: `Feed ${n}`,
              categoryId: null,
              note: "",
              clientHash: "h",
            },
            fixtureNow,
          );
          ids.push(String(s.suggestionId));
        }
        await ann.get("/admin/suggestions");
        assert.equal(
          (await ann.post("/admin/suggestions", { decision: "approve", id: [ids[0]!, ids[1]!] })).status,
          303,
        );
        const feeds = await store.adminFeeds();
        assert.deepEqual(feeds.map((f) => f.feedName).sort(), ["Feed one", "Feed two"]);
        assert.ok(
          feeds.every((f) => f.postCount === 1),
          "each approved feed was fetched",
        );
        const none = await ann.post("/admin/suggestions", { decision: "reject" });
        assert.equal(none.location, "/admin/suggestions?done=none");
        assert.equal((await ann.post("/admin/suggestions", { decision: "reject", id: ids[2]! })).status, 303);
        assert.deepEqual((await store.admin.suggestions()).map((s) => s.state).sort(), [
          "approved",
          "approved",
          "rejected",
        ]);

        await ann.get("/admin/opml");
        const opml = `<?xml version="1.0"?><opml version="2.0"><head><title>t</title></head><body>
<outline text="Science"><outline type="rss" text="Four" xmlUrl="${contentBase}/four.xml"/></outline>
<outline type="rss" text="One again" xmlUrl="${contentBase}/one.xml"/>
<outline type="rss" text="Bad" xmlUrl="javascript:alert(1)"/></body></opml>`;
        const imported = await ann.postFile("/admin/opml", "opml", "subs.opml", opml);
        assert.equal(imported.status, 200);
        assert.match(imported.body, /3 feeds in the file: 1 added, 1 already here, 1 skipped/);
        assert.ok((await store.categories()).some((c) => c.categoryName === "Science"));
        const notOpml = await ann.postFile("/admin/opml", "opml", "x.opml", "<html></html>");
        assert.equal(notOpml.status, 400);
        const exported = await ann.get("/admin/opml/export");
        assert.equal(exported.status, 200);
        assert.match(
          exported.headers.get("content-disposition") ?? "",
          /attachment; filename="subscriptions.opml"/,
        );
        assert.match(exported.body, /<outline[^>]*xmlUrl="[^"]*four\.xml"/);
        const actions = (await store.admin.auditLog({ limit: 50 })).map((r) => r.action);
        assert.ok(actions.includes("category.add") && actions.filter((a) => a === "feed.add").length === 3);
      } finally {
        await service.close();
      }
    });
  });
}
