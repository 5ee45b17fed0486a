/**
 * The walk of fts5-operators.ts when one feed's posts lie spread among many others (ids far apart):
 * its batch's hits are found by a seek per date key rather than one pass over the key range, and
 * the page is the same as reading the feed's posts one by one.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { isFilter, type SearchQuery } from "../../search/search-query.js";
import { sqliteBackend } from "../../test-support/test-backends.js";
import { openStore } from "../open-store.js";

/** More filler hits than the plan that reads every hit takes (FEW_HITS, 2,000). */
const ROUNDS = 22;
const FILLER_PER_ROUND = 100;

describe("search operators on SQLite: one feed spread among many", () => {
  it("finds the feed's hits by key, newest first, whatever the sort", async () => {
    const db = await sqliteBackend.newDatabase();
    try {
      const store = await openStore(db.location);
      try {
        const filler = await store.addFeed({ feedUrl: "https://feeds.test/filler", feedName: "Filler" });
        const spread = await store.addFeed({ feedUrl: "https://feeds.test/spread", feedName: "Spread" });
        const start = Date.UTC(2026, 0, 1);
        let minute = 0;
        const post = (guid: string, title: string) => ({
          guid,
          link: `https://posts.test/${guid}`,
          title,
          excerpt: "",
          content: "<p>…</p>",
          publishedAt: start + minute++ * 60_000,
          updatedAt: null,
          seenAt: start,
          languageId: 1,
        });
        // Each round: a hundred filler posts holding `common`, then one post of the spread feed
        // (every other one holding `common`), so the spread feed's ids lie a hundred apart.
        for (let round = 0; round < ROUNDS; round++) {
          await store.applyFeedUpdate(filler.feedId, {
            fetchState: {},
            posts: Array.from({ length: FILLER_PER_ROUND }, (_, i) =>
              post(`f${round}-${i}`, `Filler ${round} ${i} common`),
            ),
          });
          await store.applyFeedUpdate(spread.feedId, {
            fetchState: {},
            posts: [post(`s${round}`, round % 2 === 0 ? `Spread ${round} common` : `Spread ${round} other`)],
          });
        }
        const expected = Array.from({ length: ROUNDS }, (_, round) => round)
          .filter((round) => round % 2 === 0)
          .reverse()
          .map((round) => `Spread ${round} common`);
        // The feed filter as the operation resolves it (feed ids found by name).
        const parsed = parseSearchQuery("common feed:spread");
        const query: SearchQuery = {
          ...parsed,
          filterClauses: parsed.filterClauses?.map((clause) =>
            clause.map((atom) =>
              isFilter(atom) && atom.kind === "feed" ? { ...atom, feedIds: [spread.feedId] } : atom,
            ),
          ),
        };
        for (const sort of ["date", "relevance", "clicks"] as const) {
          const found = await store.searchPosts({ limit: 50, offset: 0, languageIds: null, query, sort });
          const titles = found.map((p) => p.postTitle);
          // Relevance ties (same length, same words) and clicks ties (none clicked) fall to the id.
          assert.deepEqual(titles, expected, sort);
          assert.ok(
            found.every((p) => p.score > 0),
            sort,
          );
        }
        assert.equal(
          await store.countSearchMatches({ query, languageIds: null, cap: 10_000 }),
          expected.length,
        );
        const second = await store.searchPosts({
          limit: 3,
          offset: 3,
          languageIds: [1],
          query,
          sort: "date",
        });
        assert.deepEqual(
          second.map((p) => p.postTitle),
          expected.slice(3, 6),
        );
      } finally {
        await store.close();
      }
    } finally {
      db.drop();
    }
  });
});
