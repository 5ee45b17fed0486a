/**
 * Full-text search on PostgreSQL with the same words as SQLite (spec §4: whole words, case- and
 * accent-insensitive, no stemming, the same on every backend). PostgreSQL's own parsers would
 * split and fold text differently (`node.js` as one host token, hyphenated compounds, stemming in
 * the language configurations, no segmentation of Chinese or Japanese), so neither side uses
 * them: the index holds the tokens of `analyzeText` (search/text-analyzer.ts), the analyzer the
 * query parser and the SQLite index use, written as a tsvector literal; a query becomes a tsquery
 * literal built from the parsed tokens (`termPhrase`, as FTS5 gets them). Both literals quote every lexeme, so no
 * user text is ever read as tsquery syntax.
 *
 * Layout of a vector: feed name words (weight B), then title words (weight A), then body words
 * (excerpt and content text, weight D), each field starting one position after a gap, so that a
 * phrase never spans two fields (as in FTS5, where fields are columns).
 */
import type { SearchQuery, SearchTerm } from "../../search/search-query.js";
import { termPhrase } from "../../search/term-phrase.js";
import { analyzeText } from "../../search/text-analyzer.js";
import { withTermOperators } from "./postgres-term-operators.js";
import { lexemesLiteral, rankColumns, wordsLiteral } from "./postgres-vector-literals.js";

/** tsvector positions stop at 16383; later words keep that position (still found, not as phrases). */
const MAX_POSITION = 16_383;
/** PostgreSQL refuses lexemes of 2 KiB or more; such "words" cannot be searched for on any backend sensibly. */
const MAX_LEXEME_BYTES = 2_046;

