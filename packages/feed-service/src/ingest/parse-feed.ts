/**
 * Parsing a decoded feed document with feedsmith behind our own preparation: forbidden
 * characters and any DOCTYPE removed first, FeedBurner's origLink given as a canonical link
 * (feedburner-origlink.ts); a document the XML parser refuses is repaired once
 * and parsed again. A recognised feed with nothing feedsmith keeps (an empty channel) is an empty
 * feed, not an error.
 */

import { stripForbiddenXmlChars } from "@feed-toolkit/soap";
import {
  type AnyFeed,
  DetectError,
  parseFeed as feedsmithParse,
  MalformedError,
  ParseError,
} from "feedsmith";
import { adaptAtom } from "./atom-adapter.js";
import { decodeAtom03Base64 } from "./atom03-base64.js";
import { detectDocumentKind } from "./detect-format.js";
import type { FailureCode } from "./failure-codes.js";
import { origLinksAsCanonical } from "./feedburner-origlink.js";
import { adaptJsonFeed } from "./json-feed-adapter.js";
import { FeedParseError } from "./parse-error.js";
import type { FeedFormat, ParsedFeed } from "./parsed-feed.js";
import { repairXml, stripDoctype } from "./repair-xml.js";
import { adaptRdf, adaptRss } from "./rss-adapter.js";
import { readJsonFeed } from "./tolerant-json-feed.js";

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

function adapt(parsed: AnyFeed): ParsedFeed {
  switch (parsed.format) {
    case "rss":
      return adaptRss(parsed.feed);
    case "atom":
      return adaptAtom(parsed.feed);
    case "rdf":
      return adaptRdf(parsed.feed);
    case "json":
      return adaptJsonFeed(parsed.feed);
  }
}

function notAFeed(reason: string, failure: FailureCode, cause?: unknown): FeedParseError {
  return new FeedParseError(failure, `The document is not a feed we can read: ${reason}.`, { cause });
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
  if (kind === "html") throw notAFeed("it is an HTML page", "PARSE_NOT_A_FEED");
  if (kind === "unknown") throw notAFeed("it is neither XML nor JSON", "PARSE_NOT_A_FEED");
  // Only the library's own refusals are caught here: an error in our adapters is a bug and must
  // surface, not be mistaken for a malformed document.
  if (kind === "json") return { feed: adaptJsonFeed(readJsonFeed(input)), repaired: false };
  const stripped = stripDoctype(stripForbiddenXmlChars(input));
  const cleaned = stripped.length !== input.length;
  const text = origLinksAsCanonical(decodeAtom03Base64(stripped));
  const format = rootFormat(text);
  try {
    return { feed: adapt(feedsmithParse(text)), repaired: cleaned };
  } catch (first) {
    if (!isLibraryError(first)) throw first;
    if (first instanceof ParseError && format) return { feed: emptyFeed(format), repaired: cleaned };
  }
  let parsed: AnyFeed;
  try {
    parsed = feedsmithParse(repairXml(text));
  } catch (second) {
    if (second instanceof ParseError && format) return { feed: emptyFeed(format), repaired: true };
    throw notAFeed("it is not well-formed RSS, Atom or RDF even after repair", "PARSE_MALFORMED", second);
  }
  return { feed: adapt(parsed), repaired: true };
}

function isLibraryError(error: unknown): boolean {
  return error instanceof ParseError || error instanceof MalformedError || error instanceof DetectError;
}
