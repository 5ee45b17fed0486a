/**
 * The admin pages as an attacker tries them, on a real server on 127.0.0.1 over SQLite and
 * PostgreSQL: without a session every page sends to the sign-in form and every POST is 403; with a
 * session, a POST without the CSRF token, with a wrong one, from another origin or naming no
 * origin is 403; a GET to an action URL changes nothing; and in each case the store is compared
 * whole before and after. Then the sessions: no fixation, sign-out and a new password end them,
 * and 12 idle hours expire one.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { hashPassword } from "../../admin/passwords.js";
import type { Store } from "../../store/store.js";
import { AdminClient } from "../../test-support/admin-client.js";
import { fixtureNow, type RunningService, startTestService } from "../../test-support/service-fixture.js";
import { postgresBackend, sqliteBackend, type TestBackend } from "../../test-support/test-backends.js";
import { contentSecurityPolicy } from "../security-headers.js";

const password = "correct horse battery";
const hour = 3_600_000;

interface Site {
  service: RunningService;
  store: Store;
  clock: { now: number };
  ids: { feed: number; category: number; smart: number; language: number; other: number; suggestion: number };
}

async function startSite(backend: TestBackend): Promise<Site> {
  const clock = { now: fixtureNow };
  const service = await startTestService({ backend, now: () => clock.now });
  const { store } = service;
  const hash = await hashPassword(password);
  await store.admin.addUser("cli:setup", "ann", hash, clock.now);
  const other = await store.admin.addUser("cli:setup", "bob", hash, clock.now);
  const category = await store.addCategory("Cat");
  const feed = await store.addFeed({
    feedUrl: "http://feed.invalid/feed",
    feedName: "Feed",
    categoryId: category.categoryId,
  });
  const smart = await store.addSmartCategory({ name: "Smart", query: "flex" });
  const language = await store.ensureLanguage("fr");
  const suggestion = await store.admin.addSuggestion(
    {
      url: "http://s.invalid/",
      feedUrl: "http://s.invalid/feed",
      feedTitle: "S",
      categoryId: null,
      note: "",
      clientHash: "h",
    },
    clock.now,
  );
  return {
    service,
    store,
    clock,
    ids: {
      feed: feed.feedId,
      category: category.categoryId,
      smart: smart.smartCategoryId,
      language: language.languageId,
      other: other.userId,
      suggestion: suggestion.suggestionId,
    },
  };
}

/** Everything an admin change could touch. */
async function snapshot(store: Store): Promise<string> {
  const users = await store.admin.users();
  return JSON.stringify({
    audit: await store.admin.auditLog({ limit: 1000 }),
    feeds: await store.adminFeeds(),
    categories: await store.categories(),
    smart: await store.smartCategories(),
    languages: await store.languages(),
    users,
    hashes: await Promise.all(users.map((u) => store.admin.userCredentials(u.userName))),
    suggestions: await store.admin.suggestions(),
    paused: [...(await store.admin.pausedFeeds())],
  });
}

function pages(ids: Site["ids"]): string[] {
  return [
    "/admin",
    "/admin/suggestions",
    "/admin/feeds",
    `/admin/feeds/${ids.feed}`,
    "/admin/categories",
    `/admin/categories/${ids.category}/remove`,
    "/admin/smart-categories",
    `/admin/smart-categories/${ids.smart}/remove`,
    "/admin/languages",
    `/admin/languages/${ids.language}/remove`,
    "/admin/opml",
    "/admin/opml/export",
    "/admin/users",
    `/admin/users/${ids.other}/remove`,
    "/admin/audit",
  ];
}

/** Every state-changing URL with a body that would change something if it were let through. */
function actions(ids: Site["ids"]): Array<[string, Record<string, string>]> {
  return [
    ["/admin/suggestions", { decision: "reject", id: String(ids.suggestion) }],
    ["/admin/feeds", { url: "http://new.invalid/feed" }],
    [`/admin/feeds/${ids.feed}/edit`, { name: "Hijacked", category: "", language: "1" }],
    [`/admin/feeds/${ids.feed}/pause`, { paused: "1" }],
    [`/admin/feeds/${ids.feed}/refresh`, {}],
    [`/admin/feeds/${ids.feed}/remove`, {}],
    ["/admin/categories", { name: "Injected" }],
    [`/admin/categories/${ids.category}/rename`, { name: "Renamed" }],
    [`/admin/categories/${ids.category}/remove`, {}],
    ["/admin/smart-categories", { name: "Injected", query: "x" }],
    [`/admin/smart-categories/${ids.smart}/rename`, { name: "Renamed" }],
    [`/admin/smart-categories/${ids.smart}/remove`, {}],
    ["/admin/languages", { code: "de" }],
    [`/admin/languages/${ids.language}/rename`, { name: "Renamed" }],
    [`/admin/languages/${ids.language}/remove`, {}],
    ["/admin/opml", {}],
    ["/admin/users", { name: "mallory", password: "mallory's password", again: "mallory's password" }],
    [`/admin/users/${ids.other}/password`, { password: "a password of mallory's" }],
    [`/admin/users/${ids.other}/remove`, {}],
    ["/admin/sign-out", {}],
  ];
}

