/**
 * The main pages again in a real browser with JavaScript off, on a 360-pixel phone and in dark mode,
 * and the hostile feed (script tags, event attributes, javascript: URLs) on every page it reaches:
 * nothing runs. Same frame and checks as web-pages-browser.test.ts (browser-suite.ts).
 */
import assert from "node:assert/strict";
import { base, browserTest, mainPages, site, visitMainPages } from "../../test-support/browser-suite.js";
import { assertCleanPage, open, watchedPage } from "../../test-support/page-checks.js";

browserTest(
  "JavaScript off: the main pages read the same, and the filter and search forms still work",
  async (context) => {
    const watched = await visitMainPages(context, "no-js", false);
    const { page } = watched;
    await open(watched, `${base()}/`);
    assert.equal(await page.locator(".js-only").first().isVisible(), false);
    await page.locator(".filters summary").click();
    await page.getByLabel("German").check();
    await page.getByLabel("Spanish").check();
    await page.getByRole("button", { name: "Apply" }).click();
    await page.waitForURL(/\?lang=\d+&lang=\d+$/);
    const codes = new Set(
      (await page.locator(".post .meta abbr").allInnerTexts()).map((c) => c.toLowerCase()),
    );
    assert.deepEqual([...codes].sort(), ["de", "es"]);
    await page.getByRole("searchbox", { name: "Search posts" }).fill("release");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.waitForURL(`${base()}/search?q=release`);
    assert.ok((await page.locator("mark").count()) > 0);

    // The search tips sit beside the box, operators shown as operators; the operators work.
    const tips = page.locator("#search-tips-heading").locator("..");
    assert.equal(await tips.isVisible(), true);
    assert.deepEqual((await tips.locator(".operator").allInnerTexts()).slice(0, 6), [
      "*",
      "title:",
      "title:",
      "feed:",
      "-feed:",
      "lang:",
    ]);
    await page.getByRole("searchbox", { name: "Search posts" }).fill("title:release after:2000-01-01");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.waitForURL(/\/search\?q=title%3Arelease\+after%3A2000-01-01$/);
    const titles = await page.locator(".post h2 a").allInnerTexts();
    assert.ok(titles.length > 0, "posts with release in the title");
    for (const title of titles) assert.match(title, /\brelease\b/i);
    assert.deepEqual(await page.locator("h1 .operator").allInnerTexts(), ["title:", "after:"]);

    await page.getByRole("searchbox", { name: "Search posts" }).fill("release after:yesterday");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.waitForURL(/after%3Ayesterday$/);
    assert.equal(
      await page.locator(".error-message").innerText(),
      "The search operator after:yesterday needs a UTC day written YYYY-MM-DD, such as after:2026-01-31.",
    );
  },
  { javaScriptEnabled: false },
);

browserTest(
  "a 360-pixel phone: nothing wider than the screen, every control reachable",
  async (context) => {
    const watched = await visitMainPages(context, "360px");
    const { page } = watched;
    for (const [path] of mainPages) {
      await open(watched, base() + path);
      const width = await page.evaluate(
        () =>
          (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document
            .documentElement.scrollWidth,
      );
      assert.ok(width <= 360, `${path} is ${width} px wide`);
    }
    await open(watched, `${base()}/`);
    assert.equal(await page.getByRole("searchbox", { name: "Search posts" }).isVisible(), true);
    assert.equal(await page.getByRole("link", { name: "Older →" }).isVisible(), true);
  },
  { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 },
);

browserTest(
  "dark mode follows the system setting and stays readable",
  async (context) => {
    const watched = await visitMainPages(context, "dark");
    const { page } = watched;
    await open(watched, `${base()}/`);
    const colours = await page.evaluate(() => {
      const g = globalThis as unknown as {
        getComputedStyle(e: unknown): { backgroundColor: string; color: string };
        document: { body: unknown };
      };
      const style = g.getComputedStyle(g.document.body);
      return [style.backgroundColor, style.color];
    });
    const luminance = (rgb: string) => {
      const [r, g, b] = rgb.match(/\d+/g)!.map(Number);
      return (0.2126 * r! + 0.7152 * g! + 0.0722 * b!) / 255;
    };
    assert.ok(luminance(colours[0]!) < 0.2, `dark background, got ${colours[0]}`);
    assert.ok(luminance(colours[1]!) > 0.8, `light text, got ${colours[1]}`);
  },
  { colorScheme: "dark" },
);

browserTest(
  "the hostile feed runs nothing anywhere: its pages, its posts in lists and search, hover and shortcuts",
  async (context) => {
    const watched = await watchedPage(context);
    const { page } = watched;
    const { feedId, categoryId } = site().hostile;
    for (const path of [
      "/",
      `/feeds/${feedId}`,
      `/categories/${categoryId}`,
      "/categories",
      "/feeds",
      "/smart-categories",
      "/search?q=hostile",
      "/search?q=script+OR+pwned",
    ]) {
      await open(watched, base() + path);
      for (const element of (await page.locator("main a, main h1, main p").all()).slice(0, 40))
        await element.hover();
      await page.keyboard.press("j");
      await page.keyboard.press("?");
      await page.keyboard.press("Escape");
      await assertCleanPage(watched, `hostile ${path}`);
    }
    await open(watched, `${base()}/feeds/${feedId}`);
    assert.match(
      await page.locator("h1").innerText(),
      /^<script>window.__pwned="feed"<\/script>Hostile feed$/,
    );
    assert.equal(await page.locator('a[href^="javascript:"], iframe, main script, main img').count(), 0);
  },
);
