/**
 * What the SQLite store writes into its full-text index (posts_fts): for each column the search
 * analyzer's tokens (search/text-analyzer.ts) joined by spaces. The FTS5 table reads them with the
 * `ascii` tokenizer, which splits at ASCII spaces and punctuation, keeps every non-ASCII character
 * as it is and only lower-cases ASCII letters (https://sqlite.org/fts5.html#ascii_tokenizer). The
 * analyzer's tokens hold no ASCII punctuation or space and are already lower-cased, so each token
 * comes back intact: the index holds exactly the tokens PostgreSQL's vectors hold, and a query
 * phrase quoted for MATCH splits into exactly the tokens the parser produced.
 */
import { analyzeText } from "../../search/text-analyzer.js";
import { htmlToIndexText } from "../index-text.js";

/** The tokenizer of posts_fts since schema version 9. */
export const FTS5_TOKENIZER = "ascii";

export const FTS5_INSERT = "INSERT INTO posts_fts (rowid, title, body, feed_name) VALUES (?, ?, ?, ?)";

/** The tokens of a text, ready for an FTS5 column. */
export function indexTokens(text: string): string {
  return analyzeText(text).join(" ");
}

/**
 * The values of FTS5_INSERT for a post: the body is the excerpt and the content's text.
 *
 * @example
 * fts5IndexRow(7, "東京の天気", "Sunny", "<p>Warm</p>", "Météo");
 * // [7, "東 東京 京 の 天 天気 気", "sunny warm", "meteo"]
 */
export function fts5IndexRow(
  id: number | bigint,
  title: string,
  excerpt: string,
  content: string,
  feedName: string,
): [number | bigint, string, string, string] {
  return [
    id,
    indexTokens(title),
    indexTokens(`${excerpt} ${htmlToIndexText(content)}`),
    indexTokens(feedName),
  ];
}
