/**
 * The normaliser: a parsed entry becomes what the store keeps. URLs made absolute (entry
 * xml:base, feed xml:base, the feed's site link, the feed URL, in that order), dates parsed
 * (no date: first-seen time; a date in the future is clamped to now, so that a mis-set clock
 * does not pin a post on top), HTML sanitised, a plain-text excerpt of at most 500 characters
 * (spec §4 `postExcerpt`), and forbidden XML characters removed everywhere.
 */

import { stripForbiddenXmlChars } from "@feed-toolkit/soap";
import { languageCodeFor } from "./detect-language.js";
import { entryIdentity } from "./entry-identity.js";
import type { NormalisedEntry } from "./normalised-entry.js";
import { parseFeedDate } from "./parse-date.js";
import type { ParsedEntry, ParsedFeed } from "./parsed-feed.js";
import { absoluteUrl, sanitiseHtml } from "./sanitise-html.js";
import { htmlToText } from "./text-fields.js";

export const maxExcerptLength = 500;
const maxTitleLength = 1000;
/** Clock skew tolerated before a future date is clamped. */
const futureTolerance = 10 * 60_000;

/** Cuts plain text to `max` characters at a word boundary, marking the cut with an ellipsis. */
export function truncateText(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

function httpUrl(url: string | null | undefined, base: string | null): string | null {
  if (!url) return null;
  const abs = absoluteUrl(url, base);
  return abs && /^https?:/i.test(abs) ? abs : null;
}

/** The base URL for resolving an entry's relative references. */
export function feedBase(feed: ParsedFeed, feedUrl: string): string {
  const documentBase = (feed.base && absoluteUrl(feed.base, feedUrl)) || feedUrl;
  if (feed.base) return documentBase;
  return httpUrl(feed.siteUrl, feedUrl) ?? feedUrl;
}

/**
 * Normalises one entry of a parsed feed.
 *
 * @example
 * const feed = parseFeedText(xml).feed;
 * normaliseEntry(feed.entries[0], feed, "https://example.com/feed.xml", Date.now());
 */
export function normaliseEntry(
  entry: ParsedEntry,
  feed: ParsedFeed,
  feedUrl: string,
  now: number,
  // The same for every entry of a document: its caller may work it out once.
  base0: string = feedBase(feed, feedUrl),
): NormalisedEntry {
  const base = (entry.base && absoluteUrl(entry.base, base0)) || base0;
  const link = httpUrl(entry.link, base);
  const contentSource = entry.contentHtml ?? entry.summaryHtml ?? "";
  const content = contentSource === "" ? "" : sanitiseHtml(contentSource, base);
  const excerptSource = entry.summaryHtml ?? entry.contentHtml ?? "";
  const excerpt = truncateText(htmlToText(stripForbiddenXmlChars(excerptSource)), maxExcerptLength);
  const rawTitle = entry.title ? stripForbiddenXmlChars(entry.title) : "";
  const title = truncateText(rawTitle || truncateText(excerpt, 80) || link || "(untitled)", maxTitleLength);
  const clamp = (t: number | null) => (t !== null && t > now + futureTolerance ? now : t);
  const guid = entry.guid ? stripForbiddenXmlChars(entry.guid).trim() : null;
  return {
    identity: entryIdentity({ guid: guid || null, link, title: rawTitle, content }),
    link,
    canonicalLink: httpUrl(entry.canonicalLink ?? null, base),
    title,
    excerpt,
    content,
    author: entry.author ? stripForbiddenXmlChars(entry.author).trim() : null,
    publishedAt: clamp(parseFeedDate(entry.published)),
    updatedAt: clamp(parseFeedDate(entry.updated)),
    declaredLanguage: entry.language,
    // Title and excerpt are enough text for a guess, without reading the content again.
    language: languageCodeFor(entry.language, `${title}. ${excerpt}`),
  };
}
