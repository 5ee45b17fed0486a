/**
 * `/opensearch.xml`: the OpenSearch 1.1 description that lets browsers add the site's search
 * (https://github.com/dewitt/opensearch/blob/master/opensearch-1-1-draft-6.md): the results page
 * and the search feeds (spec §5.2) as URL templates under the service's base URL. The terms go
 * through as typed, so the search operators of spec §4 (`title:`, `feed:`, `lang:`, `after:`,
 * `before:`, `word*`) work from a browser's search box too; an example query shows them.
 */
import { escapeHtml } from "./html.js";

export const openSearchContentType = "application/opensearchdescription+xml; charset=utf-8";

/** @example openSearchDescription("https://feeds.example.org", "/assets/favicon.svg", "Planet Node") */
export function openSearchDescription(baseUrl: string, faviconPath: string, siteName: string): string {
  // XML escaping of attribute values is the same as HTML's for these five characters.
  const base = escapeHtml(baseUrl);
  // OpenSearch 1.1 caps ShortName at 16 characters and LongName at 48.
  const shortName = [...siteName].slice(0, 16).join("").trim();
  return `<?xml version="1.0" encoding="UTF-8"?>
<OpenSearchDescription xmlns="http://a9.com/-/spec/opensearch/1.1/" xmlns:moz="http://www.mozilla.org/2006/browser/search/">
<ShortName>${escapeHtml(shortName)}</ShortName>
<LongName>${escapeHtml([...siteName].slice(0, 48).join(""))}</LongName>
<Description>Search the posts of every feed ${escapeHtml(siteName)} reads</Description>
<InputEncoding>UTF-8</InputEncoding>
<Image width="16" height="16" type="image/svg+xml">${base}${escapeHtml(faviconPath)}</Image>
<Url type="text/html" method="get" template="${base}/search?q={searchTerms}"/>
<Url type="application/rss+xml" template="${base}/feeds/search.rss?q={searchTerms}"/>
<Url type="application/atom+xml" template="${base}/feeds/search.atom?q={searchTerms}"/>
<Url type="application/opensearchdescription+xml" rel="self" template="${base}/opensearch.xml"/>
<Query role="example" searchTerms="release title:postgre* after:2026-01-01"/>
<moz:SearchForm>${base}/search</moz:SearchForm>
</OpenSearchDescription>
`;
}
