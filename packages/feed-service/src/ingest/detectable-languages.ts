/**
 * The languages ingest may guess for posts that declare none (`--detect-languages`, env
 * FEED_SERVICE_DETECT_LANGUAGES). A statistical guess over few words lands on whatever language
 * its model holds that fits best, Klingon, Volapük, Latin and Berber included; a guess outside the
 * languages the web is written in is much likelier wrong than right, so such a guess is `und`.
 *
 * The default: the 30 languages most used for web content (W3Techs, "Usage statistics of content
 * languages for websites", 2025), Norwegian as `no` as the detector names it. The setting belongs
 * to the process: the command sets it once from its option, and parse workers take the value of
 * the thread that starts them (parse-pool.ts).
 */
import { badArgument } from "../errors.js";

export const defaultDetectableLanguages: readonly string[] =
  "en es de ja fr ru pt it nl pl tr fa zh vi id cs ko uk ar hu sv el ro da fi he sk th bg no".split(" ");

/**
 * What the detector (tinyld 1.3) can tell apart, as ISO 639-1 codes where there is one; a list
 * may only name these.
 */
export const guessableLanguages: readonly string[] = (
  "af am ber rn ja zh ko my th vi id km tl bn ta hi ur gu kn te fr en de es pt it nl ga la cs sr el " +
  "mk sk da sv fi no is hu ro bg be ru uk pl lt et lv hy tr he yi ar fa tt kk mn tk eo vo tlh"
).split(" ");

let current: readonly string[] = defaultDetectableLanguages;

/** The languages guesses may name in this process. */
export function detectableLanguages(): readonly string[] {
  return current;
}

/** Sets them for this process (and the parse workers it starts from now on). */
export function setDetectableLanguages(codes: readonly string[]): void {
  current = [...codes];
}

/**
 * A `--detect-languages` value: comma-separated codes the detector knows (`en,de,fr`), or `none`
 * to never guess. A clear error names a code it does not know and lists those it does.
 *
 * @example
 * readDetectableLanguages("en, DE ,fr"); // ["en", "de", "fr"]
 * readDetectableLanguages("none");       // []
 */
export function readDetectableLanguages(text: string, label = "--detect-languages"): string[] {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === "none") return [];
  const codes = trimmed.split(",").map((c) => c.trim());
  const unknown = codes.find((c) => !guessableLanguages.includes(c));
  if (unknown !== undefined) {
    const got =
      unknown === ""
        ? `an empty entry in ${JSON.stringify(text.slice(0, 80))}`
        : JSON.stringify(unknown.slice(0, 20));
    throw badArgument(
      `${label} must be none or a comma-separated list of languages the detector knows (${guessableLanguages.join(",")}); got ${got}.`,
    );
  }
  return [...new Set(codes)];
}
