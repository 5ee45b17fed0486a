/**
 * The side column of the home and search pages on a desktop (below the posts on a phone): what a
 * newcomer looks for next — the recent searches, the categories, and the feeds that wrote the most
 * this week. Each section is one operation call (the pages' record cache serves repeats) and is
 * left out when it has nothing to show.
 */
import { formatCount, plural, timeElement } from "./display-format.js";
import { type Html, type HtmlValue, html } from "./html.js";
import { pageUrl } from "./list-controls.js";
import { callOperation, type PageContext } from "./page-context.js";
import { categoryView, feedView, searchHistoryView } from "./record-views.js";

/** Rows each section shows at most: the column is a glance, every list has its own page. */
const sectionRows = 8;
const busiestDays = 7;

function section(id: string, title: string, body: HtmlValue, more?: Html): Html {
  return html`<section class="side-section" aria-labelledby="${id}-heading">
<h2 id="${id}-heading">${title}</h2>
${body}${more ?? ""}
</section>`;
}

/** The recent searches (operation 14), newest first, each a link that runs it again. */
export async function recentSearches(context: PageContext, rows = sectionRows): Promise<Html> {
  const history = (await callOperation(context, "getSearchHistory", {}))
    .map(searchHistoryView)
    .slice(0, rows);
  if (history.length === 0) return html``;
  return section(
    "recent-searches",
    "Recent searches",
    html`<ul class="side-list recent-searches">${history.map((h) => html`<li><a href="${pageUrl("/search", { q: h.searchTerms })}">${h.searchTerms}</a> <span class="meta">${timeElement(h.lastSearched, context.now)}</span></li>`)}</ul>`,
  );
}

/** The categories by name (operation 7), with their feed counts. */
export async function categorySection(context: PageContext): Promise<Html> {
  const all = (await callOperation(context, "getCategories", {})).map(categoryView);
  if (all.length === 0) return html``;
  const shown = all.slice(0, sectionRows);
  return section(
    "side-categories",
    "Categories",
    html`<ul class="side-list">${shown.map((c) => html`<li><a href="/categories/${c.categoryId}">${c.categoryName}</a> <span class="meta">${plural(c.feedCount, "feed")}</span></li>`)}</ul>`,
    all.length > shown.length
      ? html`<p class="more"><a href="/categories">All ${formatCount(all.length)} categories</a></p>`
      : undefined,
  );
}

/** The feeds with the most posts in the last week (operation 11). */
export async function busiestFeeds(context: PageContext): Promise<Html> {
  const feeds = await callOperation(context, "getMostProlificFeeds", {
    daysBack: busiestDays,
    limit: sectionRows,
  });
  if (feeds.length === 0) return html``;
  return section(
    "busiest-feeds",
    "Busiest feeds this week",
    html`<ol class="side-list">${feeds.map((record) => {
      const f = feedView(record);
      return html`<li><a href="/feeds/${f.feedId}">${f.feedName}</a> <span class="meta">${plural(Number(record.periodPosts), "post")}</span></li>`;
    })}</ol>`,
    html`<p class="more"><a href="/feeds">Every feed</a></p>`,
  );
}

/** The search syntax the parser reads (search/parse-search-query.ts), in brief. */
export function searchTips(): Html {
  return section(
    "search-tips",
    "Search tips",
    html`<dl class="tips">
<dt><code>rust tokio</code></dt><dd>posts with both words</dd>
<dt><code>"a phrase"</code></dt><dd>words together, in this order</dd>
<dt><code>-word</code></dt><dd>leaves posts with it out</dd>
<dt><code>rust OR go</code></dt><dd>either word</dd>
<dt><code>東京</code></dt><dd>also inside longer runs, as in 東京都</dd>
<dt><code>postgre<span class="operator">*</span></code></dt><dd>words that begin with it (3 letters or more)</dd>
<dt><code><span class="operator">title:</span>release</code></dt><dd>in titles only; <code><span class="operator">title:</span>"a phrase"</code> too</dd>
<dt><code><span class="operator">feed:</span>name</code></dt><dd>feeds whose name holds the word; <code><span class="operator">-feed:</span>name</code> leaves them out</dd>
<dt><code><span class="operator">lang:</span>de,fr</code></dt><dd>posts in these languages</dd>
<dt><code><span class="operator">after:</span>2026-01-31</code></dt><dd>posted on that UTC day or later; <code><span class="operator">before:</span></code> on it or earlier</dd>
</dl>
<p class="more">Titles, excerpts, post text and feed names are searched, in any case and with or without accents.</p>`,
  );
}

/** The column itself: the sections given, in order. */
export function sideColumn(label: string, sections: readonly Html[]): Html {
  return html`<aside class="side" aria-label="${label}">
${sections}
</aside>`;
}
