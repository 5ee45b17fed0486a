/**
 * The case and accent fold of search (`foldSearchChar`, which the search analyzer in
 * text-analyzer.ts applies to words of spaced scripts), and a word splitter built on it, both
 * exactly as SQLite's FTS5 tokenizer `unicode61 remove_diacritics 2` does, the tokenizer search
 * used before the analyzer (its fold is kept so that accents and case match as they always did):
 * - a word is a run of letters (L*), numbers (N*), private-use characters (Co) and the common
 *   combining diacritics (which fold to nothing); everything else separates words;
 * - each character is lower-cased one by one (simple case mapping);
 * - Latin letters lose their diacritics (`é` -> `e`, `ṏ` -> `o`); letters of other scripts keep
 *   them (unicode61 removes diacritics from Latin only: `ά` stays `ά`, `ё` stays `ё`).
 * The behaviour is checked against SQLite itself, character by character, in `search-words.test.ts`,
 * for the scripts feeds are written in. unicode61 follows Unicode 6.1, so letters added to Unicode
 * later, and a few rare Latin letters, may split differently.
 */

const letterOrDigit = /[\p{L}\p{N}\p{Co}]/u;
/** The combining diacritics unicode61 keeps inside a word (and folds to nothing); other marks split. */
const wordDiacritics = new Set([
  0x300, 0x301, 0x302, 0x303, 0x304, 0x306, 0x307, 0x308, 0x309, 0x30a, 0x30b, 0x30c, 0x30f, 0x311, 0x31b,
  0x323, 0x324, 0x325, 0x326, 0x327, 0x328, 0x32d, 0x32e, 0x330, 0x331,
]);

function isWordChar(ch: string): boolean {
  return letterOrDigit.test(ch) || wordDiacritics.has(ch.codePointAt(0)!);
}
const combiningDiacritic = /[\u0300-\u036f]/gu;
/** unicode61 folds these beyond a simple lower-case mapping. */
const extraFolds = new Map<number, string>([
  [0xb5, "\u03bc"], // micro sign -> Greek mu
  [0x17f, "s"], // long s
  // Greek letter variants fold to the plain letter (CaseFolding.txt), as unicode61 does.
  [0x3c2, "\u03c3"],
  [0x3d0, "\u03b2"],
  [0x3d1, "\u03b8"],
  [0x3d5, "\u03c6"],
  [0x3d6, "\u03c0"],
  [0x3f0, "\u03ba"],
  [0x3f1, "\u03c1"],
  [0x3f5, "\u03b5"],
]);

/** Folded form per code point, filled lazily: most text reuses a small alphabet. */
const foldCache = new Map<number, string>();

function isLatinWithDiacritics(cp: number): boolean {
  return (cp >= 0xc0 && cp <= 0x24f) || (cp >= 0x1e00 && cp <= 0x1eff);
}

/** Folds one character (given as its code point) the way unicode61 does; "" for a lone diacritic. */
export function foldSearchChar(cp: number): string {
  const cached = foldCache.get(cp);
  if (cached !== undefined) return cached;
  const ch = String.fromCodePoint(cp);
  let folded: string;
  const extra = extraFolds.get(cp);
  if (extra !== undefined) {
    folded = extra;
  } else if (cp >= 0x300 && cp <= 0x36f) {
    folded = "";
  } else {
    const lower = simpleLowerCase(ch);
    const lowerCp = lower.codePointAt(0)!;
    if (isLatinWithDiacritics(cp) || isLatinWithDiacritics(lowerCp)) {
      const decomposed = lower.normalize("NFD");
      const stripped = decomposed.replace(combiningDiacritic, "");
      // Only an ASCII letter plus marks is folded (æ, ø, ł, ǣ stay), and not a letter with both a
      // dot above and a macron (ǡ, ȱ), which unicode61's table leaves alone.
      folded =
        stripped.length === 1 && stripped < "\u0080" && !/\u0307\u0304/.test(decomposed) ? stripped : lower;
    } else {
      folded = lower;
    }
  }
  foldCache.set(cp, folded);
  return folded;
}

/**
 * Simple (one-to-one) lower-case mapping: JavaScript's toLowerCase applies full mappings, which turn
 * `İ` into two characters; unicode61 maps one code point to one.
 */
function simpleLowerCase(ch: string): string {
  const lower = ch.toLowerCase();
  if ([...lower].length === 1) return lower;
  // İ (U+0130) -> "i̇": the base letter is what a one-to-one mapping gives.
  return [...lower][0]!;
}

/**
 * The words of a text, lower-cased and stripped of Latin diacritics, in order.
 *
 * @example
 * searchWords("Crème brûlée, C++ & Node.js"); // ["creme", "brulee", "c", "node", "js"]
 */
export function searchWords(text: string): string[] {
  const words: string[] = [];
  let current = "";
  let inWord = false;
  for (const ch of text) {
    if (isWordChar(ch)) {
      current += foldSearchChar(ch.codePointAt(0)!);
      inWord = true;
    } else if (inWord) {
      if (current !== "") words.push(current);
      current = "";
      inWord = false;
    }
  }
  if (inWord && current !== "") words.push(current);
  return words;
}
