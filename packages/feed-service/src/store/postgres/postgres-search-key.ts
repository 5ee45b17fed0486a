/**
 * What a plain search (no operators) matches, as text: the tsquery of the search index's lexemes
 * and, when GIN only narrows the posts (a phrase of three words or more), the query checked on
 * `search_vector`. Two queries with the same key match the same posts; it names a search's
 * counts per day (postgres-counted-searches.ts).
 */
import type { SearchQuery } from "../../search/search-query.js";
import { toSearchIndexTsquery } from "./postgres-phrase-pairs.js";
import { quoteLexeme, toTsquery } from "./postgres-text-search.js";

export interface SearchKey {
  index: string;
  verify: string | null;
}

/** The key of `query` in every language, or null when it matches nothing. */
export function searchKey(query: SearchQuery): SearchKey | null {
  const words = toTsquery(query);
  const indexed = toSearchIndexTsquery(query);
  if (words === null || indexed === null) return null;
  return { index: indexed.tsquery, verify: indexed.exact ? null : words };
}

/**
 * The word of a tsquery's text when it is one plain lexeme of a word (`'the'`), else null: a
 * pair or triple of a phrase (`'open source'`) holds a space, as no word does
 * (postgres-phrase-pairs.ts), and is matched on the pairs' vector, not on the words.
 */
export function lexemeOf(indexQuery: string, verifyQuery: string | null): string | null {
  if (verifyQuery !== null) return null;
  const m = /^'((?:[^'\\]|''|\\.)*)'$/.exec(indexQuery);
  if (!m) return null;
  const lexeme = m[1]!.replace(/''/g, "'").replace(/\\(.)/g, "$1");
  return quoteLexeme(lexeme) === indexQuery && !lexeme.includes(" ") ? lexeme : null;
}
