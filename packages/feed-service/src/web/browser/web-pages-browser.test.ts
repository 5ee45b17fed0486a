/**
 * The web pages in a real browser (Debian's Chromium driven by playwright-core) on the demo corpus
 * plus a hostile feed: what a person sees on every page, paging and filters, the chart against its
 * table, a click counted through /click, the search box (a Japanese query too), the keyboard
 * shortcuts. On every page: no script error, no CSP violation, nothing hostile ran, no serious or
 * critical axe violation. Skips loudly without Chromium, fails under CI=true (browser-launch.ts).
 */
import assert from "node:assert/strict";
import { base, browserTest, site, visitMainPages } from "../../test-support/browser-suite.js";
import { assertCleanPage, open, watchedPage } from "../../test-support/page-checks.js";

browserTest(
  "every page: its heading and title, no script error or CSP violation, no serious axe violation",
  async (context) => {
    const watched = await visitMainPages(context, "desktop");
    for (const [path, status] of [
      ["/?page=0", 400],
      ["/categories/9999", 404],
      ["/no-such-page", 404],
    ] as const) {
      const response = await watched.page.goto(base() + path);
      assert.equal(response?.status(), status, path);
      // The browser logs the status of the page itself; that one line is expected, nothing else.
      const own = `console: Failed to load resource: the server responded with a status of ${status}`;
      assert.deepEqual(
        watched.problems.filter((p) => !p.startsWith(own)),
        [],
        path,
      );
      watched.problems.length = 0;
      if (path !== "/no-such-page") await assertCleanPage(watched, path);
    }
  },
);

browserTest("the recent list: 25 posts a page, older and newer, the language filter", async (context) => {
  const watched = await watchedPage(context);
  const { page } = watched;
  await open(watched, `${base()}/`);
  assert.equal(await page.locator(".post").count(), 25);
  const firstPage = await page.locator(".post h2 a").allInnerTexts();
  await page.getByRole("link", { name: "Older →" }).click();
  await page.waitForURL(`${base()}/?page=2`);
  assert.equal(await page.locator(".page-number").innerText(), "Page 2");
  const secondPage = await page.locator(".post h2 a").allInnerTexts();
  assert.equal(secondPage.length, 25);
  assert.equal(firstPage.filter((title) => secondPage.includes(title)).length < 25, true);
  await page.getByRole("link", { name: "← Newer" }).click();
  await page.waitForURL(`${base()}/`);
  assert.deepEqual(await page.locator(".post h2 a").allInnerTexts(), firstPage);

  // Filter to French with the form: every post then says fr.
  await page.locator(".filters summary").click();
  await page.getByLabel("French").check();
  await page.getByRole("button", { name: "Apply" }).click();
  await page.waitForURL(/\?lang=\d+$/);
  const codes = await page.locator(".post .meta abbr").allInnerTexts();
  assert.equal(codes.length, 25);
  assert.deepEqual([...new Set(codes.map((c) => c.toLowerCase()))], ["fr"]);
  await assertCleanPage(watched, "filtered /");
});

browserTest("categories and feeds: counts agree with the lists they link to", async (context) => {
  const watched = await watchedPage(context);
  const { page } = watched;
  await open(watched, `${base()}/categories`);
  const cards = await page.locator(".cards li").all();
  assert.ok(cards.length >= 5);
  for (const card of cards.slice(0, 3)) {
    const count = Number((await card.locator(".meta").innerText()).match(/^(\d+) feeds?$/)?.[1]);
    const href = await card.locator("a").getAttribute("href");
    const category = await watchedPage(context);
    await open(category, base() + href);
    assert.equal(await category.page.locator(".feed-list li").count(), count, `${href}`);
    assert.ok((await category.page.locator(".post").count()) > 0, `${href} lists posts`);
    await category.page.close();
  }
  await open(watched, `${base()}/feeds`);
  const feeds = await site().service.store.feeds();
  assert.equal(await page.locator("table.feeds tbody tr").count(), feeds.length);
  const first = feeds[0]!;
  const row = page.locator("table.feeds tbody tr").first();
  assert.equal(await row.locator("th").innerText(), first.feedName);
  assert.equal(await row.locator("td.number").innerText(), first.postCount.toLocaleString("en"));
});

browserTest("/languages: each bar's length follows the table's post count", async (context) => {
  const watched = await watchedPage(context);
  const { page } = watched;
  await open(watched, `${base()}/languages`);
  const table = await page.locator("table.languages tbody tr").evaluateAll((rows) =>
    rows.map((row) => ({
      id: row.getAttribute("data-language-id"),
      posts: Number(row.querySelector(".post-count")?.textContent?.replaceAll(",", "")),
    })),
  );
  // The bars as drawn on the screen (each is a small SVG stretched to its row).
  const bars = await page.locator("rect.bar").evaluateAll((rects) =>
    rects.map((rect) => ({
      id: rect.getAttribute("data-language-id"),
      width: (rect as unknown as { getBoundingClientRect(): { width: number } }).getBoundingClientRect()
        .width,
    })),
  );
  assert.deepEqual(
    bars.map((b) => b.id),
    table.map((r) => r.id),
  );
  const max = Math.max(...table.map((r) => r.posts));
  const widest = Math.max(...bars.map((b) => b.width));
  for (let i = 0; i < bars.length; i++) {
    assert.ok(Math.abs(bars[i]!.width / widest - table[i]!.posts / max) < 0.01, `bar ${bars[i]!.id}`);
  }
  assert.equal(await page.getByRole("figure", { name: "Posts per language" }).count(), 1);
});

