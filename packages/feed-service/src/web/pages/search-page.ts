/**
 * `/search?q=…&sort=…&lang=…&page=N`: search results with the matched words highlighted by the
 * search analyzer (highlight.ts), how many posts match, the sort and language choices; beside
 * them the recent searches and the search syntax. Without `q` it shows the form, the recent
 * searches and the syntax only: an empty box is not an error.
 */
import { type SearchMatchCount, searchCountBound } from "../../operations/page-reads.js";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { formatCount, plural } from "../display-format.js";
import { highlight, queryPhrases } from "../highlight.js";
import { type Html, html } from "../html.js";
import { languageFilter, languagesById, pager, pageSize, pageUrl } from "../list-controls.js";
import { readLanguageFilter, readPageNumber, selectedLanguageIds } from "../page-arguments.js";
import { callOperation, type PageContext, type PageRenderer } from "../page-context.js";
import { outputFeedLinks, pageDocument } from "../page-layout.js";
import { alsoInOf, postList } from "../post-list.js";
import { languageView, postView } from "../record-views.js";
import { queryView } from "../search-query-view.js";
import { recentSearches, searchTips, sideColumn } from "../side-column.js";

const sorts: ReadonlyArray<readonly [string, string]> = [
  ["relevance", "Best match"],
  ["date", "Newest"],
  ["clicks", "Most read"],
];

function sortChoice(selected: string): Html {
  const options = sorts.map(
    ([value, label]) =>
      html`<option value="${value}"${value === selected ? html` selected` : ""}>${label}</option>`,
  );
  return html`<label class="sort">Sort by <select name="sort">${options}</select></label>`;
}

/** "1 post matches", "1,234 posts match", "More than 10,000 posts match". */
function matchCount(matches: SearchMatchCount): string {
  if (!matches.exact) return `More than ${plural(matches.count, "post")} match`;
  return `${plural(matches.count, "post")} ${matches.count === 1 ? "matches" : "match"}`;
}

/**
 * How many posts match. A page that ends the list says it without a count: every match came
 * before or on it (relevance too, which ranks every match up to 10,000). Only a full page, or one
 * past the end, asks the store: that count walks the hits again, and in a language filter that
 * keeps few of a common word's hits the walk is as long as the search's own, so it is not spent
 * where the page already knows.
 */
async function matchesOf(
  context: PageContext,
  search: { q: string; lang: string },
  offset: number,
  found: number,
): Promise<SearchMatchCount> {
  const onThisPage = Math.min(found, pageSize);
  if (found <= pageSize && onThisPage > 0 && offset + onThisPage < searchCountBound) {
    return { count: offset + onThisPage, exact: true };
  }
  if (offset === 0 && found === 0) return { count: 0, exact: true };
  return context.runner.pageReads.countSearchMatches({ searchTerms: search.q, languageIds: search.lang });
}

export const searchPage: PageRenderer = async (request, context) => {
  const q = request.query.get("q") ?? "";
  const sort = (request.query.get("sort") ?? "").trim().toLowerCase();
  const page = readPageNumber(request.query);
  const lang = readLanguageFilter(request.query);
  if (q.trim() === "") {
    return {
      cacheable: false,
      body: pageDocument(
        {
          title: "Search",
          section: "search",
          main: html`<h1>Search</h1>
<div class="with-aside">
<div class="main-column">
<p>Words are matched whole, in any case and with or without accents; Chinese, Japanese and Korean words are found anywhere inside a run of their characters (<code>東京</code> finds 東京都); <code>"a phrase"</code> keeps words together, <code>-word</code> leaves posts out, <code>OR</code> offers alternatives; <code>title:</code>, <code>feed:</code>, <code>lang:</code>, <code>after:</code>, <code>before:</code> and <code>word*</code> narrow the search (see the tips).</p>
${await recentSearches(context, 20)}
</div>
${sideColumn("Searching", [searchTips()])}
</div>`,
        },
        context,
      ),
    };
  }

  // The calls are independent: the recent searches may come without this one, which the box
  // shows anyway.
  const [records, recent, languageRecords] = await Promise.all([
    callOperation(context, "search", {
      limit: pageSize + 1,
      offset: (page - 1) * pageSize,
      searchTerms: q,
      sortBy: sort,
      languageIds: lang,
    }),
    recentSearches(context),
    callOperation(context, "getLanguages", {}),
  ]);
  const languages = languageRecords.map(languageView);
  const filter = (hidden: Record<string, string>) =>
    languageFilter({
      path: "/search",
      languages,
      selected: selectedLanguageIds(lang),
      hidden,
      extra: sortChoice(sort || "relevance"),
    });

  const phrases = queryPhrases(parseSearchQuery(q));
  const posts = records.slice(0, pageSize).map(postView);
  const keep = { q, sort: sort === "" || sort === "relevance" ? undefined : sort, lang };
  const first = (page - 1) * pageSize + 1;
  const matches = await matchesOf(context, { q, lang }, first - 1, records.length);
  const summary =
    posts.length === 0
      ? page === 1
        ? "No post matches."
        : `${matchCount(matches)}; no more on this page.`
      : `${matchCount(matches)} · showing ${formatCount(first)}–${formatCount(first + posts.length - 1)}`;
  // Spec §4: past 10,000 matches, relevance ranks the newest 10,000 only; the other orders see all.
  const rankedOnly =
    !matches.exact && (sort === "" || sort === "relevance")
      ? html`<p class="note">Best match ranks the ${formatCount(matches.count)} newest of them; <a href="${pageUrl("/search", { ...keep, sort: "date" })}">sort by newest</a> to page through every one.</p>`
      : "";
  const feedQuery = new URLSearchParams({ q, ...(lang === "" ? {} : { languageIds: lang }) }).toString();
  return {
    cacheable: false,
    body: pageDocument(
      {
        title: `Search: ${q}`,
        section: "search",
        searchText: q,
        feeds: outputFeedLinks(`Search: ${q}`, "/feeds/search", feedQuery),
        main: html`<h1>Search: <q class="query">${queryView(q)}</q></h1>
<div class="with-aside">
<div class="main-column">
${filter({ q })}
<p class="summary" role="status">${summary}</p>
${rankedOnly}
${postList(posts, {
  now: context.now,
  alsoIn: await alsoInOf(context, records.slice(0, pageSize)),
  languages: languagesById(languages),
  mark: (text) => highlight(text, phrases),
  emptyText: "Try fewer words, another spelling, or every language.",
})}
${pager({ path: "/search", page, hasMore: records.length > pageSize, keep })}
</div>
${sideColumn("Searching", [recent, searchTips()])}
</div>`,
      },
      context,
    ),
  };
};
