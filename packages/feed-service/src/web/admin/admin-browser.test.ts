/**
 * The administrators' flow in a real browser (Chromium through playwright-core), with JavaScript
 * on and off: a visitor suggests a site, an administrator signs in, approves it (the feed is
 * added and fetched from a content server on 127.0.0.1), sees its posts on /, removes it and signs
 * out. Then every admin page with hostile data on a 360-pixel phone in dark mode: nothing runs, no
 * CSP violation, nothing wider than the screen, and axe finds no serious or critical issue.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import type { BrowserContext, Page } from "playwright-core";
import { hashPassword } from "../../admin/passwords.js";
import { type LaunchedBrowser, launchChromium } from "../../test-support/browser-launch.js";
import { seedHostileFeed } from "../../test-support/hostile-feed.js";
import { assertCleanPage, open, watchedPage } from "../../test-support/page-checks.js";
import { fixtureNow, type RunningService, startTestService } from "../../test-support/service-fixture.js";
import { postgresBackend, sqliteBackend, type TestBackend } from "../../test-support/test-backends.js";

const password = "correct horse battery";
const postDate = new Date(fixtureNow - 3_600_000).toUTCString();
const feedXml = `<?xml version="1.0"?><rss version="2.0"><channel><title>Kestrel Notes</title><link>http://example.test/</link>
<item><title>Kestrels hover against the wind</title><link>http://example.test/kestrel-1</link><guid>k1</guid><pubDate>${postDate}</pubDate><description>How they hold still.</description></item>
<item><title>Where kestrels nest in cities</title><link>http://example.test/kestrel-2</link><guid>k2</guid><pubDate>${postDate}</pubDate><description>Ledges and towers.</description></item>
</channel></rss>`;

let launched: LaunchedBrowser | undefined;
let skipReason: string | undefined;
let content: Server;
let contentBase = "";

before(async () => {
  const result = await launchChromium();
  if (typeof result === "string") skipReason = result;
  else launched = result;
  content = createServer((req, res) => {
    if (req.url === "/site") {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(
        '<html><head><link rel="alternate" type="application/rss+xml" href="/feed.xml"></head><body>Kestrels</body></html>',
      );
    } else if (req.url === "/feed.xml") {
      res.writeHead(200, { "content-type": "application/rss+xml" });
      res.end(feedXml);
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => content.listen(0, "127.0.0.1", resolve));
  contentBase = `http://127.0.0.1:${(content.address() as AddressInfo).port}`;
});
after(async () => {
  await launched?.close();
  content?.close();
});

const postgres = postgresBackend();
after(() => postgres.stop());

/** A site whose administrators may approve feeds on this machine (the content server is local). */
async function startSite(backend: TestBackend): Promise<RunningService> {
  const service = await startTestService({ backend, allowPrivateFetch: true });
  await service.store.admin.addUser("cli:setup", "ann", await hashPassword(password), fixtureNow);
  return service;
}

function browserTest(
  name: string,
  options: Parameters<LaunchedBrowser["browser"]["newContext"]>[0],
  body: (context: BrowserContext, service: RunningService) => Promise<void>,
  backend: TestBackend = sqliteBackend,
) {
  test(name, { timeout: 180_000 }, async (t) => {
    if (!launched) return t.skip(skipReason);
    const service = await startSite(backend);
    const context = await launched.browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
    // Routing every request turns the browser's HTTP cache off: / is read afresh after each change
    // (the public pages may be kept for 30 s).
    await context.route("**/*", (route) => route.continue());
    try {
      await body(context, service);
    } finally {
      await context.close();
      await service.close();
    }
  });
}

