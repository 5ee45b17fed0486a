/**
 * Importing subscriptions: each OPML feed is added (its category created when new); feeds
 * already subscribed and outlines with unusable URLs are counted and reported, not fatal.
 */
import { FeedServiceError } from "../errors.js";
import type { Actor } from "../store/admin-store.js";
import type { Store } from "../store/store.js";
import type { OpmlSubscription } from "./opml-reader.js";

export interface OpmlImportResult {
  added: number;
  alreadyPresent: number;
  skipped: Array<{ feedUrl: string; reason: string }>;
}

function usableUrl(text: string): string | null {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * @example
 * const result = await importSubscriptions(store, readOpml(bytes), "cli:alice");
 */
export async function importSubscriptions(
  store: Store,
  subs: readonly OpmlSubscription[],
  actor: Actor,
): Promise<OpmlImportResult> {
  const result: OpmlImportResult = { added: 0, alreadyPresent: 0, skipped: [] };
  const categories = new Map(
    (await store.categories()).map((c) => [c.categoryName.toLowerCase(), c.categoryId]),
  );
  const existing = new Set((await store.adminFeeds()).map((f) => f.feedUrl));
  for (const sub of subs) {
    const feedUrl = usableUrl(sub.feedUrl);
    if (!feedUrl) {
      result.skipped.push({ feedUrl: sub.feedUrl, reason: "not an absolute http or https URL" });
      continue;
    }
    if (existing.has(feedUrl)) {
      result.alreadyPresent++;
      continue;
    }
    let categoryId: number | null = null;
    if (sub.category) {
      const key = sub.category.toLowerCase();
      categoryId = categories.get(key) ?? null;
      if (categoryId === null) {
        categoryId = (await store.admin.addCategory(actor, sub.category.slice(0, 200), Date.now()))
          .categoryId;
        categories.set(key, categoryId);
      }
    }
    try {
      const feed = {
        feedUrl,
        feedName: (sub.title ?? new URL(feedUrl).hostname).slice(0, 500),
        siteUrl: sub.siteUrl && usableUrl(sub.siteUrl),
        categoryId,
      };
      await store.admin.addFeed(actor, feed, Date.now());
      existing.add(feedUrl);
      result.added++;
    } catch (error) {
      if (error instanceof FeedServiceError && error.code === "FEED_CONFLICT") result.alreadyPresent++;
      else if (error instanceof FeedServiceError && error.code === "FEED_BAD_ARGUMENT")
        result.skipped.push({ feedUrl, reason: error.message });
      else throw error;
    }
  }
  return result;
}
