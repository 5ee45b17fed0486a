/**
 * The tsquery syntax of the term operators of spec §4: `word*` marks the term's last lexeme as a
 * prefix (`'wor':*`) and `title:` restricts every lexeme to weight A, the weight of title words
 * in the search vector (postgres-text-search.ts), as in `'post':*A`
 * (https://www.postgresql.org/docs/current/datatype-textsearch.html#DATATYPE-TSQUERY).
 */
import type { SearchTerm } from "../../search/search-query.js";

/**
 * @example
 * withTermOperators({ words: ["open", "sou"], prefix: true, titleOnly: true }, ["'open'", "'sou'"]);
 * // ["'open':A", "'sou':*A"]
 */
export function withTermOperators(term: SearchTerm, lexemes: readonly string[]): readonly string[] {
  if (term.prefix !== true && term.titleOnly !== true) return lexemes;
  const weight = term.titleOnly === true ? "A" : "";
  return lexemes.map((lexeme, i) => {
    const star = term.prefix === true && i === lexemes.length - 1 ? "*" : "";
    return star === "" && weight === "" ? lexeme : `${lexeme}:${star}${weight}`;
  });
}
