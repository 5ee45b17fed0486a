/**
 * A parsed search expression (spec §4, operation 1), independent of any backend: an AND of
 * clauses, each clause an OR of terms; plus terms to exclude. A term is one word or a phrase
 * (several words that must follow each other). Words are the search analyzer's tokens
 * (search/text-analyzer.ts): lower-cased, stripped of accents and punctuation, and Han, kana and
 * Hangul cut into characters and pairs, so that every backend matches the same tokens.
 */
export interface SearchTerm {
  readonly words: readonly string[];
}

export interface SearchQuery {
  /** AND of these clauses; each clause matches when any of its terms matches. */
  readonly clauses: ReadonlyArray<ReadonlyArray<SearchTerm>>;
  /** Posts matching any of these are left out. */
  readonly excluded: readonly SearchTerm[];
}
