/**
 * Translates a parsed `SearchQuery` into an FTS5 MATCH expression. Every term becomes one
 * double-quoted FTS5 string (a phrase when it has several words), so no user text is ever read as
 * FTS5 syntax: words hold only the analyzer's tokens (letters, digits, marks) after parsing, and any `"` is doubled anyway
 * (https://sqlite.org/fts5.html#fts5_strings).
 */
import type { SearchQuery, SearchTerm } from "../../search/search-query.js";
import { termPhrase } from "../../search/term-phrase.js";
import { withTermOperators } from "./fts5-term-operators.js";

function quoteTerm(term: SearchTerm, prefix = ""): string {
  // The index's tokenizer splits only at spaces, so the quoted tokens are the phrase's tokens. A
  // feed's tokens (`prefix`) are in the posts by feed's index, which has no title_words column.
  const tokens = termPhrase(term).map((token) => `${prefix}${token}`);
  return withTermOperators(term, tokens, prefix === "");
}

function orGroup(terms: readonly SearchTerm[], prefix: string): string {
  const quoted = terms.map((term) => quoteTerm(term, prefix));
  return quoted.length === 1 ? quoted[0]! : `(${quoted.join(" OR ")})`;
}

/**
 * The MATCH string for a query, or null when the query matches nothing (no positive clause);
 * `prefix` goes before every token (one feed's tokens in the posts by feed's index:
 * fts5-feed-index.ts), giving the same phrases in the same order.
 * Each exclusion is a NOT of its own, `(p) NOT "d" NOT "e"` (FTS5's NOT is binary, binds tighter
 * than AND, hence the parentheses, and groups from the left), rather than one NOT of their OR: the
 * same posts, but FTS5 then looks for "e" only in the posts left by the first NOT, instead of
 * walking every exclusion's doclist past each candidate (https://sqlite.org/fts5.html, Boolean
 * operators).
 *
 * @example
 * toFts5Match(parseSearchQuery("a b OR c -d -e")); // '("a" AND ("b" OR "c")) NOT "d" NOT "e"'
 */
export function toFts5Match(query: SearchQuery, prefix = ""): string | null {
  const clauses = query.clauses.filter((c) => c.length > 0);
  if (clauses.length === 0) return null;
  const positive = clauses.map((clause) => orGroup(clause, prefix)).join(" AND ");
  if (query.excluded.length === 0) return positive;
  return `(${positive})${query.excluded.map((term) => ` NOT ${quoteTerm(term, prefix)}`).join("")}`;
}

/**
 * The phrases of `toFts5Match(query)` in the order FTS5 numbers them (left to right: the clauses'
 * terms, then the excluded ones), each as its own MATCH string; `excluded` of them, at the end,
 * are the exclusions (they never occur in a post that matches).
 */
export function fts5Phrases(query: SearchQuery): { phrases: string[]; excluded: number } {
  const positive = query.clauses.flatMap((clause) => clause.map((term) => quoteTerm(term)));
  return query.excluded.length === 0 || positive.length === 0
    ? { phrases: positive, excluded: 0 }
    : {
        phrases: [...positive, ...query.excluded.map((term) => quoteTerm(term))],
        excluded: query.excluded.length,
      };
}
