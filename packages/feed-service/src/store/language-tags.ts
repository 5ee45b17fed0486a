/**
 * Language tags as the store keeps them (spec §4, language column set): BCP 47 codes, one row per
 * primary subtag (`en-US` and `en-GB` both map to the `en` row), English names. Shared by every
 * dialect so that each names and matches languages the same way.
 */
import { badArgument } from "../errors.js";

/** `und`: the row for posts whose language is neither declared nor detectable. */
export const UNDETERMINED_CODE = "und";

const fixedNames: Record<string, string> = {
  en: "English",
  und: "Undetermined",
};

const displayNames = new Intl.DisplayNames(["en"], { type: "language", fallback: "none" });

/** The tag in canonical case (`pt-br` -> `pt-BR`); a clear error for anything that is not BCP 47. */
export function canonicalLanguageTag(code: string): string {
  const trimmed = code.trim();
  if (trimmed === "" || trimmed.length > 35 || !/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/.test(trimmed)) {
    throw badArgument(
      `The language code must be a BCP 47 tag such as en, fr or pt-BR; got ${JSON.stringify(code.slice(0, 40))}.`,
    );
  }
  try {
    return Intl.getCanonicalLocales(trimmed)[0]!;
  } catch {
    throw badArgument(
      `The language code must be a BCP 47 tag such as en, fr or pt-BR; got ${JSON.stringify(trimmed)}.`,
    );
  }
}

/** The primary language subtag, lower case: the key a language row is found by. */
export function primarySubtag(tag: string): string {
  return tag.split("-")[0]!.toLowerCase();
}

/**
 * The English name of a language tag.
 *
 * @example
 * languageName("pt-BR"); // "Brazilian Portuguese"
 * languageName("und");   // "Undetermined"
 */
export function languageName(tag: string): string {
  const fixed = fixedNames[tag];
  if (fixed) return fixed;
  try {
    return displayNames.of(tag) ?? tag;
  } catch {
    return tag;
  }
}
