/** `/feeds`: every feed with its category, language, post count and last post. */

import type { FeedFailureRecord } from "../../store/store.js";
import { formatCount, plural, timeElement } from "../display-format.js";
import { failureSummary } from "../feed-failure-notice.js";
import { type Html, html } from "../html.js";
import { languagesById } from "../list-controls.js";
import { callOperation, type PageRenderer } from "../page-context.js";
import { outputFeedLinks, pageDocument } from "../page-layout.js";
import { feedView, languageView } from "../record-views.js";

/** A small "not updating" label beside a failing feed's name; its page says since when and why. */
function failureMarker(failure: FeedFailureRecord | undefined): Html | "" {
  if (!failure) return "";
  return html` <span class="badge failing" title="${failureSummary(failure)}">not updating</span>`;
}

export const feedsPage: PageRenderer = async (_request, context) => {
  const [feedRecords, languageRecords, failing] = await Promise.all([
    callOperation(context, "getFeeds", {}),
    callOperation(context, "getLanguages", {}),
    context.runner.pageReads.failingFeeds(),
  ]);
  const feeds = feedRecords.map(feedView);
  const languages = languagesById(languageRecords.map(languageView));
  const rows = feeds.map((f) => {
    const language = languages.get(f.languageId);
    return html`<tr>
<th scope="row"><a href="/feeds/${f.feedId}">${f.feedName}</a>${failureMarker(failing.get(f.feedId))}</th>
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
<p>${formatCount(feeds.length)} feeds, by name.${failing.size > 0 ? ` ${plural(failing.size, "of them is", "of them are")} not updating.` : ""}</p>
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
