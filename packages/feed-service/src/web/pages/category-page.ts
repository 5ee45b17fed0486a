/** `/categories/{id}`: one category's posts (paged, language filter) and its feeds. */
import { FeedServiceError } from "../../errors.js";
import { html } from "../html.js";
import { languageFilter, languagesById, pager, pageSize } from "../list-controls.js";
import { readLanguageFilter, readPageNumber, selectedLanguageIds } from "../page-arguments.js";
import { callOperation, type PageRenderer } from "../page-context.js";
import { outputFeedLinks, pageDocument } from "../page-layout.js";
import { alsoInOf, postList } from "../post-list.js";
import { categoryView, feedView, languageView, postView } from "../record-views.js";
import { feedList } from "./feed-list.js";

export const categoryPage: PageRenderer = async (request, context) => {
  const categoryId = request.params.categoryId ?? "";
  const page = readPageNumber(request.query);
  const lang = readLanguageFilter(request.query);
  // The posts call checks the id first (a 400 or 404 page), before the calls that need it valid.
  const records = await callOperation(context, "getPostsByCategory", {
    limit: pageSize + 1,
    offset: (page - 1) * pageSize,
    categoryId,
    languageIds: lang,
    sincepost: "",
  });
  const [feedRecords, categoryRecords, languageRecords] = await Promise.all([
    callOperation(context, "getFeedsByCategory", { categoryId }),
    callOperation(context, "getCategories", {}),
    callOperation(context, "getLanguages", {}),
  ]);
  const id = Number(categoryId);
  const category = categoryRecords.map(categoryView).find((c) => c.categoryId === id);
  // Removed between the two calls: the same answer as an id that never existed.
  if (!category) throw new FeedServiceError("FEED_NOT_FOUND", `No category has id ${id}.`);
  const languages = languageRecords.map(languageView);
  const byId = languagesById(languages);
  const path = `/categories/${id}`;
  const feedQuery = lang === "" ? "" : `languageIds=${lang}`;
  return {
    body: pageDocument(
      {
        title: category.categoryName,
        section: "categories",
        feeds: outputFeedLinks(`${category.categoryName}: posts`, `/feeds/categories/${id}`, feedQuery),
        main: html`<h1>${category.categoryName}</h1>
<div class="with-aside">
<section aria-labelledby="posts-heading">
<h2 id="posts-heading">Posts</h2>
${languageFilter({ path, languages, selected: selectedLanguageIds(lang) })}
${postList(records.slice(0, pageSize).map(postView), { now: context.now, languages: byId, headingLevel: 3, alsoIn: await alsoInOf(context, records.slice(0, pageSize)) })}
${pager({ path, page, hasMore: records.length > pageSize, keep: { lang } })}
</section>
<aside aria-labelledby="feeds-heading">
<h2 id="feeds-heading">Feeds in ${category.categoryName}</h2>
${feedList(feedRecords.map(feedView), context.now)}
</aside>
</div>`,
      },
      context,
    ),
  };
};
