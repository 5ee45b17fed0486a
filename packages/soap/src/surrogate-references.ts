/**
 * Axis 1.x writes a character outside the Basic Multilingual Plane (an emoji, say) as two
 * character references, one per UTF-16 surrogate: `&#xD83D;&#xDE00;`. XML 1.0 forbids references
 * to surrogates (§4.1, WFC: Legal Character), so a strict parser refuses the whole request. This
 * rewrites exactly such pairs, high then low, into the character they spell; a lone surrogate
 * reference is left alone, and the parser then refuses it.
 */

const pairOfReferences = /&#(x[0-9a-fA-F]{1,6}|[0-9]{1,7});&#(x[0-9a-fA-F]{1,6}|[0-9]{1,7});/g;

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
