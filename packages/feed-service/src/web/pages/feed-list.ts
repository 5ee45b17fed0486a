/** A short list of feeds (a category's side column, the popular page): name, posts, last post. */
import { plural, timeElement } from "../display-format.js";
import { type Html, html } from "../html.js";
import type { FeedView } from "../record-views.js";

export function feedList(feeds: readonly FeedView[], now: number): Html {
  if (feeds.length === 0) return html`<p class="empty">No feeds.</p>`;
  return html`<ul class="feed-list">
${feeds.map(
  (f) => html`<li><a href="/feeds/${f.feedId}">${f.feedName}</a>
<span class="meta">${f.periodClicks !== undefined ? html`<strong>${plural(f.periodClicks, "click")}</strong> · ` : ""}${plural(f.postCount, "post")} · last ${timeElement(f.lastPostDate, now)}</span></li>`,
)}
</ul>`;
}
