/**
 * The document around every page: head (title, viewport, colour schemes, stylesheet, favicon,
 * OpenSearch, feed autodiscovery), the header with navigation and the search box, and the
 * deferred script that adds keyboard shortcuts. The script only adds to a page that already works
 * without it; no inline script or style anywhere, so the Content-Security-Policy can forbid both.
 */
import { type Html, type HtmlValue, html } from "./html.js";
import type { PageContext } from "./page-context.js";

/** A `<link rel="alternate">` to an output feed (spec §5.2) or a source feed. */
export interface FeedLink {
  readonly title: string;
  /** One of this site's output feeds: its title leads with the site's name, as the feed's own does. */
  readonly ours?: boolean;
  readonly href: string;
  readonly type: "application/rss+xml" | "application/atom+xml" | "application/feed+json";
}

/** RSS, Atom and JSON Feed versions of one output feed path (without extension), spec §5.2. */
export function outputFeedLinks(title: string, pathWithoutExtension: string, query = ""): FeedLink[] {
  const q = query === "" ? "" : `?${query}`;
  return [
    {
      title: `${title} (RSS)`,
      href: `${pathWithoutExtension}.rss${q}`,
      type: "application/rss+xml",
      ours: true,
    },
    {
      title: `${title} (Atom)`,
      href: `${pathWithoutExtension}.atom${q}`,
      type: "application/atom+xml",
      ours: true,
    },
    {
      title: `${title} (JSON Feed)`,
      href: `${pathWithoutExtension}.json${q}`,
      type: "application/feed+json",
      ours: true,
    },
  ];
}

export type Section =
  | "recent"
  | "popular"
  | "categories"
  | "smart"
  | "feeds"
  | "languages"
  | "search"
  | "none";

const sections: ReadonlyArray<readonly [Exclude<Section, "search" | "none">, string, string]> = [
  ["recent", "/", "Recent"],
  ["popular", "/popular", "Popular"],
  ["categories", "/categories", "Categories"],
  ["smart", "/smart-categories", "Smart categories"],
  ["feeds", "/feeds", "Feeds"],
  ["languages", "/languages", "Languages"],
];

export interface PageFrame {
  readonly title: string;
  readonly section: Section;
  readonly feeds?: readonly FeedLink[];
  /** The search box's text (the search page shows the query it answers). */
  readonly searchText?: string;
  readonly main: HtmlValue;
}

/** The whole document of one page. */
export function pageDocument(frame: PageFrame, context: PageContext): Html {
  const { assets, siteName } = context;
  const nav = sections.map(
    ([id, href, label]) =>
      html`<li><a href="${href}"${id === frame.section ? html` aria-current="page"` : ""}>${label}</a></li>`,
  );
  const alternates = (frame.feeds ?? []).map(
    (f) =>
      html`<link rel="alternate" type="${f.type}" title="${f.ours ? `${siteName} — ${f.title}` : f.title}" href="${f.href}">`,
  );
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${frame.title} · ${siteName}</title>
<link rel="stylesheet" href="${assets.stylesheet}">
<link rel="icon" type="image/svg+xml" href="${assets.favicon}">
<link rel="search" type="application/opensearchdescription+xml" title="${siteName}" href="/opensearch.xml">
${alternates}
<script src="${assets.script}" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="site">
<a class="brand" href="/">${siteName}</a>
<nav aria-label="Sections"><ul>${nav}</ul></nav>
<form class="search-box" role="search" method="get" action="/search">
<label for="search-q" class="visually-hidden">Search posts</label>
<input id="search-q" type="search" name="q" value="${frame.searchText ?? ""}" placeholder="Search posts" maxlength="256" accesskey="s">
<button type="submit">Search</button>
</form>
</header>
<main id="main">
${frame.main}
</main>
<footer class="site">
<p>Read without an account. Feeds: <a href="/feeds/recent.rss">RSS</a> · <a href="/feeds/recent.atom">Atom</a> · <a href="/feeds/recent.json">JSON Feed</a> · <a href="/api/docs">JSON API</a> · <a href="/webservices/FeedAggregator?wsdl">SOAP</a> · <a href="/suggest">Suggest a feed</a><span class="js-only"> · Press <kbd>?</kbd> for keyboard shortcuts</span></p>
</footer>
</body>
</html>
`;
}
