import assert from "node:assert/strict";
import { test } from "node:test";
import { operationTable } from "./operation-table.js";

test("the table holds exactly the 16 operations of the spec, with §2's parameter types", () => {
  const signatures = operationTable.map(
    (op) => `${op.name}(${op.parameters.map((p) => `${p.name}:${p.type}`).join(", ")})`,
  );
  assert.deepEqual(signatures, [
    "search(limit:double, offset:double, searchTerms:string, sortBy:string, languageIds:string)",
    "getMostRecentPosts(limit:double, offset:double, languageIds:string)",
    "getPostsByCategory(limit:double, offset:double, categoryId:double, languageIds:string, sincepost:anyType)",
    "getPostsByFeed(limit:double, offset:double, feedId:double)",
    "getPostsBySmartCategory(limit:double, offset:double, smartCategoryId:double, smartCategoryKey:string, languageIds:string)",
    "getMostPopularPosts(daysBack:double, limit:double, categoryId:anyType)",
    "getCategories()",
    "getSmartCategories()",
    "getLanguages()",
    "getMostPopularFeeds(daysBack:double, limit:double)",
    "getMostProlificFeeds(daysBack:double, limit:double)",
    "getFeeds()",
    "getFeedsByCategory(categoryId:double)",
    "getSearchHistory()",
    "getFeedsByLanguage(languageId:double)",
    "getAggregateLanguageData()",
  ]);
});

test("post column sets keep the spec's order, with extra columns last", () => {
  const names = (op: string) => operationTable.find((o) => o.name === op)?.columns.map((c) => c.name);
  const post =
    "postId postTitle postLink postExcerpt postDate feedId feedName categoryId categoryName languageId clicks trackingLink";
  assert.equal(names("getMostRecentPosts")?.join(" "), post);
  assert.equal(names("search")?.join(" "), `${post} score`);
  assert.equal(names("getMostPopularPosts")?.join(" "), `${post} periodClicks`);
  const feed =
    "feedId feedName feedUrl siteUrl feedDescription categoryId categoryName languageId postCount lastPostDate";
  assert.equal(names("getFeeds")?.join(" "), feed);
  assert.equal(names("getMostProlificFeeds")?.join(" "), `${feed} periodPosts`);
  assert.equal(
    names("getAggregateLanguageData")?.join(" "),
    "languageId languageName languageCode feedCount postCount postsLast24Hours clicks lastPostDate",
  );
});
