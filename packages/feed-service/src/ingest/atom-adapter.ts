/**
 * Atom 0.3 and 1.0 (feedsmith upgrades 0.3 names to 1.0 ones) to a `ParsedFeed`.
 * Text constructs carry a type (RFC 4287 §3.1): `text` is escaped into HTML for content and kept
 * as is for titles; `html` and `xhtml` are HTML already.
 */
import type { AtomFeed } from "feedsmith";
import type { ParsedEntry, ParsedFeed } from "./parsed-feed.js";
import { escapeHtml, titleText } from "./text-fields.js";

type Text = { value?: string; type?: string };

function isMarkup(type: string | undefined): boolean {
  if (!type) return false;
  const t = type.toLowerCase();
  return t === "html" || t === "xhtml" || t.includes("html");
}

function textAsHtml(text: Text | undefined): string | null {
  if (!text || text.value === undefined || text.value === "") return null;
  return isMarkup(text.type) ? text.value : escapeHtml(text.value);
}

function textAsTitle(text: Text | undefined): string | null {
  if (!text) return null;
  return titleText(text.value, isMarkup(text.type) || text.type === undefined ? "html" : "text");
}

/** The alternate link (rel absent or "alternate"), preferring text/html. */
export function alternateLink(
  links: ReadonlyArray<{ href?: string; rel?: string; type?: string }> | undefined,
) {
  if (!links) return null;
  const alternates = links.filter((l) => l.href && (!l.rel || l.rel.toLowerCase() === "alternate"));
  const html = alternates.find((l) => !l.type || l.type.includes("html"));
  return (html ?? alternates[0])?.href ?? null;
}

/** Every href of the links with this relation (WebSub hubs: a feed may name several). */
export function relLinks(
  links: ReadonlyArray<{ href?: string; rel?: string }> | undefined,
  rel: string,
): string[] {
  return (links ?? []).filter((l) => l.href && l.rel?.toLowerCase() === rel).map((l) => l.href!.trim());
}

function selfLink(links: ReadonlyArray<{ href?: string; rel?: string }> | undefined): string | null {
  return links?.find((l) => l.href && l.rel?.toLowerCase() === "self")?.href ?? null;
}

function adaptEntry(entry: AtomFeed.Entry<string>, feedLang: string | null): ParsedEntry {
  const content = entry.content as Text | undefined;
  return {
    guid: entry.id?.trim() || null,
    link: alternateLink(entry.links),
    title: textAsTitle(entry.title as Text | undefined),
    contentHtml: textAsHtml(content) ?? null,
    summaryHtml: textAsHtml(entry.summary as Text | undefined) ?? entry.media?.description?.value ?? null,
    author: entry.authors?.[0]?.name ?? entry.dc?.creators?.[0] ?? null,
    published: entry.published ?? entry.dc?.dates?.[0] ?? null,
    updated: entry.updated ?? null,
    // xml:lang is inherited (XML 1.0 §2.12): the text constructs' own, then the entry's, then the feed's.
    language:
      (content as { xml?: { lang?: string } } | undefined)?.xml?.lang ??
      (entry.summary as { xml?: { lang?: string } } | undefined)?.xml?.lang ??
      (entry.title as { xml?: { lang?: string } } | undefined)?.xml?.lang ??
      entry.xml?.lang ??
      entry.dc?.languages?.[0] ??
      feedLang,
    base: entry.xml?.base ?? null,
    canonicalLink: relLinks(entry.links, "canonical")[0] ?? null,
  };
}

export function adaptAtom(feed: AtomFeed.Feed<string>): ParsedFeed {
  const language = feed.xml?.lang ?? feed.dc?.languages?.[0] ?? null;
  return {
    format: "atom",
    title: textAsTitle(feed.title as Text | undefined),
    siteUrl: alternateLink(feed.links),
    description: textAsTitle(feed.subtitle as Text | undefined),
    language,
    selfUrl: selfLink(feed.links),
    hubs: relLinks(feed.links, "hub"),
    base: feed.xml?.base ?? null,
    entries: (feed.entries ?? []).map((e) => adaptEntry(e, language)),
  };
}
