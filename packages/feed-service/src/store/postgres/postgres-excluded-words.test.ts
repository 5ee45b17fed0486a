/**
 * The posts a search with excluded words may subtract instead of checking every candidate's
 * vector (postgres-excluded-words.ts): its positive clauses AND any excluded word, in its
 * languages; never for a query whose candidates are checked anyway. The subtraction itself is
 * tested against a lagging index in postgres-search-tiers.test.ts.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { excludedPostsQuery } from "./postgres-excluded-words.js";

describe("postgres excluded words", () => {
  it("finds the posts holding any excluded word among the positive matches, in the query's languages", () => {
    assert.deepEqual(excludedPostsQuery(parseSearchQuery("k3 -the"), null), {
      index: "'k3' & 'the'",
      words: "'k3' & 'the'",
    });
    assert.deepEqual(excludedPostsQuery(parseSearchQuery("k3 OR k4 -the -w5"), [1, 2]), {
      index: "(('k3' | 'k4') & ('the' | 'w5')) & (' lang 1' | ' lang 2')",
      words: "('k3' | 'k4') & ('the' | 'w5')",
    });
    // A two-word phrase is settled by its pair in the index: its posts are found exactly too.
    assert.equal(excludedPostsQuery(parseSearchQuery('"w5 k5" -the'), null)?.index, "'w5 k5' & 'the'");
  });

  it("subtracts nothing when nothing is excluded, or when every candidate is checked anyway", () => {
    assert.equal(excludedPostsQuery(parseSearchQuery("k3"), null), null);
    // An excluded phrase, and a phrase whose pairs do not settle it, are checked on the vector.
    assert.equal(excludedPostsQuery(parseSearchQuery('k3 -"w5 k5"'), null), null);
    assert.equal(excludedPostsQuery(parseSearchQuery('"w5 k5 r77" -the'), null), null);
  });
});