browserTest(
  "a post link goes through /click, which counts the click and leads to the post",
  async (context) => {
    const watched = await watchedPage(context);
    const { page } = watched;
    await open(watched, `${base()}/`);
    const link = page.locator(".post h2 a").first();
    const href = (await link.getAttribute("href"))!;
    assert.match(href, /^\/click\/\d+$/);
    const postId = Number(href.slice("/click/".length));
    const before = (await site().service.store.recentPosts({ limit: 1, offset: 0, languageIds: null }))[0]!;
    assert.equal(before.postId, postId);
    await link.click();
    await page.waitForURL(before.postLink);
    assert.equal(await page.title(), "A post elsewhere");
    const afterClick = (
      await site().service.store.recentPosts({ limit: 1, offset: 0, languageIds: null })
    )[0]!;
    assert.equal(afterClick.clicks, before.clicks + 1);
    await page.goBack();
    await page.reload();
    assert.match(
      await page.locator(".post .meta").first().innerText(),
      new RegExp(`· ${before.clicks + 1} clicks?`),
    );
  },
);

browserTest(
  "search with the box: matches marked in English and in Japanese, sort and recent searches",
  async (context) => {
    const watched = await watchedPage(context);
    const { page } = watched;
    await open(watched, `${base()}/`);
    await page.getByRole("searchbox", { name: "Search posts" }).fill("security");
    await page.keyboard.press("Enter");
    await page.waitForURL(`${base()}/search?q=security`);
    assert.ok((await page.locator(".post").count()) > 0);
    const marks = await page.locator("mark").allInnerTexts();
    assert.ok(marks.length > 0);
    assert.deepEqual([...new Set(marks.map((m) => m.toLowerCase()))], ["security"]);
    // Each result shows the word it was found by.
    for (const post of await page.locator(".post").all()) assert.ok((await post.locator("mark").count()) > 0);
    await assertCleanPage(watched, "search security");

    await page.getByLabel("Sort by").selectOption("date");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.waitForURL(/sort=date/);
    const dates = await page
      .locator(".post time")
      .evaluateAll((times) => times.map((t) => t.getAttribute("datetime")!));
    assert.deepEqual(dates, [...dates].sort().reverse());

    await page.getByRole("searchbox", { name: "Search posts" }).fill("性能");
    await page.keyboard.press("Enter");
    await page.waitForURL(`${base()}/search?q=${encodeURIComponent("性能")}`);
    assert.ok((await page.locator(".post").count()) > 0, "Japanese posts are found");
    const japanese = await page.locator("mark").allInnerTexts();
    assert.ok(japanese.length > 0);
    assert.deepEqual([...new Set(japanese)], ["性能"]);
    // 性能 is written the same in Japanese and Chinese: the results hold Japanese posts (and may
    // hold Chinese ones, rightly), each title marked with its language.
    const langs = await page
      .locator(".post h2 a")
      .evaluateAll((links) => links.map((a) => a.getAttribute("lang") ?? ""));
    assert.ok(langs.includes("ja"), `Japanese posts among the results: ${langs.join(", ")}`);
    assert.ok(
      langs.every((lang) => lang === "ja" || lang === "zh"),
      `only Japanese and Chinese titles: ${langs.join(", ")}`,
    );
    await assertCleanPage(watched, "search 性能");

    await open(watched, `${base()}/search`);
    // The clock is pinned, so both searches have the same time: only membership is certain.
    const recent = await page.locator(".recent-searches li a").allInnerTexts();
    assert.ok(recent.includes("性能") && recent.includes("security"), recent.join(", "));
  },
);

browserTest(
  "keyboard shortcuts: j and k move, o opens through /click, / searches, ? shows the help",
  async (context) => {
    const watched = await watchedPage(context);
    const { page } = watched;
    await open(watched, `${base()}/`);
    const current = () => page.locator(".post.current").getAttribute("id");
    const ids = await page.locator(".post").evaluateAll((posts) => posts.map((p) => p.id));
    await page.keyboard.press("j");
    assert.equal(await current(), ids[0]);
    await page.keyboard.press("j");
    await page.keyboard.press("j");
    assert.equal(await current(), ids[2]);
    await page.keyboard.press("k");
    assert.equal(await current(), ids[1]);

    await page.keyboard.press("?");
    const help = page.getByRole("dialog", { name: "Keyboard shortcuts" });
    assert.equal(await help.isVisible(), true);
    await assertCleanPage(watched, "help overlay");
    await page.keyboard.press("Escape");
    assert.equal(await help.isVisible(), false);

    await page.keyboard.press("/");
    assert.equal(
      await page.evaluate(
        () =>
          (globalThis as unknown as { document: { activeElement: { id: string } } }).document.activeElement
            .id,
      ),
      "search-q",
    );
    await page.keyboard.type("j");
    assert.equal(
      await page.locator("#search-q").inputValue(),
      "j",
      "letters typed in the box are text, not shortcuts",
    );
    await page.keyboard.press("Escape");

    const postId = Number(ids[1]!.slice("post-".length));
    const clicked = site().service.store.recentPosts({ limit: 2, offset: 0, languageIds: null });
    const link = (await clicked)[1]!;
    assert.equal(link.postId, postId);
    // What `o` must do is go through /click, which counts and redirects to the post; the stub for
    // the post's own host is not always consulted for a redirect hop, so the answer is checked.
    const answer = page.waitForResponse((r) => r.url() === `${base()}/click/${postId}`);
    await page.keyboard.press("o");
    assert.equal((await answer).status(), 302);
    assert.equal((await answer).headers().location, link.postLink);
  },
);
