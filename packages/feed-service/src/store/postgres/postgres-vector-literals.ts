/**
 * A post's tsvector literals written as PostgreSQL stores a tsvector: each lexeme once with all
 * its positions, lexemes in sorted order. tsvectorin sorts and merges whatever it is given
 * (PostgreSQL src/backend/utils/adt/tsvector.c, uniqueentry), so the stored value is the same;
 * given them sorted it has nothing to sort and a third fewer bytes to read, which halved its time
 * per post (bench/NOTES.md, pgwrites31): the server side of every COPY of migrate-data and of
 * every refresh's INSERT.
 */

/** A token of a post at its position, with its weight letter ("" for D). */
export interface WeightedToken {
  readonly word: string;
  readonly at: number;
  readonly weight: string;
}

/**
 * `'lexeme':pos[weight],...` entries, one per distinct word, sorted. JavaScript's default sort is
 * by UTF-16 unit, PostgreSQL's by byte; they differ only between astral characters and U+E000 to
 * U+FFFF, which the server then sorts itself.
 *
 * @example
 * wordsLiteral([{ word: "b", at: 1, weight: "A" }, { word: "a", at: 2, weight: "" }, { word: "b", at: 3, weight: "" }], (w) => `'${w}'`);
 * // "'a':2 'b':1A,3"
 */
export function wordsLiteral(tokens: readonly WeightedToken[], quote: (word: string) => string): string {
  const positions = new Map<string, string>();
  for (const t of tokens) {
    const had = positions.get(t.word);
    positions.set(t.word, had === undefined ? `${t.at}${t.weight}` : `${had},${t.at}${t.weight}`);
  }
  let out = "";
  for (const word of [...positions.keys()].sort()) {
    out += `${out === "" ? "" : " "}${quote(word)}:${positions.get(word)}`;
  }
  return out;
}

/** Lexemes without positions (each already once), sorted, as a literal. */
export function lexemesLiteral(lexemes: Iterable<string>, quote: (word: string) => string): string {
  return [...lexemes].sort().map(quote).join(" ");
}
