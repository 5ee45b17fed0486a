/**
 * Axis 1.x writes a character outside the Basic Multilingual Plane (an emoji, say) as two
 * character references, one per UTF-16 surrogate: `&#xD83D;&#xDE00;`. XML 1.0 forbids references
 * to surrogates (§4.1, WFC: Legal Character), so a strict parser refuses the whole request. This
 * rewrites exactly such pairs, high then low, into the character they spell; a lone surrogate
 * reference is left alone, and the parser then refuses it.
 */

// A high-surrogate reference (U+D800-U+DBFF, hex or decimal) directly followed by a low one
// (U+DC00-U+DFFF). Only a high reference may start a match, so that in `&#xFC;&#xD83D;&#xDE00;`
// the ü is not paired with the high surrogate and the real pair is still found.
const high = "x0*[dD][89abAB][0-9a-fA-F]{2}|0*(?:5529[6-9]|55[3-9][0-9]{2}|56[0-2][0-9]{2}|563[01][0-9])";
const low =
  "x0*[dD][c-fC-F][0-9a-fA-F]{2}|0*(?:5632[0-9]|563[3-9][0-9]|56[4-9][0-9]{2}|57[0-2][0-9]{2}|573[0-3][0-9]|5734[0-3])";
const pairOfReferences = new RegExp(`&#(${high});&#(${low});`, "g");

function codeOf(reference: string): number {
  return reference[0] === "x" ? Number.parseInt(reference.slice(1), 16) : Number.parseInt(reference, 10);
}

function joinPair(match: string, high: string, low: string): string {
  const h = codeOf(high);
  const l = codeOf(low);
  if (h < 0xd800 || h > 0xdbff || l < 0xdc00 || l > 0xdfff) return match;
  return String.fromCharCode(h, l);
}

/**
 * Replaces surrogate-pair character references with the character they encode.
 *
 * @example
 * joinSurrogateReferences("<t>&#xD83D;&#xDE00;</t>"); // "<t>😀</t>"
 */
export function joinSurrogateReferences(xml: string): string {
  // Most requests hold no character reference at all: skip the regular expression for them.
  if (!xml.includes("&#")) return xml;
  return xml.replace(pairOfReferences, joinPair);
}
