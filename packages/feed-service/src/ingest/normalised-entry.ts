import type { StoryKeys } from "../dedupe/story-keys.js";
import type { PostIndexText } from "../store/index-text.js";

/** A normalised entry: what the orchestrator hands to the store, before its language is resolved. */
export interface NormalisedEntry {
  /** guid, else link, else `sha256:<hash of title and content>`. */
  identity: string;
  /** Absolute http(s) URL of the entry, or null when it has none. */
  link: string | null;
  /** Absolute http(s) URL the entry declares canonical (rel="canonical"), or null. */
  canonicalLink?: string | null;
  /** Plain text, decoded once. */
  title: string;
  /** Plain text, at most 500 characters. */
  excerpt: string;
  /** Sanitised HTML with absolute URLs. */
  content: string;
  author: string | null;
  publishedAt: number | null;
  updatedAt: number | null;
  /** The language tag the entry or feed declares, if any. */
  declaredLanguage: string | null;
  /** The tag to store: the declared one in BCP 47 form, else a guess from the text, else `und`. */
  language: string;
  /**
   * Its story keys (src/dedupe/story-keys.ts) over `entryStoryLink`, title and excerpt, computed
   * where the entry was parsed (a parse worker), so that the thread writing to the store does
   * not hash its text.
   */
  storyKeys?: StoryKeys;
  /** The tokens it is searched by (`postIndexText`), computed where it was parsed, like `storyKeys`. */
  indexText?: PostIndexText;
}

/**
 * The link that names the entry's story: the one it declares canonical, else its own link (a
 * fallback such as the site's home page is never one).
 *
 * @example
 * entryStoryLink({ link: "https://x.org/1?utm_source=a", canonicalLink: null }); // -> "https://x.org/1?utm_source=a"
 */
export function entryStoryLink(entry: Pick<NormalisedEntry, "link" | "canonicalLink">): string | null {
  return entry.canonicalLink ?? entry.link;
}
