/**
 * Format detection on decoded text, before parsing: which parser to use, and whether the
 * document is an HTML page (for feed discovery) rather than a feed.
 */
export type DocumentKind = "xml" | "json" | "html" | "unknown";

/**
 * Looks at the start of a document (after any BOM, whitespace, declaration and comments).
 *
 * @example
 * detectDocumentKind('<?xml version="1.0"?><rss version="2.0"/>'); // "xml"
 */
export function detectDocumentKind(text: string, contentType?: string | null): DocumentKind {
  const head = text
    .slice(0, 4096)
    .replace(/^\uFEFF/, "")
    .replace(/^(\s|<\?[\s\S]*?\?>|<!--[\s\S]*?-->)+/, "");
  if (head.startsWith("{") || head.startsWith("[")) return "json";
  if (/^<!DOCTYPE\s+html|^<html[\s>]/i.test(head)) return "html";
  if (
    /^<(!DOCTYPE\s+)?(rss|feed|rdf:RDF|RDF|channel)\b/i.test(head) ||
    /^<[\w:]*(rss|RDF|feed)\b/.test(head)
  ) {
    return "xml";
  }
  if (/^<(head|body|meta|link|title)\b/i.test(head)) return "html";
  if (head.startsWith("<")) {
    if (contentType && /html/i.test(contentType) && !/xml/i.test(contentType)) return "html";
    return "xml";
  }
  if (contentType && /json/i.test(contentType)) return "json";
  return "unknown";
}
