/**
 * Tolerance of the malformed XML that real feeds contain. The parser is strict about structure,
 * so a document it refuses gets one repair pass here and a second try, as Miniflux and feedparser
 * ("bozo" feeds) do: bare ampersands are escaped, a stray `<` becomes `&lt;`, an unterminated
 * CDATA section or a truncated last tag is closed, unmatched end tags are dropped and open
 * elements are closed at the end of the document.
 */

/** Removes a DOCTYPE (and its internal subset) so that no entity declaration is ever expanded. */
export function stripDoctype(xml: string): string {
  const start = xml.search(/<!DOCTYPE/i);
  if (start < 0) return xml;
  let depth = 0;
  for (let i = start; i < xml.length; i++) {
    const ch = xml[i];
    if (ch === "[") depth++;
    else if (ch === "]") depth--;
    else if (ch === ">" && depth <= 0) return xml.slice(0, start) + xml.slice(i + 1);
  }
  return xml.slice(0, start);
}

const entityRef = /^&(#[0-9]+|#x[0-9a-fA-F]+|[A-Za-z][A-Za-z0-9._-]*);/;
const token =
  /<!--[\s\S]*?(?:-->|$)|<!\[CDATA\[[\s\S]*?(?:\]\]>|$)|<\?[\s\S]*?(?:\?>|$)|<(\/?)([A-Za-z_][\w:.-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>|<|&/g;

/**
 * Rewrites a malformed XML document into a well-formed one, keeping as much of it as it can.
 *
 * @example
 * repairXml("<rss><channel><title>A & B</title></channel></rss"); // "<rss><channel><title>A &amp; B</title></channel></rss>"
 */
export function repairXml(xml: string): string {
  const out: string[] = [];
  const open: string[] = [];
  let last = 0;
  token.lastIndex = 0;
  for (let m = token.exec(xml); m !== null; m = token.exec(xml)) {
    out.push(xml.slice(last, m.index));
    last = token.lastIndex;
    const text = m[0];
    if (text === "&") {
      out.push(entityRef.test(xml.slice(m.index, m.index + 40)) ? "&" : "&amp;");
    } else if (text === "<") {
      // A `<` that starts no tag: either text ("a < b") or a truncated last tag (`</rss`).
      const rest = xml.slice(m.index);
      if (/^<\/?[A-Za-z_][\w:.-]*\s*$/.test(rest)) {
        last = xml.length;
        break;
      }
      out.push("&lt;");
    } else if (text.startsWith("<![CDATA[")) {
      out.push(text.endsWith("]]>") ? text : `${text}]]>`);
    } else if (text.startsWith("<!--")) {
      out.push(text.endsWith("-->") ? text : `${text}-->`);
    } else if (text.startsWith("<?")) {
      out.push(text);
    } else {
      const closing = m[1] === "/";
      const name = m[2]!;
      const selfClosing = /\/\s*$/.test(m[3] ?? "");
      if (!closing) {
        out.push(text);
        if (!selfClosing) open.push(name);
      } else {
        const at = open.lastIndexOf(name);
        if (at < 0) continue; // an end tag that closes nothing is dropped
        while (open.length > at + 1) out.push(`</${open.pop()}>`);
        open.pop();
        out.push(`</${name}>`);
      }
    }
  }
  out.push(xml.slice(last));
  while (open.length > 0) out.push(`</${open.pop()}>`);
  return out.join("");
}
