/**
 * Contract: the bounded count of a search's matches (the search page's "1,234 posts match"). Exact
 * up to the cap, `cap + 1` and no more beyond it, with the same matching as searchPosts (phrases,
 * exclusions, languages). The expectations are computed here from the posts written; the real
 * bound (10,000) is exercised in bounds-contract.ts.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import type { Store } from "../../store/store.js";
import { incoming, type StoreFactory, T0, withStore } from "./contract-fixture.js";

const POSTS = 40;

/** 40 posts: every one says "walrus", every 4th "walrus tusk", every 5th is in French. */
async function seedWalruses(store: Store) {
  const fr = (await store.ensureLanguage("fr")).languageId;
  const feedId = (await store.addFeed({ feedUrl: "https://walrus.test/", feedName: "Arctic" })).feedId;
  const posts = Array.from({ length: POSTS }, (_, i) =>
    incoming(`w${i}`, {
      title: i % 4 === 0 ? `Walrus tusk ${i}` : `Walrus number ${i}`,
      publishedAt: T0 - i * 60_000,
      languageId: i % 5 === 0 ? fr : 1,
    }),
  );
  await store.applyFeedUpdate(feedId, { fetchState: {}, posts });
  return { fr };
}

export function searchCountContract(factory: StoreFactory): void {
  describe("countSearchMatches", () => {
    it(
      "counts exactly up to the cap, with the matching of searchPosts",
      withStore(factory, async (store) => {
        const { fr } = await seedWalruses(store);
        const count = (terms: string, languageIds: number[] | null = null, cap = 100) =>
          store.countSearchMatches({ query: parseSearchQuery(terms), languageIds, cap });
        const range = [...Array(POSTS).keys()];
        const tusks = range.filter((i) => i % 4 === 0).length;
        const french = range.filter((i) => i % 5 === 0).length;
        const frenchTusks = range.filter((i) => i % 4 === 0 && i % 5 === 0).length;
        assert.equal(await count("walrus"), POSTS);
        assert.equal(await count("WALRUS"), POSTS, "any case");
        assert.equal(await count("walrus tusk"), tusks);
        assert.equal(await count('"walrus tusk"'), tusks, "a phrase");
        assert.equal(await count('"tusk walrus"'), 0, "a phrase keeps its order");
        assert.equal(await count("walrus -tusk"), POSTS - tusks, "an exclusion");
        assert.equal(await count("tusk OR arctic"), POSTS, "OR, and the feed name");
        assert.equal(await count("walrus", [fr]), french);
        assert.equal(await count("tusk", [fr, 1]), tusks);
        assert.equal(await count("tusk", [fr]), frenchTusks);
        assert.equal(await count("walrus", [9999]), 0, "a language no post has");
        assert.equal(await count("walrus", []), 0, "no language at all");
        assert.equal(await count("narwhal"), 0);
        assert.equal(await count("-walrus"), 0, "exclusions alone match nothing");
        // The same set as searchPosts finds.
        const found = await store.searchPosts({
          limit: 100,
          offset: 0,
          languageIds: [fr],
          query: parseSearchQuery("walrus -tusk"),
          sort: "date",
        });
        assert.equal(await count("walrus -tusk", [fr]), found.length);
      }),
    );

    it(
      "stops at one past the cap: more than the cap, never the whole count",
      withStore(factory, async (store) => {
        const { fr } = await seedWalruses(store);
        const count = (terms: string, cap: number, languageIds: number[] | null = null) =>
          store.countSearchMatches({ query: parseSearchQuery(terms), languageIds, cap });
        assert.equal(await count("walrus", POSTS), POSTS, "exactly the cap");
        assert.equal(await count("walrus", POSTS - 1), POSTS, "one past the cap");
        assert.equal(await count("walrus", 10), 11, "the count stops at cap + 1");
        assert.equal(await count("walrus", 0), 1);
        assert.equal(await count("walrus -tusk", 5), 6);
        assert.equal(await count("walrus", 3, [fr]), 4, "in one language");
        assert.equal(await count("walrus", 8, [fr]), 8, "every French post, under the cap");
      }),
    );
  });
}
