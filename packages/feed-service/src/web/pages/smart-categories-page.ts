/** `/smart-categories`: every smart category (a saved search) with its query. */
import { html } from "../html.js";
import { callOperation, type PageRenderer } from "../page-context.js";
import { outputFeedLinks, pageDocument } from "../page-layout.js";
import { smartCategoryView } from "../record-views.js";

export const smartCategoriesPage: PageRenderer = async (_request, context) => {
  const smart = (await callOperation(context, "getSmartCategories", {})).map(smartCategoryView);
  return {
    body: pageDocument(
      {
        title: "Smart categories",
        section: "smart",
        feeds: outputFeedLinks("Recent posts", "/feeds/recent"),
        main: html`<h1>Smart categories</h1>
<p>Each smart category is a saved search; its posts are the newest that match.</p>
${
  smart.length === 0
    ? html`<p class="empty">No smart categories yet.</p>`
    : html`<ul class="cards">
${smart.map(
  (s) =>
    html`<li><a href="/smart-categories/${s.smartCategoryId}">${s.smartCategoryName}</a> <code class="query">${s.smartCategoryQuery}</code></li>`,
)}
</ul>`
}`,
      },
      context,
    ),
  };
};
