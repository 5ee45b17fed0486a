/**
 * The chart of posts per language on /languages: a horizontal bar chart drawn as SVG on the server
 * (no chart library, no script). Bars are proportional to the post counts, labelled with the
 * language and the count, and carry `data-posts` so tests can check them against the table. The
 * SVG is markup the service writes itself; the only feed-derived text in it (language names) goes
 * through `html`, so it is escaped like everywhere else.
 */
import { formatCount } from "./display-format.js";
import { type Html, html } from "./html.js";
import type { LanguageDataView } from "./record-views.js";

const width = 640;
const labelWidth = 170;
const valueWidth = 90;
const barHeight = 22;
const gap = 8;

/** The bar's length for a count, in the chart's units. */
export function barLength(count: number, max: number): number {
  const room = width - labelWidth - valueWidth;
  return max === 0 ? 0 : Math.round((count / max) * room * 10) / 10;
}

export function languageChart(rows: readonly LanguageDataView[]): Html {
  const max = Math.max(0, ...rows.map((r) => r.postCount));
  const height = rows.length * (barHeight + gap) + gap;
  const bars = rows.map((r, i) => {
    const y = gap + i * (barHeight + gap);
    const length = barLength(r.postCount, max);
    const middle = y + barHeight / 2;
    return html`<g class="bar-row">
<text class="label" x="${labelWidth - 8}" y="${middle}" text-anchor="end" dominant-baseline="middle">${r.languageName}</text>
<rect class="bar" x="${labelWidth}" y="${y}" width="${length}" height="${barHeight}" rx="3" data-language-id="${r.languageId}" data-posts="${r.postCount}"><title>${r.languageName}: ${formatCount(r.postCount)} posts</title></rect>
<text class="value" x="${labelWidth + length + 6}" y="${middle}" dominant-baseline="middle">${formatCount(r.postCount)}</text>
</g>`;
  });
  return html`<figure class="chart">
<svg viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-labelledby="chart-title">
<title id="chart-title">Posts per language</title>
${bars}
</svg>
<figcaption>Posts per language; the table gives every figure.</figcaption>
</figure>`;
}
