/**
 * `/smart-categories/{idOrKey}`: the posts of one smart category, newest first. As in the JSON API
 * (spec §5.1), a UUID in the path is the shared key and digits are the id.
 */
import { FeedServiceError } from "../../errors.js";
import { html } from "../html.js";
import { languageFilter, languagesById, pager, pageSize, pageUrl } from "../list-controls.js";
import { readLanguageFilter, readPageNumber, selectedLanguageIds } from "../page-arguments.js";
import { callOperation, type PageRenderer } from "../page-context.js";
import { outputFeedLinks, pageDocument } from "../page-layout.js";
import { alsoInOf, postList } from "../post-list.js";
import { languageView, postView, smartCategoryView } from "../record-views.js";

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const smartCategoryPage: PageRenderer = async (request, context) => {
  const idOrKey = request.params.idOrKey ?? "";
  const byKey = uuid.test(idOrKey);
  if (!byKey && !/^\d{1,15}$/.test(idOrKey)) {
    throw new FeedServiceError(
      "FEED_NOT_FOUND",
      "A smart category is named by its id (digits) or its key (a UUID).",
    );
  }
  const page = readPageNumber(request.query);
  const lang = readLanguageFilter(request.query);
  const records = await callOperation(context, "getPostsBySmartCategory", {
    limit: pageSize + 1,
    offset: (page - 1) * pageSize,
    smartCategoryId: byKey ? 0 : idOrKey,
    smartCategoryKey: byKey ? idOrKey.toLowerCase() : "",
    languageIds: lang,
  });
  const [smartRecords, languageRecords] = await Promise.all([
    callOperation(context, "getSmartCategories", {}),
    callOperation(context, "getLanguages", {}),
  ]);
  const smart = smartRecords
    .map(smartCategoryView)
    .find((s) =>
      byKey
        ? s.smartCategoryKey.toLowerCase() === idOrKey.toLowerCase()
        : s.smartCategoryId === Number(idOrKey),
    );
  if (!smart)
    throw new FeedServiceError("FEED_NOT_FOUND", `No smart category has ${byKey ? "key" : "id"} ${idOrKey}.`);
  const languages = languageRecords.map(languageView);
  const path = request.path;
  const feedQuery = lang === "" ? "" : `languageIds=${lang}`;
  return {
    body: pageDocument(
      {
        title: smart.smartCategoryName,
        section: "smart",
        feeds: outputFeedLinks(
          `${smart.smartCategoryName}: posts`,
          `/feeds/smart-categories/${smart.smartCategoryKey}`,
          feedQuery,
        ),
        main: html`<h1>${smart.smartCategoryName}</h1>
<p>Posts matching <a href="${pageUrl("/search", { q: smart.smartCategoryQuery, sort: "date" })}"><code class="query">${smart.smartCategoryQuery}</code></a>, newest first.</p>
${languageFilter({ path, languages, selected: selectedLanguageIds(lang) })}
${postList(records.slice(0, pageSize).map(postView), { now: context.now, languages: languagesById(languages), alsoIn: await alsoInOf(context, records.slice(0, pageSize)) })}
${pager({ path, page, hasMore: records.length > pageSize, keep: { lang } })}`,
      },
      context,
    ),
  };
};
