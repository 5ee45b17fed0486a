/**
 * Marks the words of a search result that the search matched, with the search's own analyzer
 * (search/text-analyzer.ts), so that what is marked is what was found: `creme` marks `Crème`,
 * `東京` marks the first two characters of `東京都`, and `Tokyo` does not mark `Tokyoite`.
 *
 * The text is cut into the units the analyzer reads — a word of a spaced script, one character of
 * Han, kana or Hangul, a Thai dictionary word — each unit's token is what `analyzeText` gives for
 * it, and the token stream interleaves neighbour pairs inside each Han/kana/Hangul run exactly as
 * the index does (a test checks the stream against `analyzeText` of the whole text). A query term
 * is the analyzer's tokens of its words, matched as a phrase of consecutive tokens, which is how
 * the stores match it; every unit covered by a match is marked.
 */

import { isFilter, type SearchQuery } from "../search/search-query.js";
import { analyzeText, type RunKind, runKindOf } from "../search/text-analyzer.js";
import { escapeHtml, type Html, raw } from "./html.js";

/** One token of the text and the slice of the original text it comes from. */
export interface TextToken {
  readonly token: string;
  readonly start: number;
  readonly end: number;
}

let thaiSegmenter: Intl.Segmenter | undefined;

/**
 * The analyzer's tokens of one word, remembered: a page repeats a small vocabulary, and the
 * analyzer (NFKC, per-character folding) is the costly part of highlighting. Bounded by clearing.
 */
const wordTokens = new Map<string, string[]>();
const wordTokensLimit = 20_000;

function analyzeWord(word: string): string[] {
  let tokens = wordTokens.get(word);
  if (tokens === undefined) {
    if (wordTokens.size >= wordTokensLimit) wordTokens.clear();
    tokens = analyzeText(word);
    wordTokens.set(word, tokens);
  }
  return tokens;
}

function pushRun(text: string, kind: RunKind, start: number, end: number, out: TextToken[]): void {
  const run = text.slice(start, end);
  if (kind === "word") {
    for (const token of analyzeWord(run)) out.push({ token, start, end });
  } else if (kind === "thai") {
    thaiSegmenter ??= new Intl.Segmenter("th", { granularity: "word" });
    for (const part of thaiSegmenter.segment(run)) {
      if (!part.isWordLike) continue;
      const s = start + part.index;
      for (const token of analyzeText(part.segment))
        out.push({ token, start: s, end: s + part.segment.length });
    }
  } else {
    // Each character, then the pair it forms with the next one (the analyzer's order).
    const chars: Array<{ token: string; start: number; end: number }> = [];
    let i = start;
    for (const ch of run) {
      chars.push({ token: ch.normalize("NFKC"), start: i, end: i + ch.length });
      i += ch.length;
    }
    for (let k = 0; k < chars.length; k++) {
      const c = chars[k]!;
      out.push(c);
      const next = chars[k + 1];
      if (next) out.push({ token: c.token + next.token, start: c.start, end: next.end });
    }
  }
}

/**
 * The analyzer's tokens of `text` with the slices they come from.
 *
 * @example
 * textTokens("Crème 東京"); // [{token:"creme",start:0,end:5}, {token:"東",start:6,end:7}, {token:"東京",…}, …]
 */
export function textTokens(text: string): TextToken[] {
  const out: TextToken[] = [];
  let kind: RunKind | null = null;
  let runStart = 0;
  let i = 0;
  for (const ch of text) {
    const next = runKindOf(ch, kind);
    if (next !== kind) {
      if (kind !== null) pushRun(text, kind, runStart, i, out);
      kind = next;
      runStart = i;
    }
    i += ch.length;
  }
  if (kind !== null) pushRun(text, kind, runStart, i, out);
  return out;
}

/**
 * The token phrases a query looks for: each positive term (every alternative of every clause,
 * those beside a filter too) as the analyzer's tokens it already holds, a prefix (`word*`) as its
 * last token followed by `*` (tokens never hold one). Excluded terms are not shown: results hold
 * none of them.
 */
export function queryPhrases(query: SearchQuery): string[][] {
  const phrases: string[][] = [];
  for (const clause of [...query.clauses, ...(query.filterClauses ?? [])]) {
    for (const term of clause) {
      if (isFilter(term) || term.words.length === 0) continue;
      const words = [...term.words];
      if (term.prefix === true) words[words.length - 1] += "*";
      phrases.push(words);
    }
  }
  return phrases;
}

/** Whether a text token is the phrase's token (or, for `word*`, begins with it). */
function tokenMatches(token: string, wanted: string): boolean {
  return wanted.endsWith("*") ? token.startsWith(wanted.slice(0, -1)) : token === wanted;
}

/**
 * `text` escaped, with each stretch matched by one of the phrases wrapped in `<mark>`.
 *
 * @example
 * highlight("Crème brûlée in Tokyo", [["creme"]]).toString(); // "<mark>Crème</mark> brûlée in Tokyo"
 */
export function highlight(text: string, phrases: readonly (readonly string[])[]): Html {
  if (phrases.length === 0 || text === "") return raw(escapeHtml(text));
  const tokens = textTokens(text);
  const marked: Array<[number, number]> = [];
  for (const phrase of phrases) {
    for (let i = 0; i + phrase.length <= tokens.length; i++) {
      let k = 0;
      while (k < phrase.length && tokenMatches(tokens[i + k]!.token, phrase[k]!)) k++;
      if (k === phrase.length) marked.push([tokens[i]!.start, tokens[i + k - 1]!.end]);
    }
  }
  if (marked.length === 0) return raw(escapeHtml(text));
  marked.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  // Overlapping or touching stretches become one mark, so `東京都` searched for 東京 and 京都 shows once.
  let out = "";
  let at = 0;
  let current: [number, number] | undefined;
  const flush = () => {
    if (!current) return;
    out += `${escapeHtml(text.slice(at, current[0]))}<mark>${escapeHtml(text.slice(current[0], current[1]))}</mark>`;
    at = current[1];
  };
  for (const span of marked) {
    if (current && span[0] <= current[1]) current[1] = Math.max(current[1], span[1]);
    else {
      flush();
      current = [span[0], span[1]];
    }
  }
  flush();
  out += escapeHtml(text.slice(at));
  return raw(out);
}
