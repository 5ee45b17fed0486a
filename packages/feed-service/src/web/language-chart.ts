/**
 * The chart of posts per language on /languages: a horizontal bar chart of HTML rows (no chart
 * library, no script). The labels and counts are HTML text, so they keep the page's type size at
 * any width, where the text of one SVG scaled to the column shrank to 7-9 px on phones; only each
 * bar is a small SVG, stretched to its row, because the bar's length comes from the data and the
 * Content-Security-Policy forbids inline styles (an SVG's `width` attribute is markup, not style).
 * Bars carry `data-posts` so tests can check them against the table. Language names go through
 * `html`, so they are escaped like everywhere else.
 */
import { formatCount } from "./display-format.js";
import { type Html, html } from "./html.js";
import type { LanguageDataView } from "./record-views.js";

/** The bar's length for a count, in percent of the longest bar (one decimal). */
export function barLength(count: number, max: number): number {
  return max === 0 ? 0 : Math.round((count / max) * 1000) / 10;
}

export function languageChart(rows: readonly LanguageDataView[]): Html {
  const max = Math.max(0, ...rows.map((r) => r.postCount));
  const bars = rows.map(
    (r) => html`<li>
<span class="label">${r.languageName}</span>
<svg class="track" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true" focusable="false"><rect class="bar" x="0" y="0" width="${barLength(r.postCount, max)}" height="10" data-language-id="${r.languageId}" data-posts="${r.postCount}"></rect></svg>
<span class="value">${formatCount(r.postCount)}</span>
</li>`,
  );
  return html`<figure class="chart" aria-labelledby="chart-title">
<figcaption id="chart-title">Posts per language</figcaption>
<ul class="bars">
${bars}
</ul>
</figure>`;
}
