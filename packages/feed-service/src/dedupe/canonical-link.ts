/**
 * The canonical form of a post's link, so that copies of one story carried by several feeds meet
 * on one key: scheme and host lower-cased (RFC 3986 §6.2.2.1), default ports dropped (§6.2.3),
 * http and https alike, the fragment dropped, a trailing slash ignored, and the query parameters
 * that only track the visit (utm_*, fbclid, gclid, mc_cid, mc_eid, ref, ...) left out. The kept
 * parameters are sorted, since their order never changes the page a site serves for them.
 */

/** Query parameters that only say where a click came from; exact names, lower-cased. */
const trackingNames = new Set([
  "fbclid",
  "gclid",
  "dclid",
  "gclsrc",
  "msclkid",
  "yclid",
  "twclid",
  "igshid",
  "mc_cid",
  "mc_eid",
  "ref",
  "ref_src",
  "ref_url",
  "referrer",
  "_hsenc",
  "_hsmi",
  "mkt_tok",
  "oly_anon_id",
  "oly_enc_id",
  "vero_id",
  "wt_mc",
  "cmpid",
  "sc_cid",
  "s_cid",
]);

/** Prefixes of tracking parameter families (Google Analytics' utm_*, Piwik/Matomo's pk_*). */
const trackingPrefixes = ["utm_", "pk_", "mtm_", "hsa_"];

function isTracking(name: string): boolean {
  const n = name.toLowerCase();
  return trackingNames.has(n) || trackingPrefixes.some((p) => n.startsWith(p));
}

/**
 * The canonical link of an http(s) URL, or null when the text is not one (such links are never
 * merged on: a feed's placeholder or a tag: URI says nothing about the story).
 *
 * @example
 * canonicalLink("HTTPS://Example.com:443/a/?utm_source=x&b=2#top"); // -> "example.com/a?b=2"
 */
export function canonicalLink(link: string): string | null {
  let url: URL;
  try {
    url = new URL(link.trim());
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  // URL already lower-cases the host and drops the scheme's default port; the other default
  // (443 under http, 80 under https) is the same site served the other way.
  const port = url.port === "" || url.port === "80" || url.port === "443" ? "" : `:${url.port}`;
  const host = url.hostname.replace(/\.$/, "");
  if (host === "") return null;
  const kept = [...url.searchParams].filter(([name]) => !isTracking(name));
  kept.sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  const query = kept.length === 0 ? "" : `?${new URLSearchParams(kept).toString()}`;
  let path = url.pathname.replace(/\/+$/, "");
  // Index documents name their folder: /a/index.html is served as /a/.
  path = path.replace(/\/index\.(?:html?|php)$/i, "");
  return `${host}${port}${path}${query}`;
}

/**
 * The link that names the story: the one the feed declares canonical (rel="canonical", or
 * FeedBurner's origLink, which parsing gives as one: feedburner-origlink.ts) when it is an http(s)
 * URL, else the entry's own link.
 *
 * @example
 * storyLink({ link: "https://feeds.feedburner.com/~r/x/1", canonicalLink: "https://x.org/1" }); // -> "x.org/1"
 */
export function storyLink(post: { link: string; canonicalLink?: string | null }): string | null {
  const declared = post.canonicalLink ? canonicalLink(post.canonicalLink) : null;
  return declared ?? canonicalLink(post.link);
}
