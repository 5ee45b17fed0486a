// The tokens the stores search for, per query term: phrases shortened where pairs imply characters.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseSearchQuery } from "./parse-search-query.js";
import { candidateTokens, termPhrase } from "./term-phrase.js";

const term = (text: string) => parseSearchQuery(`"${text}"`).clauses[0]![0]!;

describe("term phrase", () => {
  it("drops the first and last character of a CJK run that starts or ends the term", () => {
    assert.deepEqual(termPhrase(term("東京")), ["東京"]);
    assert.deepEqual(termPhrase(term("東京都")), ["東京", "京", "京都"]);
    assert.deepEqual(termPhrase(term("京")), ["京"]);
    assert.deepEqual(termPhrase(term("데이터")), ["데이", "이", "이터"]);
  });

  it("keeps a character where the run touches another token, and every word", () => {
    assert.deepEqual(termPhrase(term("iPhone発売")), ["iphone", "発", "発売"]);
    assert.deepEqual(termPhrase(term("東京 tower")), ["東京", "京", "tower"]);
    assert.deepEqual(termPhrase(term("open source")), ["open", "source"]);
    assert.deepEqual(termPhrase(term("都の天気")), ["都", "の", "天", "天気"]);
  });

  it("leaves the characters between two pairs out of the candidate tokens only", () => {
    assert.deepEqual(candidateTokens(term("데이터")), ["데이", "이터"]);
    assert.deepEqual(candidateTokens(term("東京都庁")), ["東京", "京都", "都庁"]);
    assert.deepEqual(candidateTokens(term("iPhone発売")), ["iphone", "発", "発売"]);
    assert.deepEqual(candidateTokens(term("open source")), ["open", "source"]);
  });
});
