/**
 * What the SQLite store writes into its full-text index (posts_fts): for each column the search
 * analyzer's tokens (search/text-analyzer.ts) joined by spaces. The FTS5 table reads them with the
 * `ascii` tokenizer, which splits at ASCII spaces and punctuation, keeps every non-ASCII character
 * as it is and only lower-cases ASCII letters (https://sqlite.org/fts5.html#ascii_tokenizer). The
 * analyzer's tokens hold no ASCII punctuation or space and are already lower-cased, so each token
 * comes back intact: the index holds exactly the tokens PostgreSQL's vectors hold, and a query
 * phrase quoted for MATCH splits into exactly the tokens the parser produced.
 *
 * Since schema version 14 the rowid is the post's date key (sqlite-date-keys.ts) and a fourth
 * column holds one token naming the post's language, so a language filter is part of the MATCH
 * (`languageMatch`). The token starts with a private-use character, which the analyzer never
 * emits (it keeps letters, digits and marks), so no search term can match it.
 *
 * Since schema version 28 a fifth column, title_words, holds the title's tokens again, each behind
 * another private-use character, so that `title:w` is the phrase of the marked token: a posting
 * list of the titles alone, where FTS5's column filter `{title} :` reads the word's whole list,
 * body positions included, and keeps the title's after reading each post's positions. The scorer
 * weighs the column as the title and leaves it out of the lengths (WEIGHTS, native/sampled_bm25.c),
 * so the scores are those of the four columns alone.
 */
import { analyzeText } from "../../search/text-analyzer.js";
import { type PostIndexText, postIndexText } from "../index-text.js";

/** The tokenizer of posts_fts since schema version 9. */
export const FTS5_TOKENIZER = "ascii";

export const FTS5_INSERT =
  "INSERT INTO posts_fts (rowid, title, body, feed_name, language, title_words) VALUES (?, ?, ?, ?, ?, ?)";

/** Removes a post's row (its date key); a refresh holds it back with the inserts (sqlite-index-write-hold.ts). */
export const FTS5_DELETE = "DELETE FROM posts_fts WHERE rowid = ?";

/** The columns of a post's text (posts_fts's of schema version 14, posts_feed_fts's). */
export const FTS5_TEXT_COLUMNS = "title, body, feed_name, language";

/** The columns of posts_fts since schema version 28, for CREATE VIRTUAL TABLE. */
export const FTS5_COLUMNS = `${FTS5_TEXT_COLUMNS}, title_words`;

/** A post's values for FTS5_INSERT: its key, then one string of tokens per column. */
export type IndexRow = [number | bigint, string, string, string, string, string];

/** The private-use character before each token of the title_words column. */
const TITLE_WORD_MARK = "\uE002";

/** The title_words token of a title token. */
export function titleWordToken(token: string): string {
  return TITLE_WORD_MARK + token;
}

/** The title_words column of a title column's tokens. */
function titleWords(tokens: string): string {
  // One pass, as feedIndexRow's prefixes: ingest writes this for every post.
  return tokens === "" ? "" : TITLE_WORD_MARK + tokens.replaceAll(" ", ` ${TITLE_WORD_MARK}`);
}

/** The index token of a language id. */
export function languageToken(languageId: number): string {
  return `\uE000${languageId}`;
}

/**
 * The MATCH clause of "in one of these languages", to AND with a query's own (its phrases come
 * after the query's, so they are numbered last); `prefix` as toFts5Match's.
 *
 * @example
 * languageMatch([1, 3]); // '("\uE0001" OR "\uE0003")'
 */
export function languageMatch(languageIds: readonly number[], prefix = ""): string {
  const tokens = [...new Set(languageIds)].map((id) => `"${prefix}${languageToken(id)}"`);
  return tokens.length === 1 ? tokens[0]! : `(${tokens.join(" OR ")})`;
}

/** The tokens of a text, ready for an FTS5 column. */
export function indexTokens(text: string): string {
  return analyzeText(text).join(" ");
}

/**
 * The values of FTS5_INSERT for a post (`id` its date key): the body is the excerpt and the content's
 * text. `text`, when given, is `postIndexText` of the same title, excerpt and content, computed
 * already (by ingest's parse worker).
 *
 * @example
 * fts5IndexRow(7, "東京の天気", "Sunny", "<p>Warm</p>", "Météo", 1);
 * // [7, "東 東京 京 の 天 天気 気", "sunny warm", "meteo", "\uE0001", "\uE002東 \uE002東京 \uE002京 ..."]
 */
export function fts5IndexRow(
  id: number | bigint,
  title: string,
  excerpt: string,
  content: string,
  feedName: string,
  languageId: number,
  text: PostIndexText = postIndexText({ title, excerpt, content }),
): IndexRow {
  return [
    id,
    text.title,
    text.body,
    indexTokens(feedName),
    languageToken(languageId),
    titleWords(text.title),
  ];
}
