/**
 * HTML escaped by construction. Pages are written as `html` tagged templates: every interpolated
 * value is escaped for text and for quoted attribute values alike, unless it is already `Html` —
 * the result of another `html` template, or of `raw()`, which only the service's own markup may use
 * (the SVG chart, highlighted search words built from escaped pieces). Feed text therefore reaches a
 * page as text, never as markup (spec §5.3), without any template having to remember to escape it.
 *
 * What escaping cannot do: make a URL safe inside `href`. A `javascript:` URL is valid text, so
 * links built from feed data go through `httpUrl()`, which keeps http and https only.
 */

/** Markup the service vouches for. Built only by `html` and `raw`, so its text is always safe. */
export class Html {
  readonly #text: string;
  /** @internal use `html` or `raw`; the token keeps other modules from wrapping arbitrary text. */
  constructor(text: string, token: typeof constructionToken) {
    if (token !== constructionToken)
      throw new TypeError("Html is built with html`…` or raw(), not new Html().");
    this.#text = text;
  }
  toString(): string {
    return this.#text;
  }
}

const constructionToken: unique symbol = Symbol("Html");

/**
 * What a template hole accepts. `false`, null and undefined render nothing (so `cond && html`…``
 * works); `true` is refused by the type, because printing "true" is never what was meant. Dates
 * are refused too: a page chooses how to show an instant.
 */
export type HtmlValue = Html | string | number | false | null | undefined | readonly HtmlValue[];

const escapes: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};
const needsEscape = /[&<>"']/g;

/**
 * Escapes text for an HTML text node or a quoted attribute value.
 *
 * @example
 * escapeHtml(`<a href="x">&</a>`); // "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;"
 */
export function escapeHtml(text: string): string {
  return text.replace(needsEscape, (ch) => escapes[ch]!);
}

function append(value: HtmlValue, out: string[]): void {
  if (value === null || value === undefined || value === false) return;
  if (value instanceof Html) out.push(value.toString());
  else if (typeof value === "string") out.push(escapeHtml(value));
  else if (typeof value === "number") out.push(String(value));
  else if (Array.isArray(value)) for (const item of value) append(item, out);
  else throw new TypeError(`An html template cannot show a ${typeof value}; format it as text first.`);
}

/**
 * The tagged template: literal parts are kept as written, holes are escaped.
 *
 * @example
 * const title = `<script>alert(1)</script>`;
 * html`<h1 class="title">${title}</h1>`.toString();
 * // '<h1 class="title">&lt;script&gt;alert(1)&lt;/script&gt;</h1>'
 */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): Html {
  const out: string[] = [strings[0]!];
  for (let i = 0; i < values.length; i++) {
    append(values[i]!, out);
    out.push(strings[i + 1]!);
  }
  return new Html(out.join(""), constructionToken);
}

/**
 * Markup written by the service itself, taken as is. Never pass feed or user text here: that is
 * what `html` is for.
 *
 * @example
 * raw(`<mark>`); // an Html whose text is "<mark>"
 */
export function raw(markup: string): Html {
  return new Html(markup, constructionToken);
}

/**
 * The URL if it is an absolute http or https URL, else undefined: the only URLs from feed data a
 * page may put in `href` (a `javascript:` or `data:` URL would run when followed).
 *
 * @example
 * httpUrl("https://example.org/a"); // "https://example.org/a"
 * httpUrl("javascript:alert(1)"); // undefined
 */
export function httpUrl(text: string | null | undefined): string | undefined {
  if (!text) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  return url.protocol === "http:" || url.protocol === "https:" ? url.href : undefined;
}
