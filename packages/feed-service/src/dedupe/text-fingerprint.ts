/**
 * A MinHash signature (Broder, "On the resemblance and containment of documents", 1997) of a
 * post's title and excerpt over 3-word shingles: the share of equal minimums of two signatures
 * estimates the Jaccard similarity of their shingle sets. Copies of one text (a planet's
 * republication, a category feed's copy, a summary cut shorter) share most shingles; different
 * texts under one title share almost none. Candidates are found by LSH banding (Leskovec,
 * Rajaraman and Ullman, "Mining of Massive Datasets", §3.4): `bandCount` bands of `bandRows`
 * minimums each, every band hashed to one integer key that the store indexes, so a look-up is a
 * few index probes, never a scan; a candidate counts when its estimated similarity reaches
 * `minSimilarity`. The threshold and minimum length are measured by
 * bench/dedupe-threshold.bench.mjs (bench/NOTES.md, "near-duplicate threshold").
 */

/** Minimums per signature. */
export const signatureSize = 16;
/** Minimums per band: with 8 bands of 2, a pair of similarity s is a candidate with 1 - (1 - s²)^8. */
export const bandRows = 2;
export const bandCount = signatureSize / bandRows;
/** Estimated Jaccard similarity (equal minimums / 16) from which two posts are one story. */
export const minSimilarity = 9 / 16;
/** Excerpts of fewer distinct words than this are never merged on their text (a few words say too little). */
export const minWords = 20;
/** Words of the excerpt that count: the beginning, which a summary and the full text share. */
const maxWords = 80;
const shingleSize = 3;

export interface TextFingerprint {
  /** The signature's minimums as 8 hexadecimal digits each. */
  readonly hex: string;
  /** One integer key per band (see `bandKeys`). */
  readonly bands: readonly number[];
}

/**
 * The normalised words of a text: Unicode NFKC, lower case, letters and digits only; each
 * character of a Han, Kana or Hangul run is a word of its own (those scripts do not space words).
 *
 * @example
 * normalisedWords("Hello, WORLD! 東京"); // -> ["hello", "world", "東", "京"]
 */
export function normalisedWords(text: string): string[] {
  // Most feed text is ASCII: no normalisation form or script to consider (the Unicode path below
  // costs several times more per post, and ingest runs this for every new one).
  if (asciiOnly.test(text))
    return text
      .toLowerCase()
      .split(asciiSeparators)
      .filter((w) => w !== "");
  const words: string[] = [];
  const unspaced = unspacedScript.test(text);
  for (const m of text
    .normalize("NFKC")
    .toLowerCase()
    .matchAll(/[\p{L}\p{N}\p{M}]+/gu)) {
    const w = m[0];
    if (unspaced && unspacedScript.test(w)) {
      for (const part of w.split(
        /(?=[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}])/u,
      ))
        words.push(part);
    } else words.push(w);
  }
  return words;
}

const asciiOnly = /^[\x00-\x7f]*$/;
const asciiSeparators = /[^a-z0-9]+/;
const unspacedScript = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/** FNV-1a over a word's UTF-16 code units (32 bits). */
function wordHash(word: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) {
    h ^= word.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** MurmurHash3's 32-bit finaliser: spreads a combined value over every bit. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** One seed per minimum: the i-th hash function is mix(shingle ^ seed_i). */
const seeds = Array.from({ length: signatureSize }, (_, i) => mix(0x9e3779b9 + i * 0x7f4a7c15));

/**
 * The fingerprint of a post, or null when its excerpt has fewer than `minWords` words.
 *
 * @example
 * textFingerprint("Title", "eighty words of text ...")?.bands.length; // -> 8
 */
export function textFingerprint(title: string, excerpt: string): TextFingerprint | null {
  const body = normalisedWords(excerpt);
  // Distinct words: a text repeating a few words ("text text text ...") says as little as a short one.
  if (body.length < minWords || new Set(body).size < minWords) return null;
  const hashes = [...normalisedWords(title), ...body.slice(0, maxWords)].map(wordHash);
  const mins = new Uint32Array(signatureSize).fill(0xffffffff);
  for (let i = 0; i + shingleSize <= hashes.length; i++) {
    const shingle = mix(
      hashes[i]! ^ Math.imul(hashes[i + 1]!, 0x9e3779b1) ^ Math.imul(hashes[i + 2]!, 0x85ebca77),
    );
    for (let k = 0; k < signatureSize; k++) {
      const h = mix(shingle ^ seeds[k]!);
      if (h < mins[k]!) mins[k] = h;
    }
  }
  const hex = Array.from(mins, (m) => m.toString(16).padStart(8, "0")).join("");
  return { hex, bands: bandKeys(hex) };
}

function minimums(hex: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < signatureSize; i++) out.push(Number.parseInt(hex.slice(i * 8, i * 8 + 8), 16));
  return out;
}

/**
 * The band keys of a signature: each band's minimums and its number hashed to a signed 32-bit
 * integer (an INTEGER column on both stores). A collision between different bands only adds a
 * candidate, which the similarity check then drops.
 *
 * @example
 * bandKeys(textFingerprint(title, excerpt)!.hex).length; // -> 8
 */
export function bandKeys(hex: string): number[] {
  const m = minimums(hex);
  const keys: number[] = [];
  for (let b = 0; b < bandCount; b++) {
    let h = mix(b + 1);
    for (let r = 0; r < bandRows; r++) h = mix(h ^ Math.imul(m[b * bandRows + r]!, 0x27d4eb2f));
    keys.push(h | 0);
  }
  return keys;
}

/**
 * The estimated Jaccard similarity of two signatures: the share of equal minimums.
 *
 * @example
 * similarity(a.hex, a.hex); // -> 1
 */
export function similarity(a: string, b: string): number {
  const ma = minimums(a);
  const mb = minimums(b);
  let equal = 0;
  for (let i = 0; i < signatureSize; i++) if (ma[i] === mb[i]) equal++;
  return equal / signatureSize;
}

/** Whether two signatures are one story's text. */
export function sameText(a: string, b: string): boolean {
  return similarity(a, b) >= minSimilarity;
}
