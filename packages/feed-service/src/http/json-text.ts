/**
 * JSON text that cannot be read as markup (spec §5.1): `<`, `>` and `&` written as `\u003c`,
 * `\u003e`, `\u0026`, so an answer holding feed or user text stays inert if it is ever served or
 * embedded as HTML. The escapes are valid JSON, and parse back to the same characters.
 */
const markup = /[<>&]/g;
const escapes: Record<string, string> = { "<": "\\u003c", ">": "\\u003e", "&": "\\u0026" };

/**
 * @example
 * escapeJsonMarkup(JSON.stringify({ t: "<b>&" })); // '{"t":"\\u003cb\\u003e\\u0026"}'
 */
export function escapeJsonMarkup(json: string): string {
  markup.lastIndex = 0;
  return markup.test(json) ? json.replace(markup, (c) => escapes[c]) : json;
}
