/**
 * A parsed search expression (spec §4, operation 1), independent of any backend: an AND of
 * clauses, each clause an OR of terms; plus terms to exclude. A term is one word or a phrase
 * (several words that must follow each other). Words are the search analyzer's tokens
 * (search/text-analyzer.ts): lower-cased, stripped of accents and punctuation, and Han, kana and
 * Hangul cut into characters and pairs, so that every backend matches the same tokens.
 *
 * The search operators of spec §4 add to this: a term may match words by prefix (`word*`) or in
 * the title only (`title:`), and post filters (`feed:`, `lang:`, `after:`, `before:`) combine
 * with AND, OR and `-` as terms do. A clause holding a filter, and an excluded filter, sit apart
 * (`filterClauses`, `excludedFilters`), so that a store's word-only plans see only queries
 * without filters (`hasFilters`, `usesOperators` tell a store which plan a query needs).
 */
export interface SearchTerm {
  readonly words: readonly string[];
  /** `word*`: the last word also matches every word that begins with it. */
  readonly prefix?: boolean;
  /** `title:`: matches in the post's title only. */
  readonly titleOnly?: boolean;
}

/**
 * A filter on a post's properties. `feed` and `lang` name feeds and languages as typed; the
 * operation layer resolves them to ids (`feedIds`, `languageIds`) before a store sees them.
 * `date` bounds `postDate` in epoch milliseconds: `from` inclusive, `until` exclusive.
 */
export type PostFilter =
  | {
      readonly kind: "feed";
      readonly words: readonly string[];
      readonly prefix: boolean;
      readonly feedIds?: readonly number[];
      /**
       * Set with `feedIds`: whether the words' phrase as the stores search it (termPhrase: a Han,
       * kana or Hangul run's edge characters left out) is in those feeds' names only, so that
       * the phrase's posts are exactly theirs.
       */
      readonly phraseExact?: boolean;
    }
  | { readonly kind: "lang"; readonly codes: readonly string[]; readonly languageIds?: readonly number[] }
  | { readonly kind: "date"; readonly from: number | null; readonly until: number | null };

/** One alternative of a clause that holds a filter: a term or a filter. */
export type SearchAtom = SearchTerm | PostFilter;

export interface SearchQuery {
  /** AND of these clauses; each clause matches when any of its terms matches. */
  readonly clauses: ReadonlyArray<ReadonlyArray<SearchTerm>>;
  /** Posts matching any of these are left out. */
  readonly excluded: readonly SearchTerm[];
  /** Further clauses ANDed with `clauses`, each holding at least one filter. */
  readonly filterClauses?: ReadonlyArray<ReadonlyArray<SearchAtom>>;
  /** Posts passing any of these filters are left out. */
  readonly excludedFilters?: readonly PostFilter[];
}

export function isFilter(atom: SearchAtom): atom is PostFilter {
  return "kind" in atom;
}

/** Whether a query uses any operator: stores answer those with their operator plans. */
export function usesOperators(query: SearchQuery): boolean {
  const special = (t: SearchTerm) => t.prefix === true || t.titleOnly === true;
  return (
    (query.filterClauses?.length ?? 0) > 0 ||
    (query.excludedFilters?.length ?? 0) > 0 ||
    query.clauses.some((c) => c.some(special)) ||
    query.excluded.some(special)
  );
}

/** Whether a query filters on a post's properties (`feed:`, `lang:`, `after:`, `before:`). */
export function hasFilters(query: SearchQuery): boolean {
  return (query.filterClauses?.length ?? 0) > 0 || (query.excludedFilters?.length ?? 0) > 0;
}

/** Whether a query can match nothing: it has no positive clause (exclusions only, or nothing). */
export function matchesNothing(query: SearchQuery): boolean {
  return query.clauses.length === 0 && (query.filterClauses?.length ?? 0) === 0;
}

/**
 * The query with each clause that is one `lang:` filter alone (resolved to ids) folded into the
 * language list every search already takes (`languageIds`: null for every language), so that
 * `lang:de rust` runs the store's word plans with their language filter. What is left may have no
 * filter at all; a query of language filters alone keeps them.
 *
 * @example
 * foldLanguageClauses(query, null); // { query: <rust>, languageIds: [3] } for `lang:de rust`
 */
export function foldLanguageClauses(
  query: SearchQuery,
  languageIds: readonly number[] | null,
): { query: SearchQuery; languageIds: readonly number[] | null } {
  const clauses = query.filterClauses ?? [];
  const isLanguageAlone = (clause: ReadonlyArray<SearchAtom>) => {
    const only = clause.length === 1 ? clause[0]! : null;
    return only !== null && isFilter(only) && only.kind === "lang" && only.languageIds !== undefined;
  };
  // A query of language filters alone (`lang:de`) lists those posts: its filters stay.
  const rest = clauses.filter((c) => !isLanguageAlone(c));
  if (rest.length === clauses.length || (rest.length === 0 && query.clauses.length === 0)) {
    return { query, languageIds };
  }
  let ids = languageIds;
  for (const clause of clauses.filter(isLanguageAlone)) {
    const own = (clause[0] as { languageIds: readonly number[] }).languageIds;
    ids = ids === null ? [...new Set(own)] : ids.filter((id) => own.includes(id));
  }
  const { filterClauses: _, ...others } = query;
  return { query: rest.length > 0 ? { ...others, filterClauses: rest } : others, languageIds: ids };
}
