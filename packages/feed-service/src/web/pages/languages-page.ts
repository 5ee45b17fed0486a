/** `/languages`: the chart of posts per language and the language data of spec §4 as a table. */
import { formatCount, timeElement } from "../display-format.js";
import { html } from "../html.js";
import { languageChart } from "../language-chart.js";
import { callOperation, type PageRenderer } from "../page-context.js";
import { outputFeedLinks, pageDocument } from "../page-layout.js";
import { languageDataView } from "../record-views.js";

export const languagesPage: PageRenderer = async (_request, context) => {
  const rows = (await callOperation(context, "getAggregateLanguageData", {})).map(languageDataView);
  const table = rows.map(
    (r) => html`<tr data-language-id="${r.languageId}">
<th scope="row"><a href="/?lang=${r.languageId}">${r.languageName}</a></th>
<td><code class="language-code">${r.languageCode}</code></td>
<td class="number">${formatCount(r.feedCount)}</td>
<td class="number post-count">${formatCount(r.postCount)}</td>
<td class="number">${formatCount(r.postsLast24Hours)}</td>
<td class="number">${formatCount(r.clicks)}</td>
<td>${timeElement(r.lastPostDate, context.now)}</td>
</tr>`,
  );
  return {
    body: pageDocument(
      {
        title: "Languages",
        section: "languages",
        feeds: outputFeedLinks("Recent posts", "/feeds/recent"),
        main: html`<h1>Languages</h1>
<div class="chart-and-table">
${languageChart(rows)}
<div class="table-scroll" role="region" aria-labelledby="languages-caption" tabindex="0"><table class="languages">
<caption id="languages-caption">Feeds, posts and clicks per language</caption>
<thead><tr><th scope="col">Language</th><th scope="col">Code</th><th scope="col" class="number">Feeds</th><th scope="col" class="number">Posts</th><th scope="col" class="number">Posts, last 24 h</th><th scope="col" class="number">Clicks</th><th scope="col">Last post</th></tr></thead>
<tbody>
${table}
</tbody>
</table></div>
</div>`,
      },
      context,
    ),
  };
};
