/**
 * What every format adapter produces: the fields the service keeps, still raw (relative URLs,
 * date strings, unsanitised HTML). The normaliser turns this into posts.
 */
export type FeedFormat = "rss" | "atom" | "rdf" | "json";

export interface ParsedEntry {
  /** guid / id as written in the document. */
  guid: string | null;
  link: string | null;
  /** Title as plain text with entities already decoded once. */
  title: string | null;
  /** Full content as HTML (text content escaped into HTML). */
  contentHtml: string | null;
  /** Summary/description as HTML. */
  summaryHtml: string | null;
  author: string | null;
  published: string | null;
  updated: string | null;
  /** Declared language of the entry (xml:lang, dc:language, JSON `language`). */
  language: string | null;
  /** xml:base in effect on the entry, if the document said one. */
  base: string | null;
  /** The link the entry declares canonical (atom:link rel="canonical"), as written. */
  canonicalLink?: string | null;
}

export interface ParsedFeed {
  format: FeedFormat;
  title: string | null;
  siteUrl: string | null;
  description: string | null;
  language: string | null;
  /** The feed's own URL as the document declares it (atom:link rel=self, JSON feed_url). */
  selfUrl: string | null;
  /** WebSub hubs the document names (atom:link rel=hub, JSON Feed `hubs`), as written. */
  hubs?: string[];
  base: string | null;
  entries: ParsedEntry[];
}
