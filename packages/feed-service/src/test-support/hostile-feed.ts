/**
 * Test data: a feed whose every text field tries to become markup or script — script tags, event
 * attributes, `javascript:` URLs, attribute breakouts — written straight through the store, as a
 * buggy or hostile ingest might. Pages must show all of it as text and run none of it.
 */
import type { Store } from "../store/store.js";

/** Each payload sets `window.__pwned` (or alerts) if it ever runs. */
export const hostileTexts = [
  `<script>window.__pwned = "title"</script>`,
  `<img src=x onerror="window.__pwned='img'">`,
  `"><svg onload="window.__pwned='svg'">`,
  `' onmouseover='window.__pwned=1' x='`,
  `</title><script>window.__pwned="head"</script>`,
  `<a href="javascript:window.__pwned='link'">click me</a>`,
] as const;

export interface HostileFeed {
  readonly feedId: number;
  readonly categoryId: number;
  readonly postIds: readonly number[];
}

export async function seedHostileFeed(store: Store, now: number): Promise<HostileFeed> {
  const category = await store.addCategory(`<b onclick="window.__pwned='category'">Hostile</b>`);
  const feed = await store.addFeed({
    feedUrl: "https://hostile.example.org/feed?a=1&b=<script>",
    feedName: `<script>window.__pwned="feed"</script>Hostile feed`,
    siteUrl: "javascript:window.__pwned='site'",
    feedDescription: `<iframe src="javascript:window.__pwned='desc'"></iframe>`,
    categoryId: category.categoryId,
    languageId: 1,
  });
  await store.applyFeedUpdate(feed.feedId, {
    fetchState: { lastFetchedAt: now },
    posts: hostileTexts.map((text, i) => ({
      guid: `hostile-${i}`,
      link: "javascript:window.__pwned='post'",
      title: `${text} hostile ${i}`,
      excerpt: `${text} excerpt`,
      content: "",
      publishedAt: now - (i + 1) * 60_000,
      updatedAt: null,
      seenAt: now,
      languageId: 1,
    })),
  });
  const posts = await store.postsByFeed({ feedId: feed.feedId, limit: 100, offset: 0 });
  await store.addSmartCategory({ name: `<script>window.__pwned="smart"</script>`, query: "hostile" });
  return { feedId: feed.feedId, categoryId: category.categoryId, postIds: posts.map((p) => p.postId) };
}
