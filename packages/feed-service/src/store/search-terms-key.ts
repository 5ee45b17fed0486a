/**
 * How the search history tells searches apart (spec §4, operation 14): the same terms compared
 * case-insensitively with whitespace collapsed are one entry, shown in their latest spelling.
 * Shared by both dialects so that SQLite and PostgreSQL group the history identically.
 */

/** The spelling kept for display: trimmed, runs of whitespace as one space. */
export function searchTermsSpelling(terms: string): string {
  return terms.trim().replace(/\s+/gu, " ");
}

/** The history key: the spelling in Unicode lower case. */
export function searchTermsKey(terms: string): string {
  return searchTermsSpelling(terms).toLowerCase();
}
