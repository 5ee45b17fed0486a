/** `/`: the most recent posts, paged (`?page=N`), with the language filter (`?lang=1,2`). */
import { html } from "../html.js";
import { languageFilter, languagesById, pager, pageSize } from "../list-controls.js";
import { readLanguageFilter, readPageNumber, selectedLanguageIds } from "../page-arguments.js";
import { callOperation, type PageRenderer } from "../page-context.js";
import { outputFeedLinks, pageDocument } from "../page-layout.js";
import { alsoInOf, postList } from "../post-list.js";
import { languageView, postView } from "../record-views.js";
import { busiestFeeds, categorySection, recentSearches, sideColumn } from "../side-column.js";

export const recentPage: PageRenderer = async (request, context) => {
  const page = readPageNumber(request.query);
  const lang = readLanguageFilter(request.query);
  // One post more than a page says whether an older page exists.
  const [records, languageRecords, ...side] = await Promise.all([
    callOperation(context, "getMostRecentPosts", {
      limit: pageSize + 1,
      offset: (page - 1) * pageSize,
      languageIds: lang,
    }),
    callOperation(context, "getLanguages", {}),
    recentSearches(context),
    categorySection(context),
    busiestFeeds(context),
  ]);
  const posts = records.slice(0, pageSize).map(postView);
  const languages = languageRecords.map(languageView);
  const feedQuery = lang === "" ? "" : `languageIds=${lang}`;
  return {
    body: pageDocument(
      {
        title: page === 1 ? "Recent posts" : `Recent posts, page ${page}`,
        section: "recent",
        feeds: outputFeedLinks("Recent posts", "/feeds/recent", feedQuery),
        main: html`<h1>Recent posts</h1>
<div class="with-aside">
<div class="main-column">
${languageFilter({ path: "/", languages, selected: selectedLanguageIds(lang) })}
${postList(posts, { now: context.now, languages: languagesById(languages), alsoIn: await alsoInOf(context, records.slice(0, pageSize)) })}
${pager({ path: "/", page, hasMore: records.length > pageSize, keep: { lang } })}
</div>
${sideColumn("More to read", side)}
</div>`,
      },
      context,
    ),
  };
};
