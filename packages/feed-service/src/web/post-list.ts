/**
 * A list of posts as every page shows it: the title links through `/click/<postId>` (so the
 * click is counted, spec §5.3), then feed, category, age, language and clicks, then the excerpt.
 * Title and excerpt are text (escaped by `html`), or highlighted text on the search page.
 */
import { plural, timeElement } from "./display-format.js";
import { type Html, type HtmlValue, html } from "./html.js";
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
  return html`<li class="post" id="post-${p.postId}">
${heading}
<p class="meta"><a href="/feeds/${p.feedId}">${p.feedName}</a>${category} · ${timeElement(p.postDate, o.now)}${language ? html` · <abbr title="${language.languageName}">${language.languageCode}</abbr>` : ""} · ${plural(p.clicks, "click")}${period}</p>
${p.postExcerpt !== "" && html`<p class="excerpt"${langAttr}>${o.mark ? o.mark(p.postExcerpt) : p.postExcerpt}</p>`}
</li>`;
}

export function postList(posts: readonly PostView[], options: PostListOptions): Html {
  if (posts.length === 0) return html`<p class="empty">${options.emptyText ?? "No posts here yet."}</p>`;
  return html`<ol class="posts">
${posts.map((p) => postItem(p, options))}
</ol>`;
}
