/**
 * The search syntax of spec §4 (operation 1), parsed into a backend-neutral `SearchQuery`:
 * - terms separated by spaces are ANDed;
 * - `"a phrase"` is one term whose words must follow each other (an unbalanced quote is closed at
 *   the end of the input);
 * - `-word` or `-"a phrase"` excludes posts that match it;
 * - `OR` (upper case, unquoted) joins the terms on each side and binds tighter than AND, so
 *   `a b OR c` is a AND (b OR c); an `OR` without a term on both sides is the word "or";
 * - a term's words are the search analyzer's tokens of its text (search/text-analyzer.ts), the
 *   very tokens the stores index: `東京` is `東 東京 京`, searched as a phrase;
 * - every input is valid: characters that are not letters or digits only separate words, and a
 *   term left with no words is dropped. A query with exclusions only has no clauses: it matches
 *   nothing.
 */
import type { SearchQuery, SearchTerm } from "./search-query.js";
import { analyzeText } from "./text-analyzer.js";

interface RawToken {
  readonly text: string;
  readonly quoted: boolean;
  readonly excluded: boolean;
}

/** Splits the input at unquoted whitespace, keeping quoted runs together. */
function tokenize(input: string): RawToken[] {
  const tokens: RawToken[] = [];
  let i = 0;
  const n = input.length;
  while (i < n) {
    while (i < n && /\s/u.test(input[i]!)) i++;
    if (i >= n) break;
    let excluded = false;
    if (input[i] === "-" && i + 1 < n && !/\s/u.test(input[i + 1]!)) {
      excluded = true;
      i++;
    }
    if (input[i] === '"') {
      const end = input.indexOf('"', i + 1);
      const stop = end === -1 ? n : end;
      tokens.push({ text: input.slice(i + 1, stop), quoted: true, excluded });
      i = stop + 1;
    } else {
      let j = i;
      // A quote inside a word ends the word and opens a phrase (`foo"bar baz"`).
      while (j < n && !/\s/u.test(input[j]!) && input[j] !== '"') j++;
      tokens.push({ text: input.slice(i, j), quoted: false, excluded });
      i = j;
    }
  }
  return tokens;
}

type Item = { kind: "or" } | { kind: "term"; term: SearchTerm; excluded: boolean };

/**
 * Parses a search expression. Never throws: any text is a valid query.
 *
 * @example
 * parseSearchQuery('typescript "type guards" OR generics -java');
 * // { clauses: [[{words:["typescript"]}], [{words:["type","guards"]}, {words:["generics"]}]],
 * //   excluded: [{words:["java"]}] }
 */
export function parseSearchQuery(input: string): SearchQuery {
  const items: Item[] = [];
  for (const token of tokenize(input)) {
    if (token.text === "OR" && !token.quoted && !token.excluded) {
      items.push({ kind: "or" });
      continue;
    }
    const words = analyzeText(token.text);
    if (words.length > 0) items.push({ kind: "term", term: { words }, excluded: token.excluded });
  }

  const clauses: SearchTerm[][] = [];
  const excluded: SearchTerm[] = [];
  // `joinNext` is set when an OR operator sits between the last positive term and the next one.
  let joinNext = false;
  for (let k = 0; k < items.length; k++) {
    const item = items[k]!;
    if (item.kind === "or") {
      const prev = items[k - 1];
      const next = items[k + 1];
      const isOperator =
        prev?.kind === "term" && !prev.excluded && next?.kind === "term" && !next.excluded && !joinNext;
      if (isOperator) {
        joinNext = true;
        continue;
      }
      // A stray operator is the word "or"; it may itself be the left side of a following OR.
      items[k] = { kind: "term", term: { words: ["or"] }, excluded: false };
      k--;
      continue;
    }
    if (item.excluded) {
      excluded.push(item.term);
    } else if (joinNext && clauses.length > 0) {
      clauses[clauses.length - 1]!.push(item.term);
      joinNext = false;
    } else {
      clauses.push([item.term]);
    }
  }
  return { clauses, excluded };
}
