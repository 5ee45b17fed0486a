/**
 * Language tags as the store keeps them (spec §4, language column set): BCP 47 codes, English
 * names, one row per language filed by its primary subtag (`en-US`, `en-GB` and `en` all file
 * under `en`), except where one language has two written standards a reader tells apart:
 * Portuguese (`pt-BR`, `pt-PT`) and Chinese (`zh-Hans`, `zh-Hant`). Shared by every dialect and
 * by their migrations, so that each names and matches languages the same way.
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

/** The primary language subtag, lower case. */
export function primarySubtag(tag: string): string {
  return tag.split("-")[0]!.toLowerCase();
}

/**
 * The code of the row a canonical tag files under: its primary subtag, or for Portuguese and
 * Chinese the written standard when the tag says which.
 *
 * - Portuguese: `pt-BR` is Brazilian; every other region (`pt-PT`, `pt-AO`, `pt-MZ`, ...) writes
 *   the European standard, so files under `pt-PT`; plain `pt` says neither and files under `pt`.
 * - Chinese: the script decides, named (`zh-Hant-HK`) or implied by the region through CLDR's
 *   likely subtags (`zh-CN`, `zh-SG` -> `zh-Hans`; `zh-TW`, `zh-HK`, `zh-MO` -> `zh-Hant`);
 *   plain `zh` (and `cmn`, which canonicalises to it) says neither and files under `zh`.
 *
 * @example
 * filingTag("fr-CA");   // "fr"
 * filingTag("pt-AO");   // "pt-PT"
 * filingTag("zh-HK");   // "zh-Hant"
 */
export function filingTag(tag: string): string {
  let locale: Intl.Locale;
  try {
    locale = new Intl.Locale(tag);
  } catch {
    return primarySubtag(tag);
  }
  // `und` has no language subtag in ICU's Intl.Locale (its language reads undefined).
  const language = locale.language || primarySubtag(tag);
  if (language === "pt") {
    if (!locale.region) return "pt";
    return locale.region === "BR" ? "pt-BR" : "pt-PT";
  }
  if (language === "zh") {
    if (!locale.region && !locale.script) return "zh";
    const { script } = locale.maximize();
    return script === "Hans" || script === "Hant" ? `zh-${script}` : "zh";
  }
  return language;
}

/** The key a language row is found by: its filing tag in lower case (`pt-br`, `zh-hant`). */
export function filingKey(tag: string): string {
  return filingTag(tag).toLowerCase();
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
