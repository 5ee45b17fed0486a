/** `/feeds/{id}`: one feed (description, site, source) and its posts, newest first, paged. */
import { FeedServiceError } from "../../errors.js";
import { formatCount, timeElement } from "../display-format.js";
import { failureNotice } from "../feed-failure-notice.js";
import { html, httpUrl } from "../html.js";
import { languagesById, pager, pageSize } from "../list-controls.js";
import { readPageNumber } from "../page-arguments.js";
import { callOperation, type PageRenderer } from "../page-context.js";
import { type FeedLink, pageDocument } from "../page-layout.js";
import { alsoInOf, postList } from "../post-list.js";
import { feedView, languageView, postView } from "../record-views.js";

export const feedPage: PageRenderer = async (request, context) => {
  const feedId = request.params.feedId ?? "";
  const page = readPageNumber(request.query);
  // The posts call checks the id first (a 400 or 404 page).
  const records = await callOperation(context, "getPostsByFeed", {
    limit: pageSize + 1,
    offset: (page - 1) * pageSize,
    feedId,
  });
  // No operation answers one feed by id; the feed list is short and is what getFeeds is for.
  const [feedRecords, languageRecords, failing] = await Promise.all([
    callOperation(context, "getFeeds", {}),
    callOperation(context, "getLanguages", {}),
    context.runner.pageReads.failingFeeds(),
  ]);
  const id = Number(feedId);
  const feed = feedRecords.map(feedView).find((f) => f.feedId === id);
  if (!feed) throw new FeedServiceError("FEED_NOT_FOUND", `No feed has id ${id}.`);
  const languages = languagesById(languageRecords.map(languageView));
  const language = languages.get(feed.languageId);
  const site = httpUrl(feed.siteUrl);
  const source = httpUrl(feed.feedUrl);
  // There is no output feed per feed (spec §5.2): the page points at the feed it reads.
  const feeds: FeedLink[] = source
    ? [{ title: `${feed.feedName} (source feed)`, href: source, type: "application/rss+xml" }]
    : [];
  const path = `/feeds/${id}`;
  const alsoIn = await alsoInOf(context, records.slice(0, pageSize));
  const failure = failing.get(id);
  return {
    body: pageDocument(
      {
        title: feed.feedName,
        section: "feeds",
        feeds,
        main: html`<h1>${feed.feedName}</h1>
${failure && failureNotice(failure, context.now)}
${feed.feedDescription && html`<p class="lead">${feed.feedDescription}</p>`}
<dl class="facts">
${site && html`<dt>Site</dt><dd><a href="${site}" rel="nofollow noopener">${site}</a></dd>`}
${source && html`<dt>Feed</dt><dd><a href="${source}" rel="nofollow noopener">${source}</a></dd>`}
${feed.categoryId !== null && feed.categoryName !== null && html`<dt>Category</dt><dd><a href="/categories/${feed.categoryId}">${feed.categoryName}</a></dd>`}
${language && html`<dt>Language</dt><dd>${language.languageName}</dd>`}
<dt>Posts</dt><dd>${formatCount(feed.postCount)}</dd>
<dt>Last post</dt><dd>${timeElement(feed.lastPostDate, context.now)}</dd>
</dl>
<h2>Posts</h2>
${postList(records.slice(0, pageSize).map(postView), { now: context.now, languages, headingLevel: 3, alsoIn })}
${pager({ path, page, hasMore: records.length > pageSize, keep: {} })}`,
      },
      context,
    ),
  };
};
