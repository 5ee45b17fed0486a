/** `/categories`: every category with its feed count. */
import { plural } from "../display-format.js";
import { html } from "../html.js";
import { callOperation, type PageRenderer } from "../page-context.js";
import { outputFeedLinks, pageDocument } from "../page-layout.js";
import { categoryView } from "../record-views.js";

export const categoriesPage: PageRenderer = async (_request, context) => {
  const categories = (await callOperation(context, "getCategories", {})).map(categoryView);
  return {
    body: pageDocument(
      {
        title: "Categories",
        section: "categories",
        feeds: outputFeedLinks("Recent posts", "/feeds/recent"),
        main: html`<h1>Categories</h1>
${
  categories.length === 0
    ? html`<p class="empty">No categories yet.</p>`
    : html`<ul class="cards">
${categories.map(
  (c) =>
    html`<li><a href="/categories/${c.categoryId}">${c.categoryName}</a> <span class="meta">${plural(c.feedCount, "feed")}</span></li>`,
)}
</ul>`
}
<p>See also the <a href="/smart-categories">smart categories</a>: saved searches anyone can follow.</p>`,
      },
      context,
    ),
  };
};
