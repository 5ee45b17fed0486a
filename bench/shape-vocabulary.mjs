// The words of the shaped bench corpora: Debian's word lists (/usr/share/dict, packages wamerican,
// wngerman, wfrench, wspanish, witalian, wportuguese), ranked by a seeded shuffle behind each
// language's everyday words (the demo's lists, function words first), so a Zipf draw makes the
// demo's "the"/"der"/"le" the commonest words and spreads the rest over tens of thousands of real
// words. Chinese and Japanese have no Debian list: the demo's words, written without spaces.
import { existsSync, readFileSync } from "node:fs";

const dist = new URL("../packages/feed-service/dist/", import.meta.url);
const { demoCommonWords, demoTechTerms } = await import(new URL("demo/demo-vocabulary.js", dist).href);
const { SeededRandom } = await import(new URL("demo/seeded-random.js", dist).href);

export { demoTechTerms, SeededRandom };

/** Word list file and Debian package per language code. */
const dictionaries = {
  en: ["/usr/share/dict/american-english", "wamerican"],
  de: ["/usr/share/dict/ngerman", "wngerman"],
  fr: ["/usr/share/dict/french", "wfrench"],
  es: ["/usr/share/dict/spanish", "wspanish"],
  it: ["/usr/share/dict/italian", "witalian"],
  "pt-BR": ["/usr/share/dict/portuguese", "wportuguese"],
};

/** Languages written without spaces between words. */
export const unspaced = new Set(["zh", "ja"]);

/** Most words drawn per language: the Zipf tail beyond this is too thin to matter. */
const MAX_WORDS = 60_000;

const cache = new Map();
const warned = new Set();

/**
 * The ranked vocabulary of `code` (rank 0 commonest) and where it came from. Missing lists fall
 * back to the demo's words with a warning on stderr, once per language.
 */
export function vocabulary(code) {
  const hit = cache.get(code);
  if (hit) return hit;
  const everyday = demoCommonWords[code];
  if (!everyday) throw new Error(`no words for language ${code}`);
  const [file, pkg] = dictionaries[code] ?? [];
  let words = [...everyday];
  let source = unspaced.has(code) ? "demo words (no Debian list)" : "demo words";
  if (file && existsSync(file)) {
    const seen = new Set(words.map((w) => w.toLowerCase()));
    // Lower-case entries only (no proper names, no possessives), except German, whose nouns are
    // capitalised; search folds case anyway.
    const keep = code === "de" ? /^\p{L}{2,16}$/u : /^\p{Ll}{2,16}$/u;
    const pool = readFileSync(file, "utf8")
      .split("\n")
      .filter((w) => keep.test(w) && !seen.has(w.toLowerCase()));
    const rng = new SeededRandom(hash(code));
    for (let i = pool.length - 1; i > 0; i--) {
      const j = Math.floor(rng.next() * (i + 1));
      [pool[i], pool[j]] = [pool[j], pool[i]];
    }
    for (const w of pool) {
      if (words.length >= MAX_WORDS) break;
      const lower = w.toLowerCase();
      if (seen.has(lower)) continue;
      seen.add(lower);
      words.push(w);
    }
    source = `${file} (${pkg}), ${words.length} words`;
  } else if (file && !warned.has(code)) {
    warned.add(code);
    process.stderr.write(
      `WARNING: ${file} is missing (Debian package ${pkg}); ${code} falls back to the demo's ${words.length} words. Install it: apt-get install ${pkg}\n`,
    );
  }
  words = Object.freeze(words);
  const entry = { words, source, logSize: Math.log(words.length + 1) };
  cache.set(code, entry);
  return entry;
}

function hash(text) {
  let h = 2166136261;
  for (const c of text) h = Math.imul(h ^ c.codePointAt(0), 16777619);
  return h >>> 0;
}

/**
 * A word of `entry` drawn Zipf-like (s = 1): rank r with probability ~ 1/(r + 1.5), by inverting
 * the continuous law in O(1): r = floor((V + 1)^u) - 1.
 */
export function zipfWord(rng, entry) {
  const r = Math.floor(Math.exp(rng.next() * entry.logSize)) - 1;
  return entry.words[Math.min(r, entry.words.length - 1)];
}
