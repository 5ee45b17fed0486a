/**
 * Reading an OPML subscription list (OPML 1.0/2.0, as every feed reader exports it) with
 * feedsmith: every outline with an `xmlUrl` is a feed; the text of its enclosing outline (or its
 * own `category` attribute, first path segment) is its category.
 */

import { stripForbiddenXmlChars } from "@feed-toolkit/soap";
import type { Opml } from "feedsmith";
import { parseOpml } from "feedsmith";
import { FeedServiceError } from "../errors.js";
import { decodeBytes } from "../ingest/decode-bytes.js";
import { stripDoctype } from "../ingest/repair-xml.js";

export interface OpmlSubscription {
  feedUrl: string;
  title: string | null;
  siteUrl: string | null;
  category: string | null;
  language: string | null;
}

function clean(text: string | undefined): string | null {
  const t = text?.replace(/\s+/g, " ").trim();
  return t ? t : null;
}

function categoryAttribute(value: string | undefined): string | null {
  // OPML 2.0 §"category": comma-separated slash-delimited paths; the first path's first segment.
  const first = value
    ?.split(",")[0]
    ?.split("/")
    .find((s) => s.trim() !== "");
  return clean(first);
}

/**
 * @example
 * readOpml(Buffer.from('<opml version="2.0"><body><outline text="News"><outline text="A" xmlUrl="https://a.example/feed"/></outline></body></opml>'));
 * // [{ feedUrl: "https://a.example/feed", title: "A", siteUrl: null, category: "News", language: null }]
 */
export function readOpml(bytes: Uint8Array, contentType?: string | null): OpmlSubscription[] {
  const text = stripDoctype(stripForbiddenXmlChars(decodeBytes(bytes, contentType).text));
  let doc: Opml.Document<string>;
  try {
    doc = parseOpml(text);
  } catch (error) {
    throw new FeedServiceError(
      "FEED_PARSE_FAILED",
      "The file is not an OPML document (no <opml> with a <body>).",
      {
        cause: error,
      },
    );
  }
  const out: OpmlSubscription[] = [];
  const walk = (outlines: ReadonlyArray<Opml.Outline<string>> | undefined, parent: string | null) => {
    for (const o of outlines ?? []) {
      const xmlUrl = clean(o.xmlUrl);
      if (xmlUrl) {
        out.push({
          feedUrl: xmlUrl,
          title: clean(o.title) ?? clean(o.text),
          siteUrl: clean(o.htmlUrl),
          category: parent ?? categoryAttribute(o.category),
          language: clean(o.language),
        });
      }
      if (o.outlines) walk(o.outlines, xmlUrl ? parent : (clean(o.text) ?? clean(o.title) ?? parent));
    }
  };
  walk(doc.body?.outlines, null);
  return out;
}
