/**
 * The layouts a newcomer sees first, in a real browser at a 1280-pixel desktop and a 360-pixel
 * phone, light and dark: /languages fits (the table's last column reachable, language codes on one
 * line, chart text at least 12 px), home and search use the side column on a desktop and stack it
 * below the posts on a phone, and search says how many posts match. Every page also passes the
 * usual checks (axe, CSP, nothing hostile ran). With FEED_SERVICE_SCREENSHOTS=<folder> each page
 * is also saved there as a PNG, to look at.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { base, browserTest, site } from "../../test-support/browser-suite.js";
import { assertCleanPage, open, watchedPage } from "../../test-support/page-checks.js";

interface Box {
  left: number;
  right: number;
  top: number;
  bottom: number;
  width: number;
}

type Dom = {
  document: {
    documentElement: { scrollWidth: number };
    querySelector(s: string): unknown;
    querySelectorAll(s: string): ArrayLike<unknown>;
  };
  getComputedStyle(e: unknown): { fontSize: string; display: string };
};

async function box(page: Page, selector: string): Promise<Box> {
  const found = await page.locator(selector).first().boundingBox();
  assert.ok(found, `${selector} is laid out`);
  return {
    left: found.x,
    right: found.x + found.width,
    top: found.y,
    bottom: found.y + found.height,
    width: found.width,
  };
}

async function pageWidth(page: Page): Promise<number> {
  return page.evaluate(() => (globalThis as unknown as Dom).document.documentElement.scrollWidth);
}

async function screenshot(page: Page, name: string): Promise<void> {
  const folder = process.env.FEED_SERVICE_SCREENSHOTS;
  if (folder) await page.screenshot({ path: join(folder, `${name}.png`), fullPage: true });
}

/** Every post the search finds, counted by paging the store's date order (no count involved). */
async function matchesOf(terms: string): Promise<number> {
  let n = 0;
  for (let offset = 0; ; offset += 1000) {
    const page = await site().service.store.searchPosts({
      limit: 1000,
      offset,
      languageIds: null,
      query: parseSearchQuery(terms),
      sort: "date",
    });
    n += page.length;
    if (page.length < 1000) return n;
  }
}

/** The side column beside the posts (desktop) or below them (phone), inside the screen. */
async function assertSideColumn(page: Page, width: number, label: string): Promise<void> {
  const main = await box(page, ".with-aside > .main-column");
  const side = await box(page, ".with-aside > aside.side");
  assert.ok(side.right <= width, `${label}: the side column ends inside the screen`);
  if (width >= 1280) {
    assert.ok(side.left >= main.right, `${label}: the side column is beside the posts`);
    assert.ok(side.top < main.bottom, `${label}: and level with them`);
    assert.ok(side.width >= 250, `${label}: ${side.width} px wide`);
    assert.ok(
      side.right >= width - 100,
      `${label}: it fills the right of the screen (ends at ${side.right})`,
    );
  } else {
    assert.ok(side.top >= main.bottom, `${label}: the side column comes below the posts`);
    assert.ok(Math.abs(side.width - main.width) < 2, `${label}: as wide as the posts`);
  }
}

