/**
 * Sanitising feed HTML for storage with sanitize-html: the library's conservative default tag set
 * plus images and media, no scripts, styles, event handlers or `javascript:` URLs, and every
 * link and image made absolute against the entry's base (relative URLs mean nothing once the
 * content is shown elsewhere). Links get `rel="noopener noreferrer"` because they open off-site.
 */

import { stripForbiddenXmlChars } from "@feed-toolkit/soap";
import sanitizeHtml from "sanitize-html";

const allowedTags = [
  ...sanitizeHtml.defaults.allowedTags,
  "img",
  "picture",
  "source",
  "audio",
  "video",
  "del",
  "ins",
];

const allowedAttributes: sanitizeHtml.IOptions["allowedAttributes"] = {
  a: ["href", "title", "rel"],
  img: ["src", "srcset", "alt", "title", "width", "height"],
  source: ["src", "srcset", "type", "media"],
  audio: ["src", "controls"],
  video: ["src", "controls", "poster", "width", "height"],
  abbr: ["title"],
  time: ["datetime"],
  td: ["colspan", "rowspan"],
  th: ["colspan", "rowspan", "scope"],
  blockquote: ["cite"],
  q: ["cite"],
};

/** Resolves `url` against `base`; undefined when it cannot be made an absolute URL. */
export function absoluteUrl(url: string, base: string | null | undefined): string | undefined {
  try {
    return new URL(url.trim(), base ?? undefined).href;
  } catch {
    return undefined;
  }
}

function resolveAttr(attribs: Record<string, string>, name: string, base: string | null) {
  const value = attribs[name];
  if (value === undefined) return;
  const resolved = absoluteUrl(value, base);
  if (resolved === undefined || !/^(https?|mailto|tel):/i.test(resolved)) delete attribs[name];
  else attribs[name] = resolved;
}

function srcsetResolved(srcset: string, base: string | null): string {
  return srcset
    .split(",")
    .map((part) => {
      const [url, ...descriptor] = part.trim().split(/\s+/);
      const abs = url ? absoluteUrl(url, base) : undefined;
      return abs ? [abs, ...descriptor].join(" ") : "";
    })
    .filter((p) => p !== "")
    .join(", ");
}

function urlTransform(base: string | null, extra?: Record<string, string>): sanitizeHtml.Transformer {
  return (tagName, attribs) => {
    const out = { ...attribs };
    for (const name of ["href", "src", "poster", "cite"]) resolveAttr(out, name, base);
    if (out.srcset !== undefined) out.srcset = srcsetResolved(out.srcset, base);
    // Only real links open off-site; an anchor without href gets no rel.
    return { tagName, attribs: extra && out.href !== undefined ? { ...out, ...extra } : out };
  };
}

/**
 * Sanitises an HTML fragment and makes its URLs absolute.
 *
 * @example
 * sanitiseHtml('<p onclick="x()">Hi <a href="/a">a</a><script>bad()</script></p>', "https://example.com/");
 * // '<p>Hi <a href="https://example.com/a" rel="noopener noreferrer">a</a></p>'
 */
export function sanitiseHtml(html: string, base: string | null): string {
  // Text without markup or entities (many feeds' summaries): sanitize-html's parser would only
  // find text, which it writes back with `>` escaped (its escapeHtml; `<`, `&` and `"` are absent
  // or, for `"`, not escaped in text), so its answer is known without the parse.
  if (!html.includes("<") && !html.includes("&"))
    return stripForbiddenXmlChars(html).replaceAll(">", "&gt;").trim();
  return sanitiseMarkup(html, base);
}

/** sanitiseHtml by the library's parse, whatever the text (exported for the fast path's tests). */
export function sanitiseMarkup(html: string, base: string | null): string {
  const transform = urlTransform(base);
  return sanitizeHtml(stripForbiddenXmlChars(html), {
    allowedTags,
    allowedAttributes,
    allowedSchemes: ["http", "https", "mailto", "tel"],
    allowedSchemesAppliedToAttributes: ["href", "src", "cite", "poster", "srcset"],
    allowProtocolRelative: false,
    nonTextTags: ["script", "style", "textarea", "option", "noscript", "title", "head"],
    transformTags: {
      a: urlTransform(base, { rel: "noopener noreferrer" }),
      img: transform,
      source: transform,
      audio: transform,
      video: transform,
      blockquote: transform,
      q: transform,
    },
  }).trim();
}
