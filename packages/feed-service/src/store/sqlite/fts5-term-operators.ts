/**
 * The FTS5 syntax of the term operators of spec §4: `title:` becomes the phrase of the title_words
 * column's marked tokens (fts5-index-row.ts, schema 28), which only titles hold, or a column filter
 * (`{title} : "a b"`) where there is no such column (the posts by feed's index) or for a prefix;
 * `word*` a prefix phrase (`"open sou" *`: FTS5 marks the phrase's last token as a prefix),
 * https://sqlite.org/fts5.html#fts5_column_filters and #fts5_prefix_queries. A `title:w*` stays
 * a column filter: the index's prefix index (3 characters, fts5-prefix-index.ts) holds `w*`'s
 * list, where the marked tokens' prefix would merge the list of every title word beginning with w.
 */
import type { SearchTerm } from "../../search/search-query.js";
import { titleWordToken } from "./fts5-index-row.js";

/**
 * `tokens`: the term's tokens as the index holds them; `titleWords`: whether the index has the
 * title_words column.
 *
 * @example
 * withTermOperators({ words: ["post"], prefix: true, titleOnly: true }, ["post"], true); // '{title} : "post" *'
 * withTermOperators({ words: ["post"], titleOnly: true }, ["post"], true); // '"\uE002post"'
 */
export function withTermOperators(term: SearchTerm, tokens: readonly string[], titleWords: boolean): string {
  const marked = term.titleOnly === true && term.prefix !== true && titleWords;
  const quoted = `"${(marked ? tokens.map(titleWordToken) : tokens).join(" ").replaceAll('"', '""')}"`;
  if (marked) return quoted;
  const phrase = term.prefix === true ? `${quoted} *` : quoted;
  return term.titleOnly === true ? `{title} : ${phrase}` : phrase;
}
