/**
 * Writing the subscription list as OPML 2.0 with feedsmith: one outline per category holding its
 * feeds, then the feeds without a category at the top level.
 */
import { generateOpml, type Opml } from "feedsmith";
import type { FeedRecord } from "../store/store.js";

function feedOutline(f: FeedRecord): Opml.Outline<Date> {
  return {
    text: f.feedName,
    title: f.feedName,
    type: "rss",
    xmlUrl: f.feedUrl,
    ...(f.siteUrl ? { htmlUrl: f.siteUrl } : {}),
    ...(f.feedDescription ? { description: f.feedDescription } : {}),
  };
}

/**
 * @example
 * writeOpml(await store.feeds(), new Date()); // '<?xml version="1.0" encoding="utf-8"?>\n<opml version="2.0">…'
 */
export function writeOpml(
  feeds: readonly FeedRecord[],
  now: Date,
  title = "feed-service subscriptions",
): string {
  const byCategory = new Map<string, FeedRecord[]>();
  const loose: FeedRecord[] = [];
  for (const f of feeds) {
    if (f.categoryName === null) loose.push(f);
    else byCategory.set(f.categoryName, [...(byCategory.get(f.categoryName) ?? []), f]);
  }
  const outlines: Opml.Outline<Date>[] = [
    ...[...byCategory].map(([name, list]) => ({ text: name, title: name, outlines: list.map(feedOutline) })),
    ...loose.map(feedOutline),
  ];
  return generateOpml({ head: { title, dateCreated: now }, body: { outlines } });
}
