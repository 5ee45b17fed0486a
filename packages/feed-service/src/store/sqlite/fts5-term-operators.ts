/**
 * The FTS5 syntax of the term operators of spec §4: `title:` becomes a column filter
 * (`{title} : "a b"`) and `word*` a prefix phrase (`"open sou" *`: FTS5 marks the phrase's last
 * token as a prefix), https://sqlite.org/fts5.html#fts5_column_filters and #fts5_prefix_queries.
 * Prefixes are read from the index's term list (no prefix index: see bench/NOTES.md, "Search
 * operators").
 */
import type { SearchTerm } from "../../search/search-query.js";

/**
 * @example
 * withTermOperators({ words: ["post"], prefix: true, titleOnly: true }, '"post"'); // '{title} : "post" *'
 */
export function withTermOperators(term: SearchTerm, quoted: string): string {
  const phrase = term.prefix === true ? `${quoted} *` : quoted;
  return term.titleOnly === true ? `{title} : ${phrase}` : phrase;
}
