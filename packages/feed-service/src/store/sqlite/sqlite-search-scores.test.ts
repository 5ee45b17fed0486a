import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { demoRareWords } from "../../demo/demo-vocabulary.js";
import { loadDemoData } from "../../demo/load-demo-data.js";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import type { SearchSort, Store } from "../store.js";
import { openSqliteStore } from "./sqlite-store.js";

// Date-sorted search scores only the page's id range (sqlite-post-queries.ts): the scores must be
// exactly those that ranking every hit gives, on any page.
describe("SQLite search scores by sort", () => {
  let store: Store;
  before(async () => {
    store = openSqliteStore(":memory:");
    await loadDemoData(store, { posts: 3000, now: Date.parse("2026-01-10T12:00:00Z") });
  });
  after(() => store.close());

  const search = (terms: string, sort: SearchSort, limit: number, offset = 0) =>
    store.searchPosts({ limit, offset, languageIds: null, query: parseSearchQuery(terms), sort });

  it("gives every hit the same score sorted by date as by relevance, page by page", async () => {
    const queries = [
      ...demoRareWords.slice(0, 12),
      `${demoRareWords[0]} OR ${demoRareWords[1]}`,
      `${demoRareWords[2]} OR ${demoRareWords[3]} OR ${demoRareWords[4]}`,
      "typescript OR rust",
    ];
    let compared = 0;
    for (const terms of queries) {
      const ranked = new Map((await search(terms, "relevance", 5000)).map((p) => [p.postId, p.score]));
      const byDate = await search(terms, "date", 5000);
      assert.equal(byDate.length, ranked.size, terms);
      for (const p of byDate) assert.equal(p.score, ranked.get(p.postId), `${terms}: post ${p.postId}`);
      for (let i = 1; i < byDate.length; i++) {
        const [a, b] = [byDate[i - 1]!, byDate[i]!];
        assert.ok(a.postDate > b.postDate || (a.postDate === b.postDate && a.postId > b.postId), terms);
      }
      const paged = await search(terms, "date", 4, 3);
      assert.deepEqual(paged, byDate.slice(3, 7), terms);
      compared += byDate.length;
    }
    assert.ok(compared > 100, `only ${compared} hits compared`);
  });
});
