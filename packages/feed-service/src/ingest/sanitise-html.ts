/**
 * Sanitising feed HTML for storage with sanitize-html: the library's conservative default tag set
 * plus images and media, no scripts, styles, event handlers or `javascript:` URLs, and every
 * link and image made absolute against the entry's base (relative URLs mean nothing once the
 * content is shown elsewhere). Links get `rel="noopener noreferrer"` because they open off-site.
 */

import { stripForbiddenXmlChars } from "@feed-toolkit/soap";
import { Parser } from "htmlparser2";
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

const nonTextTags = ["script", "style", "textarea", "option", "noscript", "title", "head"];

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
  return sanitiseParsed(html, base) ?? sanitiseMarkup(html, base);
}

/** sanitiseHtml by the library's parse, whatever the text (the reference sanitiseParsed is tested against). */
export function sanitiseMarkup(html: string, base: string | null): string {
  return sanitizeHtml(stripForbiddenXmlChars(html), {
    allowedTags,
    allowedAttributes,
    allowedSchemes: ["http", "https", "mailto", "tel"],
    allowedSchemesAppliedToAttributes: ["href", "src", "cite", "poster", "srcset"],
    allowProtocolRelative: false,
    nonTextTags,
    transformTags: tagTransforms(base),
  }).trim();
}

/** The tags whose URLs are made absolute against `base`, each with its transform (both sanitisers'). */
function tagTransforms(base: string | null): Record<string, sanitizeHtml.Transformer> {
  const transform = urlTransform(base);
  return {
    a: urlTransform(base, { rel: "noopener noreferrer" }),
    img: transform,
    source: transform,
    audio: transform,
    video: transform,
    blockquote: transform,
    q: transform,
  };
}

// sanitize-html 2.17's state machine for the options above, over the same htmlparser2 callbacks
// (its index.js: onopentag, ontext, onclosetag with disallowedTagsMode "discard", no text or
// exclusive filters, no transform renaming a tag or setting its text), without its per-call
// option set-up and per-tag closures. Anything outside that reach answers undefined, and the
// library sanitises the fragment.
const allowedTagSet = new Set(allowedTags);
const nonTextTagSet = new Set(nonTextTags);
const selfClosingTags = new Set(sanitizeHtml.defaults.selfClosing);
// The types of sanitize-html's defaults lack this list (["alt"] in 2.17).
const libraryDefaults = sanitizeHtml.defaults as sanitizeHtml.IDefaults & {
  allowedEmptyAttributes: string[];
};
const emptyValueAttributes = new Set(libraryDefaults.allowedEmptyAttributes);
const nonBooleanAttributes = new Set(sanitizeHtml.defaults.nonBooleanAttributes);
const allowedAttributeSets = new Map(
  Object.entries(allowedAttributes ?? {}).map(([tag, names]) => [tag, new Set(names as string[])]),
);
const schemeCheckedAttributes = new Set(["href", "src", "cite", "poster", "srcset"]);
/** sanitize-html's VALID_HTML_ATTRIBUTE_NAME. */
const validAttributeName = /^[^\0\t\n\f\r /<=>]+$/;
/** What launder's naughtyHref lets through for our schemes; the transforms leave only such URLs. */
const allowedSchemeUrl = /^(https?|mailto|tel):/;

/** sanitize-html's escapeHtml with decodeEntities on: its second pass finds nothing left to escape. */
function escapeText(s: string): string {
  return s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/**
 * sanitiseMarkup's answer without sanitize-html's own code, or undefined where this does not
 * reach (a srcset to rewrite, a URL attribute that no transform made absolute).
 */
export function sanitiseParsed(html: string, base: string | null): string | undefined {
  const transforms = tagTransforms(base);
  let result = "";
  let depth = 0;
  const stack: string[] = [];
  const skipped: boolean[] = [];
  let skipText = false;
  let skipTextDepth = 0;
  let outOfReach = false;
  const parser = new Parser(
    {
      onopentag(name, attribs0) {
        if (skipText) {
          skipTextDepth++;
          return;
        }
        stack.push(name);
        let attribs = attribs0;
        // Own keys only: a tag named like an Object.prototype member has no transform.
        if (Object.hasOwn(transforms, name)) attribs = transforms[name]!(name, attribs).attribs;
        const skip = !allowedTagSet.has(name);
        skipped[depth] = skip;
        if (skip && nonTextTagSet.has(name)) {
          skipText = true;
          skipTextDepth = 1;
        }
        depth++;
        if (skip) return;
        result += `<${name}`;
        const allowed = allowedAttributeSets.get(name);
        if (allowed) {
          for (const a of Object.keys(attribs)) {
            const value = attribs[a]!;
            if (!validAttributeName.test(a)) continue;
            if (value === "" && !emptyValueAttributes.has(a) && nonBooleanAttributes.has(a)) continue;
            if (!allowed.has(a)) continue;
            if (schemeCheckedAttributes.has(a) && (a === "srcset" || !allowedSchemeUrl.test(value))) {
              outOfReach = true;
              continue;
            }
            result += ` ${a}`;
            if (value.length) result += `="${escapeText(value).replaceAll('"', "&quot;")}"`;
            else if (emptyValueAttributes.has(a)) result += '=""';
          }
        }
        result += selfClosingTags.has(name) ? " />" : ">";
      },
      ontext(text) {
        if (!skipText) result += escapeText(text);
      },
      onclosetag(name) {
        if (skipText) {
          skipTextDepth--;
          if (skipTextDepth) return;
          skipText = false;
        }
        const tag = stack.pop();
        if (tag === undefined) return;
        if (tag !== name) {
          stack.push(tag);
          return;
        }
        skipText = false;
        depth--;
        if (skipped[depth]) {
          skipped[depth] = false;
          return;
        }
        if (!selfClosingTags.has(name)) result += `</${name}>`;
      },
    },
    { decodeEntities: true },
  );
  parser.write(stripForbiddenXmlChars(html));
  parser.end();
  return outOfReach ? undefined : result.trim();
}
