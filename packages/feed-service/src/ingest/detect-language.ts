/**
 * An entry's language: the tag the feed or entry declares (the store files it by language),
 * else a guess from the text with tinyld, else `und` (spec §4: "Undetermined").
 *
 * tinyld is loaded on the first guess, not at import: loading its model costs ~0.35 s of CPU in
 * every thread that imports ingest (the CLI, serve, each parse worker), and most feeds declare
 * their language, so most processes never guess.
 */
import { createRequire } from "node:module";
import { UNDETERMINED_CODE } from "../store/language-tags.js";

type Detect = typeof import("tinyld").detect;
let detector: Detect | undefined;

function detect(text: string): string {
  // The package's CommonJS build, so that the first guess stays synchronous.
  detector ??= (createRequire(import.meta.url)("tinyld") as { detect: Detect }).detect;
  return detector(text);
}

/** Below this many letters a statistical guess is noise. */
const minimumTextForDetection = 40;

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
 * languageCodeFor(null, "Ceci est une phrase en français, assez longue."); // "fr"
 */
export function languageCodeFor(declared: string | null | undefined, text: string): string {
  const tag = declaredTag(declared);
  if (tag) return tag;
  if (text.replace(/[^\p{L}]/gu, "").length < minimumTextForDetection) return UNDETERMINED_CODE;
  const guess = detect(text.slice(0, 2000));
  return guess ? guess.toLowerCase() : UNDETERMINED_CODE;
}
