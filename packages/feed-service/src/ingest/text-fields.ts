/**
 * Turning the text fields of feeds into what the service stores: a plain-text title decoded
 * exactly once, HTML escaped from plain text, and whitespace collapsed. Feed titles are HTML by
 * custom (RSS 2.0 says nothing; publishers escape), so, as Miniflux does, markup is stripped and
 * entities decoded once: `&amp;amp;` in the XML becomes `&amp;` after the XML parser and `&` here.
 */
import { decodeHTML } from "entities";

/** Escapes plain text for inclusion in HTML. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) =>
    c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : "&quot;",
  );
}

/**
 * Collapses runs of ASCII whitespace to one space and trims. Non-breaking and typographic spaces
 * (U+00A0, U+2002, U+2009, ...) are content the author chose, and stay.
 */
export function collapseWhitespace(text: string): string {
  return text.replace(/[ \t\n\r\f]+/g, " ").replace(/^ | $/g, "");
}

/**
 * Plain text of an HTML fragment: tags removed (script/style with their content), entities
 * decoded once, whitespace collapsed.
 *
 * @example
 * htmlToText("<p>Fish &amp;amp; <b>chips</b></p>"); // "Fish &amp; chips"
 */
export function htmlToText(html: string): string {
  const withoutCode = html.replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, " ");
  const withoutTags = withoutCode.replace(/<!--[\s\S]*?-->|<\/?[A-Za-z][^>]*>/g, " ");
  return collapseWhitespace(decodeHTML(withoutTags));
}

/**
 * A title as plain text. `html` titles (RSS, Atom type="html"/"xhtml") lose their markup and
 * have their entities decoded; `text` titles are only trimmed.
 */
export function titleText(value: string | undefined | null, kind: "html" | "text"): string | null {
  if (value === undefined || value === null) return null;
  const text = kind === "html" ? htmlToText(value) : collapseWhitespace(value);
  return text === "" ? null : text;
}
