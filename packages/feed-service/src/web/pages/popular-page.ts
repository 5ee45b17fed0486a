/** `/popular?days=N`: the most clicked posts and feeds of the last N days (default 7). */
import { html } from "../html.js";
import { languagesById } from "../list-controls.js";
import { callOperation, type PageRenderer } from "../page-context.js";
import { outputFeedLinks, pageDocument } from "../page-layout.js";
import { alsoInOf, postList } from "../post-list.js";
import { feedView, languageView, postView } from "../record-views.js";
import { feedList } from "./feed-list.js";

const windows: ReadonlyArray<readonly [string, string]> = [
  ["1", "Today"],
  ["7", "This week"],
  ["30", "This month"],
  ["365", "This year"],
];

export const popularPage: PageRenderer = async (request, context) => {
  const days = request.query.get("days")?.trim() || "7";
  // The posts call checks `days` first (a 400 page with the daysBack rule).
  const postRecords = await callOperation(context, "getMostPopularPosts", {
    daysBack: days,
    limit: 25,
    categoryId: "",
  });
  const [feedRecords, languageRecords] = await Promise.all([
    callOperation(context, "getMostPopularFeeds", { daysBack: days, limit: 10 }),
    callOperation(context, "getLanguages", {}),
  ]);
  const span = windows.find(([d]) => d === days)?.[1] ?? `Last ${days} days`;
  const choices = windows.map(
    ([d, label]) =>
      html`<li><a href="/popular?days=${d}"${d === days ? html` aria-current="true"` : ""}>${label}</a></li>`,
  );
  return {
    body: pageDocument(
      {
        title: `Popular: ${span.toLowerCase()}`,
        section: "popular",
        feeds: outputFeedLinks("Recent posts", "/feeds/recent"),
        main: html`<h1>Popular: ${span.toLowerCase()}</h1>
<nav aria-label="Period"><ul class="choices">${choices}</ul></nav>
<div class="with-aside">
<section aria-labelledby="posts-heading">
<h2 id="posts-heading">Most read posts</h2>
${postList(postRecords.map(postView), {
  now: context.now,
  alsoIn: await alsoInOf(context, postRecords),
  languages: languagesById(languageRecords.map(languageView)),
  headingLevel: 3,
  emptyText: "No post was read in this period.",
})}
</section>
<aside aria-labelledby="feeds-heading">
<h2 id="feeds-heading">Most read feeds</h2>
${feedList(feedRecords.map(feedView), context.now)}
</aside>
</div>`,
      },
      context,
    ),
  };
};
