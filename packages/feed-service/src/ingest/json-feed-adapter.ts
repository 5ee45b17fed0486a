/** JSON Feed 1.0/1.1 (https://jsonfeed.org/version/1.1) to a `ParsedFeed`. */
import type { JsonFeed } from "feedsmith";
import type { ParsedEntry, ParsedFeed } from "./parsed-feed.js";
import { collapseWhitespace, escapeHtml } from "./text-fields.js";

function plain(value: string | undefined): string | null {
  if (value === undefined) return null;
  const text = collapseWhitespace(value);
  return text === "" ? null : text;
}

function adaptItem(item: JsonFeed.Item<string>, feedLang: string | null): ParsedEntry {
  const text = item.content_text ? `<p>${escapeHtml(item.content_text)}</p>` : null;
  return {
    guid: item.id !== undefined && item.id !== null ? String(item.id).trim() || null : null,
    link: item.url ?? item.external_url ?? null,
    title: plain(item.title),
    contentHtml: item.content_html ?? text,
    summaryHtml: item.summary ? escapeHtml(item.summary) : null,
    author: item.authors?.[0]?.name ?? null,
    published: item.date_published ?? null,
    updated: item.date_modified ?? null,
    language: item.language ?? feedLang,
    base: null,
  };
}

export function adaptJsonFeed(feed: JsonFeed.Feed<string>): ParsedFeed {
  const language = feed.language ?? null;
  return {
    format: "json",
    title: plain(feed.title),
    siteUrl: feed.home_page_url ?? null,
    description: plain(feed.description),
    language,
    selfUrl: feed.feed_url ?? null,
    // JSON Feed 1.1 `hubs`: each with a type ("WebSub"; older feeds say "PubSubHubbub").
    hubs: (feed.hubs ?? [])
      .filter((h) => typeof h?.url === "string" && (!h.type || /websub|pubsubhubbub/i.test(h.type)))
      .map((h) => h.url!.trim()),
    base: null,
    entries: (feed.items ?? []).map((i) => adaptItem(i, language)),
  };
}
