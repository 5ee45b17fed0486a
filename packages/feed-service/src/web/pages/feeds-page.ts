/** `/feeds`: every feed with its category, language, post count and last post. */
import { formatCount, timeElement } from "../display-format.js";
import { html } from "../html.js";
import { languagesById } from "../list-controls.js";
import { callOperation, type PageRenderer } from "../page-context.js";
import { outputFeedLinks, pageDocument } from "../page-layout.js";
import { feedView, languageView } from "../record-views.js";

export const feedsPage: PageRenderer = async (_request, context) => {
  const [feedRecords, languageRecords] = await Promise.all([
    callOperation(context, "getFeeds", {}),
    callOperation(context, "getLanguages", {}),
  ]);
  const feeds = feedRecords.map(feedView);
  const languages = languagesById(languageRecords.map(languageView));
  const rows = feeds.map((f) => {
    const language = languages.get(f.languageId);
    return html`<tr>
<th scope="row"><a href="/feeds/${f.feedId}">${f.feedName}</a></th>
<td>${f.categoryId !== null && f.categoryName !== null ? html`<a href="/categories/${f.categoryId}">${f.categoryName}</a>` : html`<span class="muted">none</span>`}</td>
<td>${language ? html`<abbr title="${language.languageName}">${language.languageCode}</abbr>` : ""}</td>
<td class="number">${formatCount(f.postCount)}</td>
<td>${timeElement(f.lastPostDate, context.now)}</td>
</tr>`;
  });
  return {
    body: pageDocument(
      {
        title: "Feeds",
        section: "feeds",
        feeds: outputFeedLinks("Recent posts", "/feeds/recent"),
        main: html`<h1>Feeds</h1>
<p>${formatCount(feeds.length)} feeds, by name.</p>
${
  feeds.length === 0
    ? html`<p class="empty">No feeds yet.</p>`
    : html`<div class="table-scroll"><table class="feeds">
<thead><tr><th scope="col">Feed</th><th scope="col">Category</th><th scope="col">Language</th><th scope="col" class="number">Posts</th><th scope="col">Last post</th></tr></thead>
<tbody>
${rows}
</tbody>
</table></div>`
}`,
      },
      context,
    ),
  };
};
