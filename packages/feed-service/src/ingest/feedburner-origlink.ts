/**
 * FeedBurner's `feedburner:origLink` (namespace http://rssnamespace.org/feedburner/ext/1.0) names
 * the publisher's own page of an entry whose link is a feedproxy redirect: the page a story is
 * known by on other feeds (src/dedupe/canonical-link.ts). feedsmith keeps no element of that
 * namespace, so before parsing each one is written as the entry's `<link rel="canonical">` in the
 * Atom namespace, which the adapters read (RFC 6596 names the relation; Atom carries it, RFC 4287
 * §4.2.7, and RSS carries it as atom:link), inside the same entry, so no entry takes another's.
 */

const namespace = "http://rssnamespace.org/feedburner/ext/1.0";
const atomNamespace = "http://www.w3.org/2005/Atom";

/** The prefixes the document binds to a namespace (a feed declares them on its root). */
function prefixesOf(xml: string, uri: string): string[] {
  const found: string[] = [];
  for (const m of xml.matchAll(/\bxmlns:([\w.-]+)\s*=\s*(["'])([^"']*)\2/g)) {
    if (m[3]!.trim().replace(/\/$/, "").toLowerCase() === uri.toLowerCase()) found.push(m[1]!);
  }
  return found;
}

/** The element name a link in the Atom namespace takes in this document. */
function atomLinkName(xml: string): string {
  const declared = prefixesOf(xml, atomNamespace)[0];
  if (declared !== undefined) return `${declared}:link`;
  // An Atom feed without a prefix for its own namespace has it as the default; in RSS an
  // undeclared atom: prefix is the one feedsmith reads as Atom.
  const root = /<([\w.-]+:)?(rss|feed|RDF)\b/i.exec(xml);
  if (root !== null && root[2]!.toLowerCase() === "feed") return `${root[1] ?? ""}link`;
  return "atom:link";
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/"/g, "&quot;");
}

/**
 * The document with each `feedburner:origLink` written as a canonical link of its entry.
 *
 * @example
 * origLinksAsCanonical('<rss xmlns:feedburner="http://rssnamespace.org/feedburner/ext/1.0">…' +
 *   "<feedburner:origLink>https://blog.example/a</feedburner:origLink>…");
 * // … '<atom:link rel="canonical" href="https://blog.example/a"/>' …
 */
export function origLinksAsCanonical(xml: string): string {
  // A plain substring search first: most documents have no FeedBurner element at all.
  if (!xml.includes("origLink") && !xml.includes("origlink")) return xml;
  // FeedBurner's own prefix counts even undeclared: copies of its items carry it without the
  // declaration, and feedsmith reads such documents all the same.
  const prefixes = [...new Set(["feedburner", ...prefixesOf(xml, namespace)])];
  const link = atomLinkName(xml);
  let out = xml;
  for (const prefix of prefixes) {
    const name = `${prefix.replace(/[.]/g, "\\.")}:origLink`;
    const element = new RegExp(`<${name}(?:\\s[^>]*)?>([\\s\\S]*?)</${name}\\s*>`, "gi");
    out = out.replace(element, (_whole, body: string) => {
      const cdata = /^\s*<!\[CDATA\[([\s\S]*?)\]\]>\s*$/.exec(body);
      // Text outside CDATA is escaped already (entities stay as they are); CDATA text is raw.
      const href = cdata ? escapeAttribute(cdata[1]!.trim()) : body.trim().replace(/"/g, "&quot;");
      if (href === "" || href.includes("<")) return "";
      return `<${link} rel="canonical" href="${href}"/>`;
    });
  }
  return out;
}
