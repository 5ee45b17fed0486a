/**
 * The pure part of a refresh: fetched bytes in, normalised entries and feed metadata out
 * (decode -> parse -> normalise). No network and no database, so it is tested and benchmarked
 * on its own.
 */
import { storyKeys } from "../dedupe/story-keys.js";
import { postIndexText } from "../store/index-text.js";
import { decodeBytes } from "./decode-bytes.js";
import { feedBase, normaliseEntry } from "./normalise-entry.js";
import { type FeedMetadata, normaliseFeedMetadata } from "./normalise-feed.js";
import { entryStoryLink, type NormalisedEntry } from "./normalised-entry.js";
import { FeedParseError } from "./parse-error.js";
import { parseFeedText } from "./parse-feed.js";
import type { ParsedFeed } from "./parsed-feed.js";

/** What the store needs from a document (and what a parse worker sends back). */
export interface DocumentForStore {
  encoding: string;
  repaired: boolean;
  metadata: FeedMetadata;
  entries: NormalisedEntry[];
}

export interface ProcessedDocument extends DocumentForStore {
  /** The document as the format adapter read it, before normalising. */
  parsed: ParsedFeed;
}

/** At most this many entries are read from one document (the newest, as feeds list them first). */
export const maxEntriesPerDocument = 1000;

/**
 * Decodes, parses and normalises one feed document. Throws `FEED_PARSE_FAILED` when it is no feed.
 *
 * @example
 * const doc = processFeedDocument(body, "application/rss+xml", "https://example.com/feed", Date.now());
 * doc.entries[0]?.title;
 */
export function processFeedDocument(
  bytes: Uint8Array,
  contentType: string | null,
  feedUrl: string,
  now: number,
  contentLanguage: string | null = null,
): ProcessedDocument {
  if (isBinary(bytes)) {
    throw new FeedParseError(
      "NOT_TEXT",
      "The document is binary (an image, an archive or the like), not a feed; the server may answer the wrong file.",
    );
  }
  const decoded = decodeBytes(bytes, contentType);
  const { feed, repaired } = parseFeedText(decoded.text);
  // HTTP Content-Language (first tag) stands in for a language the document does not declare.
  const httpLanguage = contentLanguage?.split(",")[0]?.trim() || null;
  if (httpLanguage) {
    feed.language ??= httpLanguage;
    for (const e of feed.entries) e.language ??= httpLanguage;
  }
  const base = feedBase(feed, feedUrl);
  const entries = feed.entries
    .slice(0, maxEntriesPerDocument)
    .map((e) => normaliseEntry(e, feed, feedUrl, now, base));
  // The story keys and search tokens here, where the text already is: on a parse worker this
  // takes the hashing and the analyzer's pass over every entry off the thread that writes to the store.
  for (const e of entries) {
    e.storyKeys = storyKeys({ storyLink: entryStoryLink(e), title: e.title, excerpt: e.excerpt });
    e.indexText = postIndexText(e);
  }
  return {
    encoding: decoded.encoding,
    repaired,
    parsed: feed,
    metadata: normaliseFeedMetadata(feed, feedUrl),
    entries,
  };
}

/**
 * True for a body that no text encoding reads as a feed: a NUL byte early on, while it starts
 * neither with a byte order mark nor as UTF-16/32 text (whose ASCII has NULs between) nor with the
 * `<` or `{` of a document. Such bodies would otherwise fail later as "neither XML nor JSON".
 */
function isBinary(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, 512);
  if (!head.includes(0)) return false;
  const first = head[0];
  if (first === 0xef || first === 0xfe || first === 0xff || first === 0x00) return false;
  if (head[1] === 0x00) return false;
  return first !== 0x3c && first !== 0x7b;
}
