/**
 * Feed discovery for `feeds add <url>`: the URL may be the feed itself, or an HTML page that
 * names its feeds with `<link rel="alternate" type="application/rss+xml" href="…">` (the RSS
 * autodiscovery convention, also used for Atom and JSON Feed). The first candidate that really
 * parses as a feed wins.
 */
import { FeedServiceError } from "../errors.js";
import { decodeBytes } from "./decode-bytes.js";
import { detectDocumentKind } from "./detect-format.js";
import { type FetchOptions, fetchFeed } from "./fetch-feed.js";
import { normaliseFeedMetadata } from "./normalise-feed.js";
import { FeedParseError } from "./parse-error.js";
import { parseFeedText } from "./parse-feed.js";

export interface DiscoveredFeed {
  feedUrl: string;
  title: string | null;
  siteUrl: string | null;
}

const feedTypes =
  /^(application\/(rss|atom|rdf|feed)\+(xml|json)|application\/json|text\/xml|application\/xml)$/i;

function attributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of tag.matchAll(/([\w:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/g)) {
    out[m[1]!.toLowerCase()] = m[2] ?? m[3] ?? m[4] ?? "";
  }
  return out;
}

/**
 * The feed URLs an HTML page advertises, absolute, in document order.
 *
 * @example
 * feedLinksInHtml('<link rel="alternate" type="application/atom+xml" href="/atom.xml">', "https://e.com/");
 * // ["https://e.com/atom.xml"]
 */
export function feedLinksInHtml(html: string, pageUrl: string): string[] {
  const baseHref = /<base\b[^>]*>/i.exec(html);
  let base = pageUrl;
  if (baseHref) {
    const href = attributes(baseHref[0]).href;
    try {
      if (href) base = new URL(href, pageUrl).href;
    } catch {}
  }
  const found: string[] = [];
  for (const m of html.matchAll(/<link\b[^>]*>/gi)) {
    const a = attributes(m[0]);
    const rels = (a.rel ?? "").toLowerCase().split(/\s+/);
    if (!rels.includes("alternate") || !a.href || !feedTypes.test((a.type ?? "").trim())) continue;
    try {
      const url = new URL(a.href.trim(), base).href;
      if (/^https?:/.test(url) && !found.includes(url)) found.push(url);
    } catch {}
  }
  return found;
}

async function readFeed(
  url: string,
  opts: FetchOptions,
): Promise<DiscoveredFeed | { html: string; url: string }> {
  const got = await fetchFeed(url, { ...opts, etag: null, lastModified: null });
  if (got.status !== "fetched")
    throw new FeedServiceError("FEED_FETCH_FAILED", "The server answered 304 to a plain request.");
  const text = decodeBytes(got.body, got.contentType).text;
  if (detectDocumentKind(text, got.contentType) === "html") return { html: text, url: got.url };
  const meta = normaliseFeedMetadata(parseFeedText(text).feed, got.url);
  return { feedUrl: got.movedTo ?? got.url, title: meta.title, siteUrl: meta.siteUrl };
}

/**
 * Finds the feed behind a URL: the URL itself when it is a feed, else the first feed its HTML
 * page links to. Throws FEED_FETCH_FAILED when it cannot be fetched, FEED_PARSE_FAILED when it is
 * neither a feed nor a page that names one.
 *
 * @example
 * const { feedUrl, title } = await discoverFeed("https://blog.example.com/");
 */
export async function discoverFeed(url: string, opts: FetchOptions = {}): Promise<DiscoveredFeed> {
  const first = await readFeed(url, opts);
  if ("feedUrl" in first) return first;
  const candidates = feedLinksInHtml(first.html, first.url);
  if (candidates.length === 0) {
    throw new FeedParseError(
      "PARSE_NOT_A_FEED",
      'The page is HTML and names no feed (no <link rel="alternate"> with an RSS, Atom or JSON Feed type).',
    );
  }
  let lastError: unknown;
  for (const candidate of candidates.slice(0, 5)) {
    try {
      const found = await readFeed(candidate, opts);
      if ("feedUrl" in found) return found;
    } catch (error) {
      lastError = error;
    }
  }
  if (lastError instanceof FeedServiceError) throw lastError;
  throw new FeedParseError("PARSE_NOT_A_FEED", "None of the feeds the page names could be read.");
}
