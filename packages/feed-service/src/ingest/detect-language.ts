/**
 * An entry's language: the tag the feed or entry declares (the store files it by language),
 * else a guess from the text with tinyld, else `und` (spec §4: "Undetermined"). A guess needs
 * enough text, a confident detector, and a language the process allows (detectable-languages.ts):
 * a few words guessed as Klingon or Latin would make rows no reader asked for.
 *
 * tinyld is loaded on the first guess, not at import: loading its model costs ~0.35 s of CPU in
 * every thread that imports ingest (the CLI, serve, each parse worker), and most feeds declare
 * their language, so most processes never guess.
 */
import { createRequire } from "node:module";
import { UNDETERMINED_CODE } from "../store/language-tags.js";
import { detectableLanguages } from "./detectable-languages.js";

type DetectAll = typeof import("tinyld").detectAll;
let detector: DetectAll | undefined;

/** The detector's best candidate and its score (0 to 1), over every language it knows. */
function bestGuess(text: string): { lang: string; accuracy: number } | undefined {
  // The package's CommonJS build, so that the first guess stays synchronous.
  detector ??= (createRequire(import.meta.url)("tinyld") as { detectAll: DetectAll }).detectAll;
  return detector(text)[0];
}

/**
 * Below this much text a guess is noise: letters, each character of a script written without
 * spaces (Chinese, Japanese kana, Thai) counting as three, since one holds about a word's worth.
 * 60 is about ten English words.
 */
export const minimumTextForDetection = 60;
/**
 * The least score tinyld's best candidate must reach. Its scores for a sentence in a language it
 * knows are 0.8 to 1; text in no language it knows (names, code) or in none clearly scores far
 * lower, or splits between neighbours.
 */
export const minimumConfidence = 0.5;

function textAmount(text: string): number {
  const letters = text.replace(/[^\p{L}]/gu, "").length;
  const dense = text.replace(
    /[^\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/gu,
    "",
  ).length;
  return letters + 2 * dense;
}

/**
 * A declared tag in BCP 47 form (`pt_BR` -> `pt-BR`), or null when it is not one. The store files
 * it under its language (store/language-tags.ts).
 */
export function declaredTag(tag: string | null | undefined): string | null {
  if (!tag) return null;
  // Every entry of a feed repeats the feed's tag; canonicalising is the costly part, so remember it.
  const known = canonicalTags.get(tag);
  if (known !== undefined) return known;
  const canonical = canonicalTag(tag);
  if (canonicalTags.size > 1000) canonicalTags.clear();
  canonicalTags.set(tag, canonical);
  return canonical;
}

const canonicalTags = new Map<string, string | null>();

function canonicalTag(tag: string): string | null {
  const t = tag.trim().replace(/_/g, "-");
  if (!/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/.test(t)) return null;
  try {
    return Intl.getCanonicalLocales(t)[0] ?? null;
  } catch {
    return null;
  }
}

/**
 * The language code to store for an entry.
 *
 * @example
 * languageCodeFor("en_GB", "whatever");                               // "en-GB"
 * languageCodeFor(null, "Le gouvernement a annoncé mardi une série de mesures agricoles."); // "fr"
 * languageCodeFor(null, "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do ..."); // "und"
 */
export function languageCodeFor(declared: string | null | undefined, text: string): string {
  const tag = declaredTag(declared);
  if (tag) return tag;
  const allowed = detectableLanguages();
  if (allowed.length === 0 || textAmount(text) < minimumTextForDetection) return UNDETERMINED_CODE;
  const guess = bestGuess(text.slice(0, 2000));
  if (!guess || guess.accuracy < minimumConfidence) return UNDETERMINED_CODE;
  const code = guess.lang.toLowerCase();
  return allowed.includes(code) ? code : UNDETERMINED_CODE;
}
