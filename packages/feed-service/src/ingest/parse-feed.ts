/**
 * Parsing a decoded feed document with feedsmith behind our own preparation: forbidden
 * characters and any DOCTYPE removed first; a document the XML parser refuses is repaired once
 * and parsed again. A recognised feed with nothing feedsmith keeps (an empty channel) is an empty
 * feed, not an error.
 */
import { parseFeed as feedsmithParse, ParseError } from "feedsmith";
import { FeedServiceError } from "../errors.js";
import { adaptAtom } from "./atom-adapter.js";
import { detectDocumentKind } from "./detect-format.js";
import { adaptJsonFeed } from "./json-feed-adapter.js";
import type { FeedFormat, ParsedFeed } from "./parsed-feed.js";
import { repairXml, stripDoctype } from "./repair-xml.js";
import { adaptRdf, adaptRss } from "./rss-adapter.js";
import { stripForbiddenXmlChars } from "./xml-characters.js";

export interface ParseOutcome {
  feed: ParsedFeed;
  /** True when the document was malformed and had to be repaired (feedparser's "bozo"). */
  repaired: boolean;
}

function emptyFeed(format: FeedFormat): ParsedFeed {
  return {
    format,
    title: null,
    siteUrl: null,
    description: null,
    language: null,
    selfUrl: null,
    base: null,
    entries: [],
  };
}

function rootFormat(xml: string): FeedFormat | null {
  const m = /<([\w.-]+:)?(rss|feed|RDF)\b/i.exec(xml);
  if (!m) return null;
  const name = m[2]!.toLowerCase();
  return name === "rss" ? "rss" : name === "feed" ? "atom" : "rdf";
}

function tryParse(text: string): ParsedFeed {
  const { format, feed } = feedsmithParse(text);
  switch (format) {
    case "rss":
      return adaptRss(feed);
    case "atom":
      return adaptAtom(feed);
    case "rdf":
      return adaptRdf(feed);
    case "json":
      return adaptJsonFeed(feed);
  }
}

function notAFeed(reason: string, cause?: unknown): FeedServiceError {
  return new FeedServiceError("FEED_PARSE_FAILED", `The document is not a feed we can read: ${reason}.`, {
    cause,
  });
}

/**
 * Parses feed text (already decoded) into a `ParsedFeed`; throws `FEED_PARSE_FAILED` when the
 * document is no RSS, Atom, RDF or JSON feed even after repair.
 *
 * @example
 * parseFeedText('<rss version="2.0"><channel><title>T</title></channel></rss>').feed.title; // "T"
 */
export function parseFeedText(input: string): ParseOutcome {
  const kind = detectDocumentKind(input);
  if (kind === "html") throw notAFeed("it is an HTML page");
  if (kind === "json") {
    try {
      return { feed: tryParse(input), repaired: false };
    } catch (error) {
      throw notAFeed("it is JSON but not a JSON Feed", error);
    }
  }
  if (kind === "unknown") throw notAFeed("it is neither XML nor JSON");
  const text = stripDoctype(stripForbiddenXmlChars(input));
  const repairedFlag = text.length !== input.length;
  try {
    return { feed: tryParse(text), repaired: repairedFlag };
  } catch (first) {
    const format = rootFormat(text);
    if (first instanceof ParseError && format) return { feed: emptyFeed(format), repaired: repairedFlag };
    const repaired = repairXml(text);
    try {
      return { feed: tryParse(repaired), repaired: true };
    } catch (second) {
      if (second instanceof ParseError && format) return { feed: emptyFeed(format), repaired: true };
      throw notAFeed("it is not well-formed RSS, Atom or RDF even after repair", second);
    }
  }
}
