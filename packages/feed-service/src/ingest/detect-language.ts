/**
 * An entry's language: the one the feed or entry declares (its primary subtag, BCP 47 §2.2.1),
 * else a guess from the text with tinyld, else `und` (spec §4: "Undetermined").
 */
import { detect } from "tinyld";

/** Below this many letters a statistical guess is noise. */
const minimumTextForDetection = 40;

/** The primary language subtag of a declared tag (`en-US` -> `en`, `pt_BR` -> `pt`), or null. */
export function primarySubtag(tag: string | null | undefined): string | null {
  if (!tag) return null;
  const primary = tag.trim().split(/[-_]/)[0]!.toLowerCase();
  return /^[a-z]{2,3}$/.test(primary) ? primary : null;
}

/**
 * The language code to store for an entry.
 *
 * @example
 * languageCodeFor("en-GB", "whatever");                               // "en"
 * languageCodeFor(null, "Ceci est une phrase en français, assez longue."); // "fr"
 */
export function languageCodeFor(declared: string | null | undefined, text: string): string {
  const primary = primarySubtag(declared);
  if (primary) return primary;
  if (text.replace(/[^\p{L}]/gu, "").length < minimumTextForDetection) return "und";
  const guess = detect(text.slice(0, 2000));
  return guess ? guess.toLowerCase() : "und";
}

const displayNames = new Intl.DisplayNames(["en"], { type: "language", fallback: "code" });

/** The English name of a language code (`fr` -> `French`; `und` -> `Undetermined`). */
export function languageName(code: string): string {
  if (code === "und") return "Undetermined";
  try {
    return displayNames.of(code) ?? code;
  } catch {
    return code;
  }
}
