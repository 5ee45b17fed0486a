/**
 * The controls around a post list: the pager (`?page=N`, newer and older) and the language filter
 * (`?lang=1,2`). Both are plain links and a GET form, so they work with JavaScript off.
 */
import { type Html, html } from "./html.js";
import type { LanguageView } from "./record-views.js";

/** Posts per page on every list. */
export const pageSize = 25;

/** The URL of `path` with the given query parameters, empty ones left out. */
export function pageUrl(path: string, params: Readonly<Record<string, string | number | undefined>>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== "") query.set(name, String(value));
  }
  const text = query.toString().replaceAll("%2C", ",");
  return text === "" ? path : `${path}?${text}`;
}

export interface PagerOptions {
  readonly path: string;
  readonly page: number;
  readonly hasMore: boolean;
  /** Other parameters every page link keeps (lang, q, sort, days). */
  readonly keep: Readonly<Record<string, string | undefined>>;
}

export function pager(o: PagerOptions): Html {
  if (o.page === 1 && !o.hasMore) return html``;
  const newer =
    o.page > 1 ? pageUrl(o.path, { ...o.keep, page: o.page === 2 ? undefined : o.page - 1 }) : undefined;
  const older = o.hasMore ? pageUrl(o.path, { ...o.keep, page: o.page + 1 }) : undefined;
  return html`<nav class="pager" aria-label="Pages">
${newer ? html`<a rel="prev" href="${newer}">← Newer</a>` : html`<span></span>`}
<span class="page-number">Page ${o.page}</span>
${older ? html`<a rel="next" href="${older}">Older →</a>` : html`<span></span>`}
</nav>`;
}

export interface LanguageFilterOptions {
  readonly path: string;
  readonly languages: readonly LanguageView[];
  readonly selected: ReadonlySet<number>;
  /** Hidden fields the form sends along (the search page keeps its query). */
  readonly hidden?: Readonly<Record<string, string>>;
  /** Extra controls inside the same form (the search page's sort choice). */
  readonly extra?: Html;
}

export function languageFilter(o: LanguageFilterOptions): Html {
  const boxes = o.languages.map(
    (l) =>
      html`<label><input type="checkbox" name="lang" value="${l.languageId}"${o.selected.has(l.languageId) ? html` checked` : ""}> ${l.languageName}</label>`,
  );
  const hidden = Object.entries(o.hidden ?? {}).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`,
  );
  const summary =
    o.selected.size === 0 ? "All languages" : `${o.selected.size} of ${o.languages.length} languages`;
  return html`<form class="filters" method="get" action="${o.path}">
${hidden}${o.extra ?? ""}
<details${o.selected.size > 0 ? html` open` : ""}><summary>Languages: ${summary}</summary>
<fieldset><legend class="visually-hidden">Show posts in</legend>${boxes}</fieldset>
</details>
<button type="submit">Apply</button>
</form>`;
}

/** The language rows by id, for the posts' language labels. */
export function languagesById(languages: readonly LanguageView[]): ReadonlyMap<number, LanguageView> {
  return new Map(languages.map((l) => [l.languageId, l]));
}
