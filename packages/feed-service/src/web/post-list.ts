/**
 * A list of posts as every page shows it: the title links through `/click/<postId>` (so the
 * click is counted, spec §5.3), then feed, category, age, language, clicks and the other feeds that
 * carry the same story ("also in"), then the excerpt.
 * Title and excerpt are text (escaped by `html`), or highlighted text on the search page.
 */

import type { OperationRecord } from "../operations/column-sets.js";
import type { StoryFeedRef } from "../store/store.js";
import { plural, timeElement } from "./display-format.js";
import { type Html, type HtmlValue, html } from "./html.js";
import type { PageContext } from "./page-context.js";
import type { LanguageView, PostView } from "./record-views.js";

export interface PostListOptions {
  readonly now: number;
  readonly languages: ReadonlyMap<number, LanguageView>;
  /** Heading level of each post's title: 2 when the list is the page's content, 3 under a section. */
  readonly headingLevel?: 2 | 3;
  /** Turns a title or excerpt into markup (search highlighting); plain escaped text otherwise. */
  readonly mark?: (text: string) => Html;
  /** The text shown when there are no posts. */
  readonly emptyText?: string;
  /** The other feeds that carry each post's story (one story once), by post id. */
  readonly alsoIn?: ReadonlyMap<number, readonly StoryFeedRef[]>;
}

/**
 * The "also in" feeds of a page's post records, for `PostListOptions.alsoIn`.
 *
 * @example
 * const alsoIn = await alsoInOf(context, records);
 */
export function alsoInOf(
  context: PageContext,
  records: readonly OperationRecord[],
): Promise<ReadonlyMap<number, readonly StoryFeedRef[]>> {
  return context.runner.pageReads.alsoIn(records.map((r) => Number(r.postId)));
}

const untitled = "(untitled)";

function postItem(p: PostView, o: PostListOptions): Html {
  const language = o.languages.get(p.languageId);
  // `lang` lets browsers and screen readers pick fonts and voices; "und" says nothing, so omit it.
  const lang = language && language.languageCode !== "und" ? language.languageCode : undefined;
  const langAttr = lang ? html` lang="${lang}"` : "";
  const title = p.postTitle.trim() === "" ? untitled : p.postTitle;
  const shownTitle: HtmlValue = o.mark ? o.mark(title) : title;
  const link = html`<a href="/click/${p.postId}"${langAttr}>${shownTitle}</a>`;
  const heading = o.headingLevel === 3 ? html`<h3>${link}</h3>` : html`<h2>${link}</h2>`;
  const category =
    p.categoryId !== null && p.categoryName !== null
      ? html` · <a href="/categories/${p.categoryId}">${p.categoryName}</a>`
      : "";
  const period =
    p.periodClicks !== undefined
      ? html` · <strong>${plural(p.periodClicks, "click")}</strong> in this period`
      : "";
  const others = o.alsoIn?.get(p.postId) ?? [];
  const alsoIn =
    others.length === 0
      ? ""
      : html` · also in ${others.map((f, i) => html`${i > 0 ? ", " : ""}<a href="/feeds/${f.feedId}">${f.feedName}</a>`)}`;
  return html`<li class="post" id="post-${p.postId}">
${heading}
<p class="meta"><a href="/feeds/${p.feedId}">${p.feedName}</a>${category} · ${timeElement(p.postDate, o.now)}${language ? html` · <abbr title="${language.languageName}">${language.languageCode}</abbr>` : ""} · ${plural(p.clicks, "click")}${period}${alsoIn}</p>
${p.postExcerpt !== "" && html`<p class="excerpt"${langAttr}>${o.mark ? o.mark(p.postExcerpt) : p.postExcerpt}</p>`}
</li>`;
}

export function postList(posts: readonly PostView[], options: PostListOptions): Html {
  if (posts.length === 0) return html`<p class="empty">${options.emptyText ?? "No posts here yet."}</p>`;
  return html`<ol class="posts">
${posts.map((p) => postItem(p, options))}
</ol>`;
}
