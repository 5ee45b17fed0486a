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
 *   nothing;
 * - the operators of spec §4 (search-operators.ts) are terms too: `word*`, `title:`, `feed:`,
 *   `lang:`, `after:`, `before:` join OR and take `-` as words do. Only an operator with a bad value
 *   (`after:yesterday`, `lang:1`) makes the input invalid: a fault that names it and shows the
 *   accepted form.
 */
import { operatorAtom, type RawOperator, readOperator } from "./search-operators.js";
import type { PostFilter, SearchAtom, SearchQuery, SearchTerm } from "./search-query.js";
import { isFilter } from "./search-query.js";

interface RawToken extends RawOperator {
  readonly excluded: boolean;
}

/** Reads a quoted run starting at `input[i] === '"'`: its text and the index after it. */
function quotedAt(input: string, i: number): { text: string; next: number } {
  const end = input.indexOf('"', i + 1);
  const stop = end === -1 ? input.length : end;
  return { text: input.slice(i + 1, stop), next: stop + 1 };
}

/** Splits the input at unquoted whitespace, keeping quoted runs and operator values together. */
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
    const name = readOperator(input, i);
    if (name !== null) i += name.length + 1;
    if (input[i] === '"') {
      const quoted = quotedAt(input, i);
      i = quoted.next;
      // `"open sou"*`: a star right after the closing quote makes the phrase's last word a prefix.
      const prefix = input[i] === "*";
      if (prefix) i++;
      tokens.push({ text: quoted.text, quoted: true, excluded, operator: name, prefix });
    } else {
      let j = i;
      // A quote inside a word ends the word and opens a phrase (`foo"bar baz"`).
      while (j < n && !/\s/u.test(input[j]!) && input[j] !== '"') j++;
      const text = input.slice(i, j);
      tokens.push({ text, quoted: false, excluded, operator: name, prefix: text.endsWith("*") });
      i = j;
    }
  }
  return tokens;
}

type Item = { kind: "or" } | { kind: "atom"; atom: SearchAtom; excluded: boolean };

/**
 * Parses a search expression. Throws a bad-argument fault only for an operator with a bad value.
 *
 * @example
 * parseSearchQuery('typescript "type guards" OR generics -java');
 * // { clauses: [[{words:["typescript"]}], [{words:["type","guards"]}, {words:["generics"]}]],
 * //   excluded: [{words:["java"]}] }
 * parseSearchQuery("rust feed:blog OR lang:de");
 * // { clauses: [[{words:["rust"]}]], excluded: [],
 * //   filterClauses: [[{kind:"feed", words:["blog"], prefix:false}, {kind:"lang", codes:["de"]}]] }
 */
export function parseSearchQuery(input: string): SearchQuery {
  const items: Item[] = [];
  for (const token of tokenize(input)) {
    if (token.text === "OR" && !token.quoted && !token.excluded && token.operator === null) {
      items.push({ kind: "or" });
      continue;
    }
    const atom = operatorAtom(token);
    if (atom !== null) items.push({ kind: "atom", atom, excluded: token.excluded });
  }

  const all: SearchAtom[][] = [];
  const excludedAtoms: SearchAtom[] = [];
  // `joinNext` is set when an OR operator sits between the last positive term and the next one.
  let joinNext = false;
  for (let k = 0; k < items.length; k++) {
    const item = items[k]!;
    if (item.kind === "or") {
      const prev = items[k - 1];
      const next = items[k + 1];
      const isOperator =
        prev?.kind === "atom" && !prev.excluded && next?.kind === "atom" && !next.excluded && !joinNext;
      if (isOperator) {
        joinNext = true;
        continue;
      }
      // A stray operator is the word "or"; it may itself be the left side of a following OR.
      items[k] = { kind: "atom", atom: { words: ["or"] }, excluded: false };
      k--;
      continue;
    }
    if (item.excluded) {
      excludedAtoms.push(item.atom);
    } else if (joinNext && all.length > 0) {
      all[all.length - 1]!.push(item.atom);
      joinNext = false;
    } else {
      all.push([item.atom]);
    }
  }
  const clauses = all.filter((c) => !c.some(isFilter)) as SearchTerm[][];
  const filterClauses = all.filter((c) => c.some(isFilter));
  const excluded = excludedAtoms.filter((a) => !isFilter(a)) as SearchTerm[];
  const excludedFilters = excludedAtoms.filter(isFilter) as PostFilter[];
  return {
    clauses,
    excluded,
    ...(filterClauses.length > 0 ? { filterClauses } : {}),
    ...(excludedFilters.length > 0 ? { excludedFilters } : {}),
  };
}
