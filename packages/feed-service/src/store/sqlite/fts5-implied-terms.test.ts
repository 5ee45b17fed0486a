/**
 * The finding query of fts5-implied-terms.ts against a brute-force matcher: on generated posts,
 * a term left out never changes which posts a query matches, and the implications it uses hold
 * post by post.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { SearchQuery, SearchTerm } from "../../search/search-query.js";
import { termPhrase } from "../../search/term-phrase.js";
import { lcgDraws } from "../../test-support/seeded-draws.js";
import { findingQuery, implies } from "./fts5-implied-terms.js";

// Words that begin with one another, and Han runs as the analyzer cuts them (characters and pairs).
const TOKENS = ["the", "theory", "they", "th", "open", "source", "東", "東京", "京", "京都", "都"];

interface Post {
  title: string[];
  body: string[];
}

/** Whether `term` matches `post` as FTS5 reads the phrase (fts5-match.ts). */
function matches(term: SearchTerm, post: Post): boolean {
  const phrase = termPhrase(term);
  const columns = term.titleOnly === true ? [post.title] : [post.title, post.body];
  return columns.some((tokens) => {
    for (let at = 0; at + phrase.length <= tokens.length; at++) {
      const fits = phrase.every((token, k) =>
        k === phrase.length - 1 && term.prefix === true
          ? tokens[at + k]!.startsWith(token)
          : tokens[at + k] === token,
      );
      if (fits) return true;
    }
    return false;
  });
}

function matchesQuery(query: SearchQuery, post: Post): boolean {
  return (
    query.clauses.every((clause) => clause.some((term) => matches(term, post))) &&
    !query.excluded.some((term) => matches(term, post))
  );
}

describe("finding a search's posts with the terms others do not imply", () => {
  const next = lcgDraws(11);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!;
  const tokens = (n: number) => Array.from({ length: n }, () => pick(TOKENS));
  const posts: Post[] = Array.from({ length: 3000 }, () => ({
    title: tokens(1 + Math.floor(next() * 3)),
    body: tokens(Math.floor(next() * 6)),
  }));
  const term = (): SearchTerm => {
    const words = tokens(1 + Math.floor(next() * 2));
    return { words, ...(next() < 0.3 ? { prefix: true } : {}), ...(next() < 0.3 ? { titleOnly: true } : {}) };
  };

  it("uses only implications that hold post by post", () => {
    let implied = 0;
    for (let i = 0; i < 4000; i++) {
      const [a, b] = [term(), term()];
      if (!implies(b, a)) continue;
      implied++;
      for (const post of posts) {
        if (matches(b, post)) assert.ok(matches(a, post), `${JSON.stringify(b)} => ${JSON.stringify(a)}`);
      }
    }
    assert.ok(implied > 100, `only ${implied} implications`);
    // The cases of the operators' worst searches.
    const the = { words: ["the"] };
    assert.ok(implies({ ...the, titleOnly: true }, the));
    assert.ok(implies(the, { ...the, prefix: true }));
    assert.ok(!implies({ ...the, prefix: true }, the));
    assert.ok(!implies(the, { ...the, titleOnly: true }));
    assert.ok(implies({ words: ["open", "source"] }, { words: ["source"] }));
  });

  it("finds the same posts as the whole query, with fewer terms when some are implied", () => {
    let shorter = 0;
    for (let i = 0; i < 1500; i++) {
      const clauses = Array.from({ length: 1 + Math.floor(next() * 4) }, () =>
        next() < 0.2 ? [term(), term()] : [term()],
      );
      const query: SearchQuery = { clauses, excluded: next() < 0.3 ? [term()] : [] };
      const find = findingQuery(query);
      if (find === query) continue;
      shorter++;
      assert.ok(find.clauses.length > 0 && find.clauses.length < query.clauses.length);
      for (const post of posts) {
        assert.equal(matchesQuery(find, post), matchesQuery(query, post), JSON.stringify(query));
      }
    }
    assert.ok(shorter > 100, `only ${shorter} queries shortened`);
    // Equivalent terms keep one of them.
    const twice: SearchQuery = { clauses: [[{ words: ["the"] }], [{ words: ["the"] }]], excluded: [] };
    assert.deepEqual(findingQuery(twice).clauses, [[{ words: ["the"] }]]);
  });
});
