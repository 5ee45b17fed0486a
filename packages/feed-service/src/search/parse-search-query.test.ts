import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseSearchQuery } from "./parse-search-query.js";

/** The query as nested word lists: clauses of terms of words, then excluded terms. */
function shape(text: string) {
  const q = parseSearchQuery(text);
  return {
    and: q.clauses.map((c) => c.map((t) => t.words.join(" "))),
    not: q.excluded.map((t) => t.words.join(" ")),
  };
}

describe("parseSearchQuery", () => {
  it("ANDs space-separated terms", () => {
    assert.deepEqual(shape("rust  async\tawait"), { and: [["rust"], ["async"], ["await"]], not: [] });
  });

  it("binds OR tighter than AND, on both sides only", () => {
    assert.deepEqual(shape("a b OR c"), { and: [["a"], ["b", "c"]], not: [] });
    assert.deepEqual(shape("a OR b c"), { and: [["a", "b"], ["c"]], not: [] });
    assert.deepEqual(shape("a OR b OR c"), { and: [["a", "b", "c"]], not: [] });
  });

  it("reads OR only in upper case; lower-case or is a word", () => {
    assert.deepEqual(shape("a or b"), { and: [["a"], ["or"], ["b"]], not: [] });
    assert.deepEqual(shape("a Or b"), { and: [["a"], ["or"], ["b"]], not: [] });
    assert.deepEqual(shape('a "OR" b'), { and: [["a"], ["or"], ["b"]], not: [] });
  });

  it("treats stray operators as words", () => {
    assert.deepEqual(shape("OR a"), { and: [["or"], ["a"]], not: [] });
    assert.deepEqual(shape("a OR"), { and: [["a"], ["or"]], not: [] });
    assert.deepEqual(shape("OR"), { and: [["or"]], not: [] });
    assert.deepEqual(shape("a OR OR b"), { and: [["a"], ["or", "b"]], not: [] });
    assert.deepEqual(shape("a OR -b"), { and: [["a"], ["or"]], not: ["b"] });
  });

  it("keeps phrases together and closes an unbalanced quote", () => {
    assert.deepEqual(shape('"type guards" narrowing'), { and: [["type guards"], ["narrowing"]], not: [] });
    assert.deepEqual(shape('"type guards OR x'), { and: [["type guards or x"]], not: [] });
    assert.deepEqual(shape('"a b" OR "c d"'), { and: [["a b", "c d"]], not: [] });
    assert.deepEqual(shape('""'), { and: [], not: [] });
    assert.deepEqual(shape('foo"bar baz"'), { and: [["foo"], ["bar baz"]], not: [] });
  });

  it("excludes -words and -phrases; a lone dash is nothing; exclusions alone match nothing", () => {
    assert.deepEqual(shape('java -script -"coffee cup"'), { and: [["java"]], not: ["script", "coffee cup"] });
    assert.deepEqual(shape("a - b"), { and: [["a"], ["b"]], not: [] });
    assert.deepEqual(shape("well-known"), { and: [["well known"]], not: [] });
    assert.deepEqual(shape("-a -b"), { and: [], not: ["a", "b"] });
    assert.deepEqual(shape("a -b"), { and: [["a"]], not: ["b"] });
  });

  it("lower-cases and strips accents like unicode61, and splits on punctuation", () => {
    assert.deepEqual(shape("Crème BRÛLÉE"), { and: [["creme"], ["brulee"]], not: [] });
    assert.deepEqual(shape("Node.js C++ São_Paulo"), { and: [["node js"], ["c"], ["sao paulo"]], not: [] });
    assert.deepEqual(
      shape("Ελλάδα Ёлка"),
      { and: [["ελλάδα"], ["ёлка"]], not: [] },
      "non-Latin keeps its marks",
    );
  });

  it("accepts any input, syntax characters included, without throwing", () => {
    for (const text of [
      "",
      "   ",
      '"',
      "-",
      "--",
      "*",
      "NEAR(a b)",
      "col:x",
      "^x",
      "\u0000",
      "🙂",
      "(a OR b)",
      "a AND b NOT c",
    ]) {
      const q = parseSearchQuery(text);
      for (const clause of q.clauses)
        for (const term of clause) assert.ok(term.words.every((w) => /^[\p{L}\p{N}]+$/u.test(w)));
    }
    assert.deepEqual(shape("NEAR(a b)"), { and: [["near a"], ["b"]], not: [] });
    assert.deepEqual(shape("a AND b NOT c"), { and: [["a"], ["and"], ["b"], ["not"], ["c"]], not: [] });
  });
});
