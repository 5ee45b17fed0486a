/**
 * The feed-level metadata learnt from a document: its title, site link (absolute), description
 * and declared language, cleaned the same way as entries.
 */

import { stripForbiddenXmlChars } from "@feed-toolkit/soap";
import { feedBase } from "./normalise-entry.js";
import type { ParsedFeed } from "./parsed-feed.js";
import { absoluteUrl } from "./sanitise-html.js";

export interface FeedMetadata {
  title: string | null;
  siteUrl: string | null;
  description: string | null;
  language: string | null;
  /** The feed's own URL as the document declares it (absolute), for WebSub's hub.topic. */
  selfUrl: string | null;
  /** WebSub hubs the document names (absolute http(s) URLs, in document order). */
  hubs: string[];
}

function httpUrl(text: string | null, base: string): string | null {
  if (!text) return null;
  try {
    const url = new URL(text, base);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch {
    return null;
  }
}

function clean(text: string | null, max: number): string | null {
  if (!text) return null;
  const cleaned = stripForbiddenXmlChars(text).trim().slice(0, max);
  return cleaned === "" ? null : cleaned;
}

/**
 * @example
 * normaliseFeedMetadata(parseFeedText(xml).feed, "https://example.com/feed.xml").siteUrl; // "https://example.com/"
 */
export function normaliseFeedMetadata(feed: ParsedFeed, feedUrl: string): FeedMetadata {
  const base = feed.base ? feedBase(feed, feedUrl) : feedUrl;
  const site = feed.siteUrl ? absoluteUrl(feed.siteUrl, base) : undefined;
  return {
    title: clean(feed.title, 500),
    siteUrl: site && /^https?:/i.test(site) ? site : null,
    description: clean(feed.description, 2000),
    language: clean(feed.language, 35),
    selfUrl: httpUrl(feed.selfUrl, base),
    hubs: (feed.hubs ?? []).map((h) => httpUrl(h, base)).filter((h): h is string => h !== null),
  };
}
