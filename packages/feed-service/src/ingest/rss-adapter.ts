/**
 * RSS 0.9x/2.0 and RSS 1.0 (RDF) to a `ParsedFeed`, with the namespaces that carry content and
 * dates: content:encoded, dc:date, dc:creator, dc:language, media:description, atom:link.
 */
import type { RdfFeed, RssFeed } from "feedsmith";
import { alternateLink, relLinks } from "./atom-adapter.js";
import type { ParsedEntry, ParsedFeed } from "./parsed-feed.js";
import { titleText } from "./text-fields.js";

type AnyItem = RssFeed.Item<string> | RdfFeed.Item<string>;

function firstNonEmpty(...values: Array<string | undefined | null>): string | null {
  for (const v of values) if (v !== undefined && v !== null && v.trim() !== "") return v;
  return null;
}

/**
 * The name in an RSS author: RSS 2.0 asks for `email (Name)`, publishers also write
 * `Name <email>` or just a name.
 */
function personName(text: string | null): string | null {
  if (!text) return null;
  const paren = /^\s*\S+@\S+\s*\((.+)\)\s*$/.exec(text);
  if (paren) return paren[1]!.trim();
  const angle = /^\s*(.+?)\s*<\S+@\S+>\s*$/.exec(text);
  return (angle ? angle[1]! : text).trim() || null;
}

function authorText(author: unknown): string | null {
  if (typeof author === "string") return author;
  const person = author as { name?: string; email?: string } | undefined;
  return person?.name ?? person?.email ?? null;
}

function adaptItem(item: AnyItem, feedLang: string | null): ParsedEntry {
  const rss = item as RssFeed.Item<string>;
  const rdf = item as RdfFeed.Item<string>;
  const guid = firstNonEmpty(rss.guid?.value, rss.atom?.id, rdf.rdf?.about, rss.dc?.identifiers?.[0]);
  const permalinkGuid = rss.guid?.isPermaLink !== false && guid && /^https?:\/\//i.test(guid) ? guid : null;
  return {
    guid: guid?.trim() ?? null,
    link: firstNonEmpty(item.link, alternateLink(rss.atom?.links), permalinkGuid)?.trim() ?? null,
    title: titleText(firstNonEmpty(item.title, rss.dc?.titles?.[0], rss.media?.title?.value), "html"),
    contentHtml: firstNonEmpty(item.content?.encoded),
    summaryHtml: firstNonEmpty(item.description, rss.dc?.descriptions?.[0], rss.media?.description?.value),
    author: personName(firstNonEmpty(rss.dc?.creators?.[0], authorText(rss.authors?.[0]))),
    published: firstNonEmpty(rss.pubDate, rss.dc?.dates?.[0], rss.dcterms?.issued?.[0], rss.atom?.published),
    updated: firstNonEmpty(rss.dcterms?.modified?.[0], rss.atom?.updated),
    language: firstNonEmpty(rss.dc?.languages?.[0], rss.xml?.lang) ?? feedLang,
    base: rss.xml?.base ?? null,
    canonicalLink: relLinks(rss.atom?.links, "canonical")[0] ?? null,
  };
}

export function adaptRss(feed: RssFeed.Feed<string>): ParsedFeed {
  const language = firstNonEmpty(feed.language, feed.dc?.languages?.[0], feed.xml?.lang);
  return {
    format: "rss",
    title: titleText(firstNonEmpty(feed.title, feed.dc?.titles?.[0]), "html"),
    siteUrl: firstNonEmpty(feed.link, alternateLink(feed.atom?.links)),
    description: titleText(firstNonEmpty(feed.description, feed.dc?.descriptions?.[0]), "html"),
    language,
    selfUrl: feed.atom?.links?.find((l) => l.rel === "self")?.href ?? null,
    hubs: relLinks(feed.atom?.links, "hub"),
    base: feed.xml?.base ?? null,
    entries: (feed.items ?? []).map((i) => adaptItem(i, language)),
  };
}

export function adaptRdf(feed: RdfFeed.Feed<string>): ParsedFeed {
  const language = firstNonEmpty(feed.dc?.languages?.[0], feed.xml?.lang);
  return {
    format: "rdf",
    title: titleText(firstNonEmpty(feed.title, feed.dc?.titles?.[0]), "html"),
    siteUrl: firstNonEmpty(feed.link),
    description: titleText(firstNonEmpty(feed.description, feed.dc?.descriptions?.[0]), "html"),
    language,
    selfUrl: relLinks(feed.atom?.links, "self")[0] ?? null,
    hubs: relLinks(feed.atom?.links, "hub"),
    base: feed.xml?.base ?? null,
    entries: (feed.items ?? []).map((i) => adaptItem(i, language)),
  };
}
