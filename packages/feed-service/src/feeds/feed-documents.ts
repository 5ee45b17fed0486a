/**
 * The output feed documents (spec §5.2): RSS 2.0, Atom 1.0 and JSON Feed 1.1 of a list of posts,
 * written by feedsmith's generators. Items link to the post's tracking link and carry an id that
 * never changes (item-ids.ts; RSS guid with isPermaLink="false"); the feed links to itself (atom:link rel="self", feed_url) and to its web page. RSS readers render title and
 * description as HTML, so post text goes there HTML-escaped and stays text; Atom says
 * type="text"; JSON Feed has content_text. Characters that XML 1.0 forbids are dropped from every
 * text (the rule of spec §3), in all three formats alike.
 */
import { stripForbiddenXmlChars } from "@feed-toolkit/soap";
import { escapeUTF8 } from "entities";
import { generateAtomFeed, generateJsonFeed, generateRssFeed } from "feedsmith";
import { escapeJsonMarkup } from "../http/json-text.js";
import type { PostItem } from "../operations/column-sets.js";
import { feedTagId, itemId } from "./item-ids.js";

export type FeedFormat = "rss" | "atom" | "json";

export const feedContentTypes: Record<FeedFormat, string> = {
  rss: "application/rss+xml; charset=utf-8",
  atom: "application/atom+xml; charset=utf-8",
  json: "application/feed+json; charset=utf-8",
};

export interface FeedMeta {
  readonly title: string;
  readonly description: string;
  /** The absolute URL of this feed document. */
  readonly selfUrl: string;
  /** The absolute URL of the web page that shows the same posts. */
  readonly pageUrl: string;
  /** The install's tagging entity of item ids (item-ids.ts). */
  readonly itemTag: string;
  /** The feed's path and query, which with the tagging entity make the Atom feed's id. */
  readonly path: string;
}

const generator = "feed-service";

const text = (value: string): string => stripForbiddenXmlChars(value);
/** Text for an element that readers render as HTML: escaped, so that markup in it stays text. */
const htmlText = (value: string): string => escapeUTF8(stripForbiddenXmlChars(value));

/** The newest post date, or the epoch for an empty feed (a fixed value, so its bytes are stable). */
function updatedOf(posts: readonly PostItem[]): Date {
  return new Date(posts.reduce((newest, p) => Math.max(newest, p.postDate), 0));
}

function rss(meta: FeedMeta, posts: readonly PostItem[]): string {
  return generateRssFeed({
    title: htmlText(meta.title),
    link: meta.pageUrl,
    description: htmlText(meta.description),
    generator,
    lastBuildDate: updatedOf(posts),
    atom: { links: [{ href: meta.selfUrl, rel: "self", type: "application/rss+xml" }] },
    items: posts.map((p) => ({
      title: htmlText(p.postTitle),
      link: p.trackingLink,
      description: htmlText(p.postExcerpt),
      guid: { value: itemId(meta.itemTag, p.postId), isPermaLink: false },
      pubDate: new Date(p.postDate),
      categories: p.categoryName === null ? undefined : [{ name: text(p.categoryName) }],
      dc: { creators: [text(p.feedName)] },
    })),
  });
}

function atom(meta: FeedMeta, posts: readonly PostItem[]): string {
  return generateAtomFeed({
    id: feedTagId(meta.itemTag, meta.path),
    title: { value: text(meta.title), type: "text" },
    subtitle: { value: text(meta.description), type: "text" },
    updated: updatedOf(posts),
    generator: { text: generator },
    links: [
      { href: meta.selfUrl, rel: "self", type: "application/atom+xml" },
      { href: meta.pageUrl, rel: "alternate", type: "text/html" },
    ],
    entries: posts.map((p) => ({
      id: itemId(meta.itemTag, p.postId),
      title: { value: text(p.postTitle), type: "text" },
      summary: { value: text(p.postExcerpt), type: "text" },
      updated: new Date(p.postDate),
      published: new Date(p.postDate),
      links: [{ href: p.trackingLink, rel: "alternate", type: "text/html" }],
      authors: [{ name: text(p.feedName) }],
      categories: p.categoryName === null ? undefined : [{ term: text(p.categoryName) }],
    })),
  });
}

function json(meta: FeedMeta, posts: readonly PostItem[]): string {
  const document = generateJsonFeed({
    title: text(meta.title),
    description: text(meta.description),
    home_page_url: meta.pageUrl,
    feed_url: meta.selfUrl,
    items: posts.map((p) => ({
      id: itemId(meta.itemTag, p.postId),
      url: p.trackingLink,
      title: text(p.postTitle),
      content_text: text(p.postExcerpt),
      date_published: new Date(p.postDate),
      authors: [{ name: text(p.feedName) }],
      tags: p.categoryName === null ? undefined : [text(p.categoryName)],
    })),
  });
  // JSON Feed requires `items` even when there are none; the generator leaves an empty list out.
  return escapeJsonMarkup(
    JSON.stringify({ ...(document as object), items: (document as { items?: unknown[] }).items ?? [] }),
  );
}

/**
 * @example
 * renderFeed("atom", { title: "Recent posts", description: "…", selfUrl, pageUrl, itemTag, path }, posts);
 */
export function renderFeed(format: FeedFormat, meta: FeedMeta, posts: readonly PostItem[]): string {
  if (format === "rss") return rss(meta, posts);
  if (format === "atom") return atom(meta, posts);
  return json(meta, posts);
}
