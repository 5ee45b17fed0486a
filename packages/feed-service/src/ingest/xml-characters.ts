/**
 * Characters that XML 1.0 forbids (§2.2: C0 controls other than tab, LF and CR; U+FFFE/U+FFFF;
 * lone surrogates). They are dropped at ingest so that they never reach the SOAP wire (spec §3).
 */
const forbidden =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Removes the characters that XML 1.0 forbids.
 *
 * @example
 * stripForbiddenXmlChars("a\u0000b\u0007c"); // "abc"
 */
export function stripForbiddenXmlChars(text: string): string {
  forbidden.lastIndex = 0;
  return forbidden.test(text) ? text.replace(forbidden, "") : text;
}
