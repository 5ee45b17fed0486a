/**
 * WebSub discovery (W3C WebSub Recommendation §4): the hub and the topic (self) URL of a fetched
 * feed. The HTTP `Link` headers of the fetch come first, as the Recommendation asks of
 * subscribers; only without a hub there do the document's own links count (atom:link rel="hub"
 * and rel="self" in Atom and RSS, JSON Feed `hubs` and `feed_url`). A feed may name several hubs:
 * the first one is used.
 */
import type { HubLink } from "../store/websub-store.js";
import type { FeedMetadata } from "./normalise-feed.js";

/** One link of a `Link` header (RFC 8288 §3): its target, resolved, and its relation types. */
export interface WebLink {
  href: string;
  rels: string[];
}

// `<target>` followed by `; name=value` or `; name="quoted"` parameters, links separated by commas.
const linkValue =
  /<([^>]*)>((?:\s*;\s*[!#$%&'*+.^_`|~0-9A-Za-z-]+\*?(?:\s*=\s*(?:"(?:[^"\\]|\\.)*"|[^;,"\s]*))?)*)/g;
const linkParam = /;\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+\*?)(?:\s*=\s*("(?:[^"\\]|\\.)*"|[^;,"\s]*))?/g;

function httpUrl(text: string, base: string): string | null {
  try {
    const url = new URL(text.trim(), base);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * Reads `Link` header values (one string, or one per header line) into links with absolute
 * http(s) targets; malformed links and other schemes are skipped.
 *
 * @example
 * parseLinkHeader('<https://hub.example/>; rel="hub", </feed>; rel=self', "https://example.org/x");
 * // [{ href: "https://hub.example/", rels: ["hub"] }, { href: "https://example.org/feed", rels: ["self"] }]
 */
export function parseLinkHeader(
  values: string | readonly string[] | null | undefined,
  base: string,
): WebLink[] {
  const links: WebLink[] = [];
  for (const value of typeof values === "string" ? [values] : (values ?? [])) {
    for (const match of value.matchAll(linkValue)) {
      const href = httpUrl(match[1]!, base);
      if (href === null) continue;
      let rels: string[] = [];
      for (const param of match[2]!.matchAll(linkParam)) {
        if (param[1]!.toLowerCase() !== "rel" || param[2] === undefined) continue;
        // rel is a space-separated list of relation types, compared case-insensitively.
        const text = param[2].startsWith('"') ? param[2].slice(1, -1).replace(/\\(.)/g, "$1") : param[2];
        rels = text.toLowerCase().split(/\s+/).filter(Boolean);
        break;
      }
      links.push({ href, rels });
    }
  }
  return links;
}

/**
 * The hub to subscribe at and the topic to subscribe to, or null when the feed names no hub.
 *
 * @example
 * discoverHub(res.headers.link, "https://example.org/feed", doc.metadata);
 * // { hubUrl: "https://hub.example/", topicUrl: "https://example.org/feed" }
 */
export function discoverHub(
  linkHeader: string | readonly string[] | null | undefined,
  fetchedUrl: string,
  metadata: Pick<FeedMetadata, "hubs" | "selfUrl">,
): HubLink | null {
  const links = parseLinkHeader(linkHeader, fetchedUrl);
  const headerHub = links.find((l) => l.rels.includes("hub"))?.href;
  const headerSelf = links.find((l) => l.rels.includes("self"))?.href;
  const hubUrl = headerHub ?? metadata.hubs[0];
  if (!hubUrl) return null;
  const topicUrl = (headerHub ? headerSelf : undefined) ?? metadata.selfUrl ?? headerSelf ?? fetchedUrl;
  return { hubUrl, topicUrl };
}
