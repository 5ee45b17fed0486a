/**
 * Contract: full-text search. Whole words, case- and accent-insensitive, over title, excerpt and
 * content text and feed name; the spec's syntax through `parseSearchQuery`; the three sorts; and
 * no input that can break the backend's query language.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import type { SearchSort } from "../../store/store.js";
import { guids, HOUR, incoming, type StoreFactory, T0, withCorpus } from "./contract-fixture.js";

function page(terms: string, sort: SearchSort = "date", languageIds: number[] | null = null) {
  return { limit: 100, offset: 0, languageIds, query: parseSearchQuery(terms), sort };
}

export function searchContract(factory: StoreFactory): void {
  describe("searchPosts", () => {
    it(
      "matches whole words in title, excerpt, content text and feed name, any case and accents",
      withCorpus(factory, async ({ store }) => {
        const found = async (terms: string) => guids(await store.searchPosts(page(terms)));
        assert.deepEqual(await found("typescript"), ["b1", "a1"]);
        assert.deepEqual(await found("CAFE"), ["b1"], "accent- and case-insensitive");
        assert.deepEqual(await found("crème"), ["b1"]);
        assert.deepEqual(await found("recette"), ["b1"], "content text");
        assert.deepEqual(await found("schnelle"), ["g1"], "excerpt");
        assert.deepEqual(await found("gamma"), ["g1", "g2"], "feed name");
        assert.deepEqual(await found("type"), [], "whole words only, no prefixes");
        assert.deepEqual(await found("generic"), [], "no stemming");
        assert.deepEqual(await found("strong"), [], "HTML tag names are not words of the content");
      }),
    );

    it(
      "ANDs terms, ORs across OR binding tighter, matches phrases, excludes -terms",
      withCorpus(factory, async ({ store }) => {
        const found = async (terms: string) => guids(await store.searchPosts(page(terms)));
        assert.deepEqual(await found("typescript generics"), ["a1"]);
        assert.deepEqual(await found("javascript OR sqlite"), ["a4", "g1", "l1"]);
        assert.deepEqual(
          await found("alpha javascript OR typescript"),
          ["a1", "a4", "l1"],
          "alpha AND (js OR ts)",
        );
        assert.deepEqual(await found('"generics explained"'), ["a1"]);
        assert.deepEqual(await found('"explained generics"'), [], "phrase order matters");
        assert.deepEqual(await found("typescript -cafe"), ["a1"]);
        assert.deepEqual(await found('javascript -"old javascript"'), ["a4"]);
        assert.deepEqual(await found("-typescript"), [], "exclusions alone match nothing");
        assert.deepEqual(await found("   "), []);
      }),
    );

    it(
      "answers a date order without scores (a smart category's page) with the same posts in the same order",
      withCorpus(factory, async ({ store }) => {
        for (const terms of [
          "typescript",
          "javascript OR sqlite",
          '"generics explained"',
          "typescript -cafe",
          "gamma",
        ]) {
          for (const [offset, limit] of [
            [0, 100],
            [1, 1],
            [2, 100],
          ] as const) {
            const scored = await store.searchPosts({ ...page(terms), offset, limit });
            const unscored = await store.searchPosts({ ...page(terms), offset, limit, unscored: true });
            assert.deepEqual(guids(unscored), guids(scored), `${terms} ${offset}+${limit}`);
          }
        }
      }),
    );

    it(
      "never lets user text become query syntax",
      withCorpus(factory, async ({ store }) => {
        const nasty = [
          '"',
          '""',
          "'",
          "*",
          "typescript*",
          "NEAR(typescript generics)",
          "title:typescript",
          "{title}: x",
          "^typescript",
          "typescript AND",
          "NOT typescript",
          "a) OR (b",
          "-",
          "--",
          "OR",
          "OR OR OR",
          '"unbalanced',
          "\u0000\u0001",
          "🙂 ☃",
          "x'; DROP TABLE posts; --",
          "%",
          "_",
          "\\",
        ];
        for (const terms of nasty) {
          const rows = await store.searchPosts(page(terms));
          assert.ok(Array.isArray(rows), terms);
        }
        assert.deepEqual(
          guids(await store.searchPosts(page("NEAR(typescript generics)"))),
          [],
          "near is a word here",
        );
        assert.deepEqual(guids(await store.searchPosts(page("typescript AND"))), [], "and is a word here");
        // title: is a search operator (spec §4, store/search-operators.test.ts); other names are words.
        assert.deepEqual(
          guids(await store.searchPosts(page("author:typescript"))),
          [],
          "author is a word here",
        );
        assert.equal((await store.recentPosts({ limit: 100, offset: 0, languageIds: null })).length, 9);
      }),
    );

    it(
      "sorts by relevance (positive score, higher better), by date, or by clicks",
      withCorpus(factory, async ({ store, feed }) => {
        await store.applyFeedUpdate(feed.alpha, {
          fetchState: {},
          posts: [
            incoming("r1", {
              title: "Rust",
              excerpt: "compilers",
              content: "<p>unrelated text</p>",
              publishedAt: T0,
            }),
            incoming("r2", {
              title: "Weekly notes",
              excerpt: "Some words",
              content: `<p>${"filler text ".repeat(40)} rust</p>`,
              publishedAt: T0 + HOUR,
            }),
          ],
        });
        const relevance = await store.searchPosts(page("rust", "relevance"));
        assert.deepEqual(
          guids(relevance),
          ["r1", "r2"],
          "a short title match outranks a word deep in a long body",
        );
        assert.ok(relevance.every((p) => p.score > 0));
        assert.ok(relevance[0]!.score > relevance[1]!.score);
        assert.deepEqual(guids(await store.searchPosts(page("rust", "date"))), ["r2", "r1"]);
        const r1 = relevance[0]!.postId;
        await store.insertClick(r1, "client-a", T0);
        assert.deepEqual(guids(await store.searchPosts(page("rust", "clicks"))), ["r1", "r2"]);
        await store.insertClick(relevance[1]!.postId, "client-a", T0);
        await store.insertClick(relevance[1]!.postId, "client-b", T0);
        const byClicks = await store.searchPosts(page("rust", "clicks"));
        assert.deepEqual(guids(byClicks), ["r2", "r1"]);
        assert.deepEqual(
          byClicks.map((p) => p.clicks),
          [2, 1],
        );
      }),
    );

    it(
      "ties on clicks fall back to postId descending",
      withCorpus(factory, async ({ store }) => {
        assert.deepEqual(guids(await store.searchPosts(page("javascript", "clicks"))), ["l1", "a4"]);
      }),
    );

    it(
      "filters on language and pages",
      withCorpus(factory, async ({ store, lang }) => {
        assert.deepEqual(guids(await store.searchPosts(page("typescript", "date", [lang.fr]))), ["b1"]);
        assert.deepEqual(guids(await store.searchPosts(page("typescript", "date", [9999]))), []);
        const second = await store.searchPosts({ ...page("typescript"), limit: 1, offset: 1 });
        assert.deepEqual(guids(second), ["a1"]);
        assert.deepEqual(await store.searchPosts({ ...page("typescript"), limit: 0 }), []);
      }),
    );

    it(
      "follows edits, renames and removals",
      withCorpus(factory, async ({ store, feed }) => {
        await store.applyFeedUpdate(feed.gamma, {
          fetchState: {},
          posts: [
            incoming("g1", {
              title: "Datenbank DuckDB",
              excerpt: "Schnelle Abfragen",
              publishedAt: T0 - 86_400_000,
            }),
          ],
          feed: { feedName: "Delta Digest" },
        });
        const found = async (terms: string) => guids(await store.searchPosts(page(terms)));
        assert.deepEqual(await found("sqlite"), [], "old title gone from the index");
        assert.deepEqual(await found("duckdb"), ["g1"]);
        assert.deepEqual(await found("gamma"), [], "old feed name gone");
        assert.deepEqual(await found("delta digest"), ["g1", "g2"]);
        await store.removeFeed(feed.gamma);
        assert.deepEqual(await found("duckdb"), []);
        assert.deepEqual(await found("delta"), []);
      }),
    );
  });
}
