import assert from "node:assert/strict";
import { test } from "node:test";
import { parseSearchQuery } from "../search/parse-search-query.js";
import { analyzeText } from "../search/text-analyzer.js";
import { highlight, queryPhrases, textTokens } from "./highlight.js";

const marks = (text: string, query: string) =>
  highlight(text, queryPhrases(parseSearchQuery(query))).toString();

test("the token stream is the analyzer's, slice by slice, in every script the demo writes", () => {
  const samples = [
    "Crème brûlée, naïve café — ÉTÉ 2026",
    "東京都の天気は晴れ",
    "iPhone発売、カメラが向上しました",
    "ｶﾀｶﾅ and ＦＵＬＬ width",
    "서울 날씨 맑음",
    "ภาษาไทยง่ายนิดเดียว",
    "Привет, мир! Ελληνικά κείμενα",
    "e\u0301te\u0301 and o\u0308",
    "<script>alert('x')</script> & more",
  ];
  for (const text of samples) {
    const tokens = textTokens(text);
    assert.deepEqual(
      tokens.map((t) => t.token),
      analyzeText(text),
      text,
    );
    for (const t of tokens)
      assert.ok(t.start < t.end && t.end <= text.length, `${text}: ${JSON.stringify(t)}`);
  }
});

test("whole words are marked, case- and accent-insensitively, never a part of a word", () => {
  assert.equal(
    marks("Crème brûlée in Tokyo, Tokyoite", "creme tokyo"),
    "<mark>Crème</mark> brûlée in <mark>Tokyo</mark>, Tokyoite",
  );
  assert.equal(
    marks("Open source, open-source, source open", '"open source"'),
    "<mark>Open source</mark>, <mark>open-source</mark>, source open",
  );
});

test("Japanese: a term marks its characters wherever they occur in that order inside a run", () => {
  assert.equal(marks("東京都の天気", "東京"), "<mark>東京</mark>都の天気");
  assert.equal(marks("東京都の天気", "京"), "東<mark>京</mark>都の天気");
  // Overlapping matches make one mark.
  assert.equal(marks("東京都", "東京 OR 京都"), "<mark>東京都</mark>");
  // Not across the edge of a run: with a space between them, 京 and 都 form no pair, so 京都 is not found.
  assert.equal(marks("東京 都", "京都"), "東京 都");
  assert.equal(marks("ｶﾒﾗ新製品", "カメラ"), "<mark>ｶﾒﾗ</mark>新製品");
});

test("excluded terms are not marked and OR alternatives all are", () => {
  assert.equal(
    marks("alpha beta gamma", "alpha OR gamma -beta"),
    "<mark>alpha</mark> beta <mark>gamma</mark>",
  );
});

test("the text around and inside marks is escaped", () => {
  assert.equal(
    marks("<b>bold</b> & bold", "bold"),
    "&lt;b&gt;<mark>bold</mark>&lt;/b&gt; &amp; <mark>bold</mark>",
  );
  assert.equal(marks("<script>", "nothing"), "&lt;script&gt;");
});
