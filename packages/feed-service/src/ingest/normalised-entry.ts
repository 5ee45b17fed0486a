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
}
