/**
 * One story once in a real browser (browser-suite.ts: Debian's Chromium through playwright-core,
 * the demo site): a story that two feeds carry is one line on /, which says "also in" with a link
 * to the other feed; that feed's page and the story's own feed's page both list it, and a click
 * on the other feed's line counts for the story. With JavaScript on (axe and the page checks on
 * every page) and off (plain links and markup only).
 */
import assert from "node:assert/strict";
import type { BrowserContext } from "playwright-core";
import { base, browserTest, site } from "../../test-support/browser-suite.js";
import { assertCleanPage, open, type WatchedPage, watchedPage } from "../../test-support/page-checks.js";
import { longStoryTexts, storyPost } from "../../test-support/story-posts.js";

interface Story {
  postId: number;
  blogId: number;
  planetId: number;
  title: string;
}

let seeded: Promise<Story> | undefined;
/** Whether a walk of this file clicked the story already. */
let clicked = false;

/** The story, stored once for the file: the newest post of the site, so it heads page one of /. */
function story(): Promise<Story> {
  seeded ??= (async () => {
    const { store, now } = { store: site().service.store, now: site().now };
    const post = (guid: string, link: string, title: string, excerpt: string) =>
      storyPost(guid, link, title, excerpt, now - 60_000, { seenAt: now });
    const blogId = (await store.addFeed({ feedUrl: "https://city-blog.example/feed", feedName: "City blog" }))
      .feedId;
    const planetId = (
      await store.addFeed({ feedUrl: "https://city-planet.example/feed", feedName: "City planet" })
    ).feedId;
    const title = "Tram line extended across the river";
    await store.applyFeedUpdate(blogId, {
      fetchState: {},
      posts: [post("blog-tram", "https://city-blog.example/2026/tram", title, longStoryTexts.tram)],
    });
    // The planet's copy: the blog's link with tracking parameters, a title and text of its own.
    await store.applyFeedUpdate(planetId, {
      fetchState: {},
      posts: [
        post(
          "planet-tram",
          "https://city-blog.example/2026/tram/?utm_source=planet&utm_medium=rss",
          "Planet: the tram line",
          "A short note on the tram.",
        ),
      ],
    });
    const [top] = await store.recentPosts({ limit: 1, offset: 0, languageIds: null });
    assert.equal(top?.postTitle, title, "the story heads the recent list");
    return { postId: top.postId, blogId, planetId, title };
  })();
  return seeded;
}

/** The lines of the open page that show the story (by its id and by its title). */
async function storyLines(watched: WatchedPage, s: Story) {
  const byTitle = watched.page.locator(".post", { has: watched.page.getByRole("link", { name: s.title }) });
  assert.equal(await byTitle.count(), 1, `${watched.page.url()}: the story once`);
  assert.equal(await byTitle.getAttribute("id"), `post-${s.postId}`);
  return byTitle;
}

async function walk(context: BrowserContext, scripts: boolean): Promise<void> {
  const s = await story();
  const watched = await watchedPage(context);
  const { page } = watched;
  const check = async (label: string) => {
    if (scripts) await assertCleanPage(watched, label);
    else assert.deepEqual(watched.problems, [], label);
  };

  await open(watched, `${base()}/`);
  const line = await storyLines(watched, s);
  const meta = line.locator(".meta");
  assert.match(await meta.innerText(), /· also in City planet$/);
  // The story's line names its own feed first, and the other feed only after "also in".
  assert.deepEqual(
    await meta.getByRole("link", { name: "City blog" }).getAttribute("href"),
    `/feeds/${s.blogId}`,
  );
  assert.equal(await page.getByRole("link", { name: "Planet: the tram line" }).count(), 0, "no second line");
  await check("/ with a story also in another feed");

  // "also in" leads to the other feed's page, which lists the story too (under the story's id).
  await meta.getByRole("link", { name: "City planet" }).click();
  await page.waitForURL(`${base()}/feeds/${s.planetId}`);
  assert.match(await page.locator("h1").innerText(), /City planet/);
  const there = await storyLines(watched, s);
  await check(`/feeds/${s.planetId}`);

  // A click on the planet's line counts for the story: once per client in ten minutes
  // (click-route.ts), so the second walk's click, on the same story, adds nothing.
  const before = (await site().service.store.postsByFeed({ feedId: s.blogId, limit: 1, offset: 0 }))[0]!;
  assert.equal(before.postId, s.postId);
  await there.getByRole("link", { name: s.title }).click();
  await page.waitForURL("https://city-blog.example/2026/tram");
  const after = (await site().service.store.postsByFeed({ feedId: s.planetId, limit: 1, offset: 0 }))[0]!;
  assert.equal(after.postId, s.postId);
  assert.equal(after.clicks, before.clicks + (clicked ? 0 : 1));
  clicked = true;

  // The story's own feed lists it as well.
  await open(watched, `${base()}/feeds/${s.blogId}`);
  await storyLines(watched, s);
  await check(`/feeds/${s.blogId}`);
}

browserTest(
  "a story two feeds carry: one line on /, also in the other feed, listed on both feeds' pages",
  (context) => walk(context, true),
);

browserTest(
  "JavaScript off: the story's one line, its also-in link and both feeds' pages",
  (context) => walk(context, false),
  { javaScriptEnabled: false },
);
