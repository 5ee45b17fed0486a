/**
 * A post's tsvector literals written as PostgreSQL stores a tsvector: each lexeme once with all
 * its positions, lexemes in sorted order. tsvectorin sorts and merges whatever it is given
 * (PostgreSQL src/backend/utils/adt/tsvector.c, uniqueentry), so the stored value is the same;
 * given them sorted and merged it has nothing to sort and fewer bytes to read, on the server side
 * of every COPY of migrate-data and of every refresh's INSERT (bench/NOTES.md, pgwrites31).
 */

/** A token of a post at its position, with its weight letter ("" for D). */
export interface WeightedToken {
  readonly word: string;
  readonly at: number;
  readonly weight: string;
}

/**
 * `'lexeme':pos[weight],...` entries, one per distinct word, sorted as strings. PostgreSQL orders
 * lexemes by their bytes, shorter first on a tie; the entries' order is that one except where one
 * lexeme is the other's prefix followed by a character below the closing quote (a space, `!` to
 * `&`, a quote), or between astral characters and U+E000 to U+FFFF (JavaScript compares UTF-16
 * units): there the server sorts them itself, as it did every vector before. The entries are
 * sorted, not the words: no second look-up per word (bench/NOTES.md, pgwrites31).
 *
 * @example
 * wordsLiteral([{ word: "b", at: 1, weight: "A" }, { word: "a", at: 2, weight: "" }, { word: "b", at: 3, weight: "" }], (w) => `'${w}'`);
 * // "'a':2 'b':1A,3"
 */
export function wordsLiteral(tokens: readonly WeightedToken[], quote: (word: string) => string): string {
  const entryOf = new Map<string, number>();
  const entries: string[] = [];
  for (const t of tokens) {
    const at = entryOf.get(t.word);
    if (at === undefined) {
      entryOf.set(t.word, entries.length);
      entries.push(`${quote(t.word)}:${t.at}${t.weight}`);
    } else entries[at] += `,${t.at}${t.weight}`;
  }
  return entries.sort().join(" ");
}

/** Lexemes without positions (each already once), sorted, as a literal. */
export function lexemesLiteral(lexemes: Iterable<string>, quote: (word: string) => string): string {
  return [...lexemes].sort().map(quote).join(" ");
}