/** What quoteLexeme escapes. */
const needsEscape = /['\\]/;

/** A lexeme as a quoted tsvector or tsquery literal: no user text is ever read as syntax. */
export function quoteLexeme(word: string): string {
  // Most words hold neither character: one scan instead of two replacements (every copied post's
  // every word goes through here, see postgres-copy-rows.ts).
  if (!needsEscape.test(word)) return `'${word}'`;
  return `'${word.replaceAll("\\", "\\\\").replaceAll("'", "''")}'`;
}

interface PositionedToken {
  readonly word: string;
  readonly at: number;
  readonly weight: string;
  /** UTF-8 length of `word`. */
  readonly bytes: number;
}

/** A post's indexed tokens at their positions (fields apart by a gap; too long words left out). */
function positionedTokens(feedName: string, title: string, body: string): PositionedToken[] {
  const tokens: PositionedToken[] = [];
  let position = 0;
  const add = (text: string, weight: string) => {
    for (const word of analyzeText(text)) {
      position = Math.min(position + 1, MAX_POSITION);
      const bytes = Buffer.byteLength(word);
      if (bytes > MAX_LEXEME_BYTES) continue;
      tokens.push({ word, at: position, weight, bytes });
    }
    position = Math.min(position + 1, MAX_POSITION);
  };
  add(feedName, "B");
  add(title, "A");
  add(body, "");
  return tokens;
}

/**
 * The tsvector literal for a post (cast with `::tsvector`).
 *
 * @example
 * searchVector("Alpha Blog", "Café crème", "Une recette");
 * // "'alpha':1B 'blog':2B 'cafe':4A 'creme':5A 'une':7 'recette':8"
 */
export function searchVector(feedName: string, title: string, body: string): string {
  return positionedTokens(feedName, title, body)
    .map((t) => `${quoteLexeme(t.word)}:${t.at}${t.weight}`)
    .join(" ");
}

/** A pair lexeme (two tokens and a space) stays below PostgreSQL's 2 KiB limit. */
export const MAX_PAIR_BYTES = 2_046;

/**
 * The tsvector literal (no positions) of a post's pairs of neighbouring tokens and run triples, as
 * postgres-phrase-pairs.ts describes them: computed here when the post is written, not by SQL in
 * the search index's expression, where it was evaluated again at every write of the row, at
 * every index build and at every ANALYZE (figures in bench/NOTES.md). The same tokens at the same
 * positions as `searchVector`, so SQL's `phrase_pairs(search_vector)` gives the same lexemes
 * (except where a word repeats past the 256 positions a tsvector keeps of it: the pairs here
 * then also hold its later neighbours, as SQLite's index does).
 *
 * @example
 * phraseVector("", "Open source", ""); // "'open source'"
 */
export function phraseVector(feedName: string, title: string, body: string): string {
  return pairsOf(positionedTokens(feedName, title, body));
}

/** A post's `search_vector` and `phrase_vector` literals, its text analysed once. */
export function postVectors(feedName: string, title: string, body: string): { words: string; pairs: string } {
  const tokens = positionedTokens(feedName, title, body);
  return {
    words: wordsLiteral(tokens, quoteLexeme),
    pairs: pairsOf(tokens),
  };
}

/**
 * A post's `search_vector` and `phrase_vector` literals and its rank columns (`rank_vector` as a
 * literal, `body_length`; null for the posts_rank_columns trigger to compute, see rankColumns),
 * its text analysed once: what a refresh's INSERT and migrate-data's COPY send.
 */
export function postColumns(
  feedName: string,
  title: string,
  body: string,
): { words: string; pairs: string; rank: string | null; bodyLength: number | null } {
  const tokens = positionedTokens(feedName, title, body);
  return {
    words: wordsLiteral(tokens, quoteLexeme),
    pairs: pairsOf(tokens),
    ...rankColumns(tokens, quoteLexeme),
  };
}

function pairsOf(tokens: readonly PositionedToken[]): string {
  const lexemes = new Set<string>();
  const chars = (word: string) => [...word].length;
  for (let i = 1; i < tokens.length; i++) {
    const a = tokens[i - 1]!;
    const b = tokens[i]!;
    if (b.at !== a.at + 1) continue;
    if (a.bytes + b.bytes < MAX_PAIR_BYTES) lexemes.add(`${a.word} ${b.word}`);
    const c = tokens[i + 1];
    // A run's triple (`デー ー ータ`): two characters, the second of them, a pair starting with it.
    // The middle one is one character (at most two UTF-16 units): most pairs stop at that test.
    if (c === undefined || c.at !== b.at + 1 || b.word.length > 2 || chars(b.word) !== 1) continue;
    const a2 = [...a.word][1];
    const [c1] = [...c.word];
    if (chars(a.word) === 2 && chars(c.word) === 2 && a2 === b.word && c1 === b.word) {
      lexemes.add(`${a.word} ${b.word} ${c.word}`);
    }
  }
  return lexemesLiteral(lexemes, quoteLexeme);
}

function termQuery(term: SearchTerm): string {
  const words = withTermOperators(term, termPhrase(term).map(quoteLexeme));
  return words.length === 1 ? words[0]! : `(${words.join(" <-> ")})`;
}

/** The OR of `terms` as tsquery text (a phrase's words in order, `<->`); one term as itself. */
export function anyOf(terms: readonly SearchTerm[]): string {
  const parts = terms.map(termQuery);
  return parts.length === 1 ? parts[0]! : `(${parts.join(" | ")})`;
}

/**
 * The tsquery literal (cast with `::tsquery`) for a parsed query, or null when it matches nothing.
 *
 * @example
 * toTsquery(parseSearchQuery('a b OR c -"d e"')); // "'a' & ('b' | 'c') & !('d' <-> 'e')"
 */
export function toTsquery(query: SearchQuery): string | null {
  const clauses = query.clauses.filter((c) => c.length > 0);
  if (clauses.length === 0) return null;
  const positive = clauses.map(anyOf).join(" & ");
  if (query.excluded.length === 0) return positive;
  return `${positive} & !${anyOf(query.excluded)}`;
}

/**
 * Relevance: ts_rank over the title and feed name words only (`rank_vector`, title above feed
 * name), plus a small share for a body match that shrinks with the body's length, so that a short
 * title match outranks a word deep in a long post. Ranking reads a few bytes per match instead of
 * each match's whole vector. Always positive (spec §4): the body share never reaches zero.
 */
export const SEARCH_SCORE =
  "(ts_rank('{0.25, 0.25, 0.5, 1.0}', p.rank_vector, $1::tsquery, 0)::float8 + 0.1 / (2 + ln(1 + coalesce(p.body_length, 0))))";
