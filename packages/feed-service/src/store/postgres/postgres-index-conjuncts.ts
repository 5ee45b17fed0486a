/**
 * The top-level conjuncts of the operators' GIN index query (postgres-operator-plan.ts
 * indexLexemes: words, ` ttl ` title words, ` pfx ` prefixes, `&`, `|`, `!`), and which of them
 * others imply: a query GIN answers the same with fewer posting lists to intersect, and what a
 * `title:` word settles without the rest (postgres-feed-titles.ts).
 */

/**
 * The top-level conjuncts of a tsquery (its parts ANDed at the outside, parentheses that only
 * group ANDs opened), or null when it holds a NOT: a conjunct that is only a NOT cannot lead a
 * GIN scan, and excluded words are checked on the row anyway (Plan.recheck).
 */
export function conjuncts(query: string): string[] | null {
  if (/!/.test(query.replace(/'(?:[^']|'')*'/g, ""))) return null;
  const parts: string[] = [];
  const split = (text: string) => {
    let depth = 0;
    let start = 0;
    const found: string[] = [];
    for (let i = 0; i < text.length; i++) {
      const c = text[i]!;
      if (c === "'") i = quoteEnd(text, i);
      else if (c === "(") depth++;
      else if (c === ")") depth--;
      else if (c === "&" && depth === 0) {
        found.push(text.slice(start, i).trim());
        start = i + 1;
      }
    }
    found.push(text.slice(start).trim());
    for (const part of found) {
      const inner = part.startsWith("(") && part.endsWith(")") ? part.slice(1, -1) : null;
      // A group of ANDs only (no OR at its top level) is opened; an OR stays one conjunct.
      if (inner !== null && wraps(part) && !topLevelOr(inner)) split(inner);
      else parts.push(part);
    }
  };
  split(query);
  return parts;
}

/** The index of the quote that closes the quoted lexeme opened at `open` ('' is a quote inside it). */
function quoteEnd(text: string, open: number): number {
  let i = open + 1;
  for (; i < text.length; i++) {
    if (text[i] === "'" && text[i + 1] === "'") i++;
    else if (text[i] === "'") break;
  }
  return i;
}

/** Whether the parenthesis that opens `part` closes at its end. */
function wraps(part: string): boolean {
  let depth = 0;
  for (let i = 0; i < part.length; i++) {
    const c = part[i]!;
    if (c === "'") i = quoteEnd(part, i);
    else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i === part.length - 1;
  }
  return false;
}

function topLevelOr(text: string): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'") i = quoteEnd(text, i);
    else if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "|" && depth === 0) return true;
  }
  return false;
}

export const TITLE = /^' ttl ((?:[^']|'')+)'$/s;
const WORD = /^'((?:[^']|'')+)'(:\*)?$/s;
const PREFIX = /^' pfx ((?:[^']|'')+)'$/s;

/**
 * Whether a conjunct of the operators' index query holds whenever a post holds `titles` in its
 * title and `words` anywhere (each quoted as in the query): the word itself, or a prefix of one
 * (`'the':*`, ` pfx the`). `title:w` is `'w':A`, a lexeme of `search_vector` itself, so it implies
 * `w` and `w*` (the reasoning of impliedByTitle in postgres-operator-plan.ts); a word implies its
 * prefixes, and its ` pfx ` lexeme (its first three letters: operator_facets in
 * postgres-search-operators.ts).
 */
export function impliedBy(conjunct: string, titles: readonly string[], words: readonly string[]): boolean {
  const known = [...titles, ...words];
  // ` pfx ` and ` ttl ` first: their lexemes are quoted words too.
  const prefix = PREFIX.exec(conjunct);
  if (prefix !== null) return known.some((t) => t.startsWith(prefix[1]!));
  if (TITLE.test(conjunct)) return false;
  const word = WORD.exec(conjunct);
  if (word === null) return false;
  return word[2] === undefined ? titles.includes(word[1]!) : known.some((t) => t.startsWith(word[1]!));
}

/**
 * The operators' index query without the conjuncts another conjunct implies (see impliedBy):
 * `' pfx the' & ' ttl the' & 'the'` is `' ttl the'`, `' pfx the' & 'the' & 'new'` is
 * `'the' & 'new'`. The same posts match, and GIN intersects fewer posting lists: a common word's
 * list and its prefix's, each about as long as the posts, are walked for nothing. Unchanged when
 * it holds a NOT (see conjuncts) or nothing is implied.
 */
export function withoutImplied(query: string): string {
  const parts = conjuncts(query);
  if (parts === null || parts.length < 2) return query;
  const unique = [...new Set(parts)];
  const titles = unique.flatMap((part) => TITLE.exec(part)?.[1] ?? []);
  const words = unique.flatMap((part) => {
    if (PREFIX.test(part) || TITLE.test(part)) return [];
    const word = WORD.exec(part);
    return word !== null && word[2] === undefined ? [word[1]!] : [];
  });
  const kept = unique.filter((part) => !impliedBy(part, titles, words));
  return kept.length === parts.length ? query : kept.join(" & ");
}
