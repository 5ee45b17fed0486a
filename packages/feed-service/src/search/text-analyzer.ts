/**
 * The text analyzer of search (spec §4): one function that turns text into the tokens both the
 * index and the query use, on every backend, so that SQLite and PostgreSQL find the same posts.
 *
 * - Unicode NFKC first: full-width Latin and digits become ASCII, half-width katakana full-width,
 *   compatibility characters their plain form.
 * - Scripts written with spaces: words as `searchWords` defines them (letters, digits, the
 *   combining diacritics), lower-cased, Latin diacritics removed.
 * - Han, Hiragana, Katakana and Hangul, written without spaces between words: each run of one of
 *   these scripts gives each character and each pair of neighbours, interleaved (`東京都` ->
 *   `東 東京 京 京都 都`), the model of Elasticsearch's cjk_bigram filter with unigrams kept. A
 *   query term analysed the same way and searched as a phrase then matches wherever its
 *   characters occur in that order inside a run (`東京` finds `東京都`), a single character
 *   included, and never across the edge of a run.
 * - Thai, written without spaces: words as the platform's dictionary segmenter (Intl.Segmenter,
 *   ICU) finds them.
 *
 * Tokens hold no whitespace, so a backend can store them joined by spaces and split them back.
 */
import { foldSearchChar } from "./search-words.js";

/** The kind of run a character belongs to: words of spaced scripts, one of the unspaced ones. */
export type RunKind = "word" | "han" | "hiragana" | "katakana" | "hangul" | "thai";

const han = /\p{Script=Han}/u;
const hiragana = /\p{Script=Hiragana}/u;
const katakana = /\p{Script=Katakana}/u;
const hangul = /\p{Script=Hangul}/u;
const thai = /\p{Script=Thai}/u;
/** Characters of no one script used inside kana words: the prolonged sound mark ー and its half-width form. */
const kanaCommon = /[\u30fc\uff70]/u;
const letterOrDigit = /[\p{L}\p{N}\p{Co}]/u;
const mark = /\p{M}/u;

/**
 * Which kind of run a character belongs to (or null for a separator), given the run it follows.
 * The analyzer and the search highlighter both cut text with it, so what is marked is what was
 * indexed.
 */
export function runKindOf(ch: string, previous: RunKind | null): RunKind | null {
  // ASCII, most of most text, without the Unicode property tests.
  const code = ch.charCodeAt(0);
  if (code < 0x80) {
    return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || (code >= 0x30 && code <= 0x39)
      ? "word"
      : null;
  }
  // The common blocks by range, before the Unicode property tests, which cost more (bench/NOTES.md).
  if (code >= 0x4e00 && code <= 0x9fff) return "han";
  if (code >= 0xac00 && code <= 0xd7a3) return "hangul";
  if (code >= 0x3041 && code <= 0x3096) return "hiragana";
  if (code >= 0x30a1 && code <= 0x30fa) return "katakana";
  if (han.test(ch)) return "han";
  if (hiragana.test(ch)) return "hiragana";
  if (katakana.test(ch)) return "katakana";
  if (kanaCommon.test(ch)) return previous === "hiragana" ? "hiragana" : "katakana";
  if (hangul.test(ch)) return "hangul";
  if (thai.test(ch)) return letterOrDigit.test(ch) || mark.test(ch) ? "thai" : null;
  if (letterOrDigit.test(ch)) return "word";
  // A combining mark continues the word it follows (é written as e + U+0301).
  if (mark.test(ch) && previous === "word") return "word";
  return null;
}

let thaiSegmenter: Intl.Segmenter | undefined;

function thaiWords(run: string, out: string[]): void {
  thaiSegmenter ??= new Intl.Segmenter("th", { granularity: "word" });
  for (const part of thaiSegmenter.segment(run)) {
    if (part.isWordLike) out.push(part.segment);
  }
}

const plainAscii = /^[a-z0-9]*$/i;

function foldWord(run: string): string {
  // Most words of most text are ASCII letters and digits: one lower-casing of the whole word.
  if (plainAscii.test(run)) return run.toLowerCase();
  let folded = "";
  for (const ch of run) folded += foldSearchChar(ch.codePointAt(0)!);
  return folded;
}

/** Each character of text[start, end) and each pair of neighbours, interleaved. */
/** 2 where text[i] starts a surrogate pair (a character beyond the BMP, such as 𠮷), else 1. */
function widthAt(text: string, i: number): number {
  const code = text.charCodeAt(i);
  const low = text.charCodeAt(i + 1);
  return code >= 0xd800 && code < 0xdc00 && low >= 0xdc00 && low < 0xe000 ? 2 : 1;
}

/** Each character of text[start, end) and each pair of neighbours, interleaved. */
function emitPairs(text: string, start: number, end: number, out: string[]): void {
  let i = start;
  while (i < end) {
    const next = i + widthAt(text, i);
    out.push(text.slice(i, next));
    if (next < end) out.push(text.slice(i, next + widthAt(text, next)));
    i = next;
  }
}

function emit(kind: RunKind, text: string, start: number, end: number, out: string[]): void {
  if (kind === "word") {
    const word = foldWord(text.slice(start, end));
    if (word !== "") out.push(word);
  } else if (kind === "thai") {
    thaiWords(text.slice(start, end), out);
  } else {
    emitPairs(text, start, end, out);
  }
}

/**
 * The search tokens of a text, in order.
 *
 * @example
 * analyzeText("Crème brûlée"); // ["creme", "brulee"]
 * analyzeText("東京都の天気"); // ["東", "東京", "京", "京都", "都", "の", "天", "天気", "気"]
 * analyzeText("iPhone発売"); // ["iphone", "発", "発売", "売"]
 */
export function analyzeText(text: string): string[] {
  const out: string[] = [];
  const s = text.normalize("NFKC");
  let kind: RunKind | null = null;
  let runStart = 0;
  let i = 0;
  // By index rather than by character string: ASCII, most of most text, is classified from its
  // code alone, and runs are emitted as slices (a third of the cost of building them per character).
  while (i < s.length) {
    const code = s.charCodeAt(i);
    let width = 1;
    let next: RunKind | null;
    if (code < 0x80) {
      next =
        (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || (code >= 0x30 && code <= 0x39)
          ? "word"
          : null;
    } else {
      width = widthAt(s, i);
      next = runKindOf(s.slice(i, i + width), kind);
    }
    if (next !== kind) {
      if (kind !== null) emit(kind, s, runStart, i, out);
      kind = next;
      runStart = i;
    }
    i += width;
  }
  if (kind !== null) emit(kind, s, runStart, i, out);
  return out;
}
