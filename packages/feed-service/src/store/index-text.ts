/**
 * The plain text of a post's sanitised HTML, for the full-text index: tags become spaces (so
 * `<p>a</p><p>b</p>` is two words, not `ab`), entities are decoded, script and style bodies are
 * dropped. Content reaching the store is already sanitised by ingest, so this needs no full HTML
 * parser; it runs once per stored post and must stay cheap (a million posts in the demo corpus).
 */
import { analyzeText } from "../search/text-analyzer.js";

const namedEntities: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
};

function decodeEntity(match: string, body: string): string {
  if (body[0] === "#") {
    const cp =
      body[1] === "x" || body[1] === "X" ? Number.parseInt(body.slice(2), 16) : Number(body.slice(1));
    return Number.isInteger(cp) && cp > 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp < 0xe000)
      ? String.fromCodePoint(cp)
      : " ";
  }
  return namedEntities[body] ?? match;
}

/**
 * @example
 * htmlToIndexText("<p>Caf&eacute; &amp; <b>crème</b></p>"); // " Caf&eacute; &  crème  "
 */
export function htmlToIndexText(html: string): string {
  if (!html.includes("<") && !html.includes("&")) return html;
  return html
    .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, " ")
    .replace(/<!--[\s\S]*?-->/g, " ")
    .replace(/<[^>]*>/g, " ")
    .replace(/&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z]{2,8});/g, decodeEntity);
}

/** A post's searched text as the analyzer's tokens (search/text-analyzer.ts), each field space-separated. */
export interface PostIndexText {
  /** The title's tokens. */
  readonly title: string;
  /** The tokens of the excerpt and of the content's text. */
  readonly body: string;
}

/**
 * The tokens a post is searched by, which the stores index (SQLite's posts_fts columns hold them
 * as they are). Ingest computes them on its parse worker, beside the parse, so that the thread
 * writing to the database does not run the analyzer over every new post's text.
 *
 * @example
 * postIndexText({ title: "Café", excerpt: "Hello", content: "<p>World</p>" }); // { title: "cafe", body: "hello world" }
 */
export function postIndexText(post: { title: string; excerpt: string; content: string }): PostIndexText {
  return {
    title: analyzeText(post.title).join(" "),
    body: analyzeText(`${post.excerpt} ${htmlToIndexText(post.content)}`).join(" "),
  };
}