for (const width of [1280, 360]) {
  for (const scheme of ["light", "dark"] as const) {
    const mode = `${width} px, ${scheme}`;
    browserTest(
      `${mode}: /languages fits, with codes on one line and chart text of 12 px or more`,
      async (context) => {
        const watched = await watchedPage(context);
        const { page } = watched;
        await open(watched, `${base()}/languages`);
        await assertCleanPage(watched, `${mode} /languages`);
        await screenshot(page, `languages-${width}-${scheme}`);
        assert.ok((await pageWidth(page)) <= width, "the page is no wider than the screen");

        const frame = page.locator(".table-scroll");
        const wrapper = await box(page, ".table-scroll");
        assert.ok(wrapper.left >= 0 && wrapper.right <= width, "the table's frame is on the screen");
        const scrolls = await frame.evaluate((e) => {
          const el = e as unknown as { scrollWidth: number; clientWidth: number };
          return el.scrollWidth > el.clientWidth + 1;
        });
        if (width >= 1280) assert.equal(scrolls, false, "on a desktop the whole table fits");
        // On a phone the table may scroll inside its frame: its last column must come into view.
        if (scrolls) {
          await frame.evaluate((e) => {
            const el = e as unknown as { scrollLeft: number; scrollWidth: number };
            el.scrollLeft = el.scrollWidth;
          });
        }
        const last = await box(page, "table.languages thead th:last-child");
        assert.equal(await page.locator("table.languages thead th:last-child").innerText(), "Last post");
        assert.ok(last.right <= wrapper.right + 1, `the last column ends at ${last.right}, inside the frame`);
        assert.ok(last.left >= wrapper.left, "and starts inside it");
        const firstColumn = await box(page, "table.languages tbody th");
        assert.ok(firstColumn.left >= wrapper.left - 1, "the language names stay in view");

        const codes = await page.locator("table.languages code").evaluateAll((els) =>
          els.map((e) => {
            const el = e as unknown as { textContent: string; getClientRects(): ArrayLike<unknown> };
            return [el.textContent, el.getClientRects().length] as const;
          }),
        );
        assert.ok(
          codes.some(([code]) => code === "pt-BR"),
          "the demo has pt-BR",
        );
        for (const [code, lines] of codes) assert.equal(lines, 1, `${code} on one line`);

        const sizes = await page.locator(".chart .label, .chart .value").evaluateAll((els) =>
          els.map((e) => {
            const g = globalThis as unknown as Dom;
            const el = e as unknown as {
              textContent: string;
              getBoundingClientRect(): { height: number };
            };
            return [el.textContent, Number.parseFloat(g.getComputedStyle(e).fontSize)] as const;
          }),
        );
        assert.ok(sizes.length >= 20, "a label and a value per language");
        for (const [text, size] of sizes) assert.ok(size >= 12, `"${text}" is ${size} px`);
        const bars = await page.locator("rect.bar").evaluateAll((els) =>
          els.map((e) => {
            const el = e as unknown as {
              getAttribute(n: string): string;
              getBoundingClientRect(): { width: number };
            };
            return [Number(el.getAttribute("data-posts")), el.getBoundingClientRect().width] as const;
          }),
        );
        for (const [posts, drawn] of bars) if (posts > 0) assert.ok(drawn > 0, "every bar with posts shows");
      },
      { viewport: { width, height: width >= 1280 ? 900 : 740 }, colorScheme: scheme },
    );

    browserTest(
      `${mode}: home and search use the side column, and search says how many posts match`,
      async (context) => {
        const watched = await watchedPage(context);
        const { page } = watched;
        await open(watched, `${base()}/`);
        await assertCleanPage(watched, `${mode} /`);
        await screenshot(page, `home-${width}-${scheme}`);
        assert.ok((await pageWidth(page)) <= width, "/ is no wider than the screen");
        await assertSideColumn(page, width, `${mode} /`);
        const headings = await page.locator("aside.side h2").allInnerTexts();
        for (const heading of ["Categories", "Busiest feeds this week"])
          assert.ok(headings.includes(heading), `/ shows ${heading}: ${headings.join(", ")}`);

        const expected = await matchesOf("data");
        assert.ok(expected > 25 && expected < 10_000, `${expected} demo posts match "data"`);
        // Twice: the first search of the site is recorded only as its page is read.
        await open(watched, `${base()}/search?q=data`);
        await open(watched, `${base()}/search?q=data`);
        await assertCleanPage(watched, `${mode} /search`);
        await screenshot(page, `search-${width}-${scheme}`);
        assert.ok((await pageWidth(page)) <= width, "/search is no wider than the screen");
        await assertSideColumn(page, width, `${mode} /search`);
        assert.equal(
          await page.getByRole("status").innerText(),
          `${expected.toLocaleString("en")} posts match · showing 1–25`,
        );
        const side = await page.locator("aside.side h2").allInnerTexts();
        assert.deepEqual(side, ["Recent searches", "Search tips"]);
        assert.ok(await page.getByRole("link", { name: "data", exact: true }).first().isVisible());
      },
      { viewport: { width, height: width >= 1280 ? 900 : 740 }, colorScheme: scheme },
    );
  }
}
