/**
 * Rows as COPY's text format (PostgreSQL manual, COPY, "Text Format"): one line a row, fields
 * apart by tabs, `\N` for null, backslash, newline, carriage return and tab escaped. A post's line
 * also carries its `search_vector` and `phrase_vector` literals (postgres-text-search.ts), which
 * the server reads as it reads them from an INSERT.
 */
import type { Row } from "../copied-tables.js";
import { htmlToIndexText } from "../index-text.js";
import { postColumns, postVectors } from "./postgres-text-search.js";

const POST_ID = 0;
const POST_FEED = 1;
const POST_TITLE = 4;
const POST_EXCERPT = 5;
const POST_CONTENT = 6;

const specials = /[\\\n\r\t]/g;
const escapes: Record<string, string> = { "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/**
 * One field in COPY text format.
 *
 * @example
 * copyField("a\tb"); // "a\\tb"
 * copyField(null); // "\\N"
 */
export function copyField(value: unknown): string {
  if (value === null || value === undefined) return "\\N";
  if (typeof value === "string") return value.replace(specials, (c) => escapes[c]!);
  if (typeof value === "boolean") return value ? "t" : "f";
  return String(value);
}

/** The rows as COPY text lines, values in the order of the COPY's column list. */
export function copyLines(rows: readonly Row[]): string {
  let out = "";
  for (const row of rows) out += `${row.map(copyField).join("\t")}\n`;
  return out;
}

/**
 * Posts as COPY text lines with their search vectors after the copied columns (`search_vector`,
 * `phrase_vector`), each post's text analysed as the store's writers analyse it. Given `unranked`,
 * each line also carries the post's `rank_vector` and `body_length` (postColumns), null
 * where only the server's trigger can tell them, whose ids are added to `unranked`.
 */
export function postCopyLines(
  rows: readonly Row[],
  feedNames: ReadonlyMap<number, string>,
  unranked?: number[],
): string {
  let out = "";
  for (const row of rows) {
    const feedName = feedNames.get(Number(row[POST_FEED])) ?? "";
    const body = `${row[POST_EXCERPT]} ${htmlToIndexText(String(row[POST_CONTENT]))}`;
    if (unranked === undefined) {
      const vectors = postVectors(feedName, String(row[POST_TITLE]), body);
      out += `${row.map(copyField).join("\t")}\t${copyField(vectors.words)}\t${copyField(vectors.pairs)}\n`;
      continue;
    }
    const { words, pairs, rank, bodyLength } = postColumns(feedName, String(row[POST_TITLE]), body);
    const ranks = rank === null ? "\\N\t\\N" : `${copyField(rank)}\t${bodyLength}`;
    if (rank === null) unranked.push(Number(row[POST_ID]));
    out += `${row.map(copyField).join("\t")}\t${copyField(words)}\t${copyField(pairs)}\t${ranks}\n`;
  }
  return out;
}