async function signIn(page: Page, base: string): Promise<void> {
  await page.goto(`${base}/admin/suggestions`);
  assert.equal(new URL(page.url()).pathname, "/admin/sign-in");
  await page.getByLabel("Name").fill("ann");
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${base}/admin/suggestions`);
}

for (const [backend, javaScriptEnabled] of [
  [sqliteBackend, true],
  [sqliteBackend, false],
  [postgres, true],
  [postgres, false],
] as const) {
  browserTest(
    `suggest, sign in, approve, read the posts on /, remove, sign out (${backend.name}, JavaScript ${javaScriptEnabled ? "on" : "off"})`,
    { javaScriptEnabled },
    async (context, service) => {
      const base = service.baseUrl;
      const watched = await watchedPage(context);
      const { page } = watched;
      const check = async (label: string) => {
        if (javaScriptEnabled) await assertCleanPage(watched, label);
      };

      // A visitor finds the form from the footer and suggests the site (its feed is found).
      await open(watched, `${base}/`);
      await page.getByRole("link", { name: "Suggest a feed" }).click();
      await page.waitForURL(`${base}/suggest`);
      await check("/suggest");
      await page.getByLabel("Site or feed address").fill(`${contentBase}/site`);
      await page.getByLabel("Note for the editors (optional)").fill("Lovely bird notes");
      await page.getByRole("button", { name: "Suggest" }).click();
      await page.getByText("Thank you: your suggestion waits for an editor.").waitFor();

      await signIn(page, base);
      await check("/admin/suggestions");
      const row = page.getByRole("row", { name: /Kestrel Notes/ });
      assert.match(await row.innerText(), /Lovely bird notes/);
      await row.getByRole("button", { name: "Approve" }).click();
      await page.getByText("Approved: the feed was added and fetched.").waitFor();
      await check("/admin/suggestions after approval");

      await open(watched, `${base}/`);
      await page.getByRole("link", { name: "Kestrels hover against the wind" }).waitFor();
      assert.equal(await page.getByRole("link", { name: "Where kestrels nest in cities" }).count(), 1);

      await open(watched, `${base}/admin/feeds`);
      await page.getByRole("link", { name: "Kestrel Notes" }).click();
      await page.getByRole("heading", { name: "Kestrel Notes", level: 1 }).waitFor();
      assert.match(await page.locator(".facts").innerText(), /Failures in a row\s+0/);
      await check("/admin/feeds/{id}");
      await page.getByRole("button", { name: "Remove this feed and its 2 posts" }).click();
      await page.getByText("The feed and its posts were removed.").waitFor();
      await open(watched, `${base}/`);
      assert.equal(await page.getByText("Kestrels hover against the wind").count(), 0);

      await open(watched, `${base}/admin`);
      await page.getByRole("button", { name: "Sign out ann" }).click();
      await page.waitForURL(/\/admin\/sign-in/);
      await page.getByText("Signed out.").waitFor();
      await open(watched, `${base}/admin`);
      assert.equal(new URL(page.url()).pathname, "/admin/sign-in");
      const actions = (await service.store.admin.auditLog({ limit: 10 })).map((a) => a.action).reverse();
      assert.deepEqual(actions.slice(-4), [
        "suggestion.add",
        "feed.add",
        "suggestion.approve",
        "feed.remove",
      ]);
    },
    backend,
  );
}

browserTest(
  "every admin page on a 360-pixel phone in dark mode, with hostile data: nothing runs, nothing overflows, axe is clean",
  { viewport: { width: 360, height: 740 }, colorScheme: "dark" },
  async (context, service) => {
    const base = service.baseUrl;
    const hostile = await seedHostileFeed(service.store, fixtureNow);
    await service.store.admin.addSuggestion(
      {
        url: "https://evil.example/",
        feedUrl: "https://evil.example/feed",
        feedTitle: `<img src=x onerror="window.__pwned='title'"> invoice\u202Efdp.exe`,
        categoryId: hostile.categoryId,
        note: `<script>window.__pwned="note"</script>${"y".repeat(400)}`,
        clientHash: "h",
      },
      fixtureNow,
    );
    const watched = await watchedPage(context);
    const { page } = watched;
    await signIn(page, base);
    for (const path of [
      "/admin",
      "/admin/suggestions",
      "/admin/feeds",
      `/admin/feeds/${hostile.feedId}`,
      "/admin/categories",
      `/admin/categories/${hostile.categoryId}/remove`,
      "/admin/smart-categories",
      "/admin/languages",
      "/admin/opml",
      "/admin/users",
      "/admin/audit",
      "/admin/sign-in",
      "/suggest",
    ]) {
      await open(watched, base + path);
      await assertCleanPage(watched, path);
      const width = await page.evaluate(
        () =>
          (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document
            .documentElement.scrollWidth,
      );
      assert.ok(width <= 360, `${path} is ${width} px wide`);
    }
    // A form error sits beside its field, named by it for screen readers.
    await open(watched, `${base}/admin/categories`);
    await page.getByLabel("Name", { exact: true }).fill(" ");
    await page.getByRole("button", { name: "Add" }).click();
    const error = page.locator("#f-name-error");
    await error.waitFor();
    assert.match(await error.innerText(), /category name must be non-empty/);
    assert.equal(await page.getByLabel("Name", { exact: true }).getAttribute("aria-invalid"), "true");
    // The form comes back with 400 Bad Request, which the browser notes in its console.
    assert.deepEqual(watched.problems.splice(0), [
      "console: Failed to load resource: the server responded with a status of 400 (Bad Request)",
    ]);
    await assertCleanPage(watched, "/admin/categories with an error");
  },
);