const backends: TestBackend[] = [sqliteBackend, postgresBackend()];
after(() => Promise.all(backends.map((b) => b.stop())));

for (const backend of backends) {
  describe(`admin access (${backend.name})`, () => {
    it("without a session: every page sends to sign-in, every POST is 403, nothing changes", async () => {
      const site = await startSite(backend);
      try {
        const before = await snapshot(site.store);
        const visitor = new AdminClient(site.service.baseUrl);
        for (const path of pages(site.ids)) {
          const answer = await visitor.get(path);
          assert.equal(answer.status, 303, path);
          assert.equal(answer.location, `/admin/sign-in?next=${encodeURIComponent(path)}`);
          assert.equal(answer.headers.get("cache-control"), "no-store");
        }
        // A made-up session id is no session either.
        visitor.cookies.set("feed_admin", "A".repeat(43));
        for (const [path, fields] of actions(site.ids)) {
          const answer = await visitor.post(path, fields, { csrf: "guess" });
          assert.equal(answer.status, 403, path);
          assert.match(answer.body, /nothing was changed/);
          assert.match(answer.headers.get("content-security-policy") ?? "", /frame-ancestors 'none'/);
        }
        assert.equal(await snapshot(site.store), before);
      } finally {
        await site.service.close();
      }
    });

    it("with a session: no token, a wrong token, another origin or no origin is 403; a GET to an action URL changes nothing", async () => {
      const site = await startSite(backend);
      try {
        const ann = new AdminClient(site.service.baseUrl);
        assert.equal((await ann.signIn("ann", password)).status, 303);
        const before = await snapshot(site.store);
        const token = ann.token;
        assert.match(token, /^[A-Za-z0-9_-]{43}$/);
        for (const [path, fields] of actions(site.ids)) {
          const tries = [
            { csrf: null },
            { csrf: "x".repeat(43) },
            { csrf: token.slice(0, -1) },
            { origin: "http://evil.example" },
            { origin: "null" },
            { origin: null },
            { origin: null, referer: "http://evil.example/page" },
          ];
          for (const opts of tries) {
            const answer = await ann.post(path, fields, {
              ...opts,
              csrf: opts.csrf === undefined ? token : opts.csrf,
            });
            assert.equal(answer.status, 403, `${path} ${JSON.stringify(opts)}`);
          }
          // A GET is either the page that holds the form or nothing at all; never the change.
          const get = await ann.get(path);
          assert.ok([200, 404].includes(get.status), `GET ${path}: ${get.status}`);
          ann.token = token;
        }
        assert.equal(await snapshot(site.store), before);
        // The session is still alive, and the same request with the token and origin goes through.
        const dashboard = await ann.get("/admin");
        assert.equal(dashboard.status, 200);
        // The public pages' CSP (frame-ancestors 'none' included), and no copy kept anywhere.
        assert.equal(dashboard.headers.get("content-security-policy"), contentSecurityPolicy);
        assert.equal(dashboard.headers.get("cache-control"), "no-store");
        assert.equal(dashboard.headers.get("x-frame-options"), "DENY");
        const ok = await ann.post("/admin/categories", { name: "Fresh" }, { csrf: token });
        assert.equal(ok.status, 303);
        assert.ok((await site.store.categories()).some((c) => c.categoryName === "Fresh"));
        const [row] = await site.store.admin.auditLog({ limit: 1 });
        assert.equal(row?.actor, "admin:ann");
        assert.equal(row?.action, "category.add");
        // A Referer of this site stands in for a missing Origin.
        const byReferer = await ann.post(
          "/admin/categories",
          { name: "Fresher" },
          { csrf: token, origin: null, referer: `${site.service.baseUrl}/admin/categories` },
        );
        assert.equal(byReferer.status, 303);
      } finally {
        await site.service.close();
      }
    });

    it("a new session id at every sign-in: a planted or earlier id is not the one after", async () => {
      const site = await startSite(backend);
      try {
        const victim = new AdminClient(site.service.baseUrl);
        const planted = "P".repeat(43);
        victim.cookies.set("feed_admin", planted);
        assert.equal((await victim.signIn("ann", password)).status, 303);
        const first = victim.session();
        assert.ok(first && first !== planted);
        assert.match(first, /^[A-Za-z0-9_-]{43}$/);
        // The attacker's planted id opens nothing.
        const attacker = new AdminClient(site.service.baseUrl);
        attacker.cookies.set("feed_admin", planted);
        assert.equal((await attacker.get("/admin")).status, 303);
        // Signing in again while signed in (the form fetched by another tab) gives another id and
        // ends the earlier one.
        const tab = new AdminClient(site.service.baseUrl);
        await tab.get("/admin/sign-in");
        victim.cookies.set("feed_sign_in", tab.cookies.get("feed_sign_in")!);
        victim.token = tab.token;
        assert.equal(
          (await victim.post("/admin/sign-in", { name: "ann", password, next: "/admin" })).status,
          303,
        );
        const second = victim.session();
        assert.ok(second && second !== first);
        const stale = new AdminClient(site.service.baseUrl);
        stale.cookies.set("feed_admin", first);
        assert.equal((await stale.get("/admin")).status, 303);
        assert.equal((await victim.get("/admin")).status, 200);
      } finally {
        await site.service.close();
      }
    });

    it("the cookie is HttpOnly, SameSite=Strict, Path=/admin; sign-out ends the session; a new password ends every one", async () => {
      const site = await startSite(backend);
      try {
        const laptop = new AdminClient(site.service.baseUrl);
        const phone = new AdminClient(site.service.baseUrl);
        await laptop.get("/admin/sign-in");
        const answer = await laptop.post("/admin/sign-in", { name: "ann", password, next: "/admin" });
        const cookie = answer.headers.getSetCookie().find((c) => c.startsWith("feed_admin="))!;
        assert.match(cookie, /^feed_admin=[A-Za-z0-9_-]{43}; Path=\/admin; HttpOnly; SameSite=Strict$/);
        await laptop.get("/admin");
        await phone.signIn("ann", password);
        const ann = (await site.store.admin.userCredentials("ann"))!;
        assert.equal(await site.store.admin.sessionCount(ann.userId), 2);

        const out = await laptop.post("/admin/sign-out");
        assert.equal(out.status, 303);
        assert.equal(laptop.session(), undefined);
        assert.equal(await site.store.admin.sessionCount(ann.userId), 1);
        // Replaying the ended id after sign-out opens nothing.
        const replay = new AdminClient(site.service.baseUrl);
        replay.cookies.set("feed_admin", /feed_admin=([^;]+)/.exec(cookie)![1]!);
        assert.equal((await replay.get("/admin")).status, 303);
        assert.equal((await phone.get("/admin")).status, 200);

        // Bob's password set by Ann ends Bob's sessions, not Ann's.
        const bob = new AdminClient(site.service.baseUrl);
        await bob.signIn("bob", password);
        await phone.get("/admin/users");
        const set = await phone.post(`/admin/users/${site.ids.other}/password`, {
          password: "bob's brand new one",
        });
        assert.equal(set.status, 303);
        assert.equal((await bob.get("/admin")).status, 303);
        assert.equal((await phone.get("/admin")).status, 200);
        // Ann's own new password ends her own sessions, this one included.
        const laptop2 = new AdminClient(site.service.baseUrl);
        await laptop2.signIn("ann", password);
        await phone.get("/admin/users");
        const own = await phone.post(`/admin/users/${ann.userId}/password`, {
          password: "ann's brand new one",
        });
        assert.equal(own.location, "/admin/sign-in");
        assert.equal((await phone.get("/admin")).status, 303);
        assert.equal((await laptop2.get("/admin")).status, 303);
        assert.equal(await site.store.admin.sessionCount(ann.userId), 0);
        // The CLI's new password ends sessions as well (same store call).
        await bob.signIn("bob", "bob's brand new one");
        assert.equal((await bob.get("/admin")).status, 200);
        await site.store.admin.setPassword(
          "cli:root",
          "bob",
          await hashPassword("yet another password"),
          site.clock.now,
        );
        assert.equal((await bob.get("/admin")).status, 303);
      } finally {
        await site.service.close();
      }
    });

    it("a session idle for 12 hours is refused; one in use stays", async () => {
      const site = await startSite(backend);
      try {
        const ann = new AdminClient(site.service.baseUrl);
        await ann.signIn("ann", password);
        site.clock.now += 11 * hour;
        assert.equal((await ann.get("/admin")).status, 200);
        site.clock.now += 11 * hour;
        assert.equal((await ann.get("/admin/feeds")).status, 200);
        site.clock.now += 12 * hour;
        const expired = await ann.get("/admin");
        assert.equal(expired.status, 303);
        assert.match(expired.location ?? "", /^\/admin\/sign-in/);
        const post = await ann.post("/admin/categories", { name: "Late" });
        assert.equal(post.status, 403);
        assert.ok(!(await site.store.categories()).some((c) => c.categoryName === "Late"));
      } finally {
        await site.service.close();
      }
    });
  });
}
