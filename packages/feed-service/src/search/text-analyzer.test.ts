// The search analyzer on each kind of script it treats differently.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { analyzeText } from "./text-analyzer.js";

describe("text analyzer", () => {
  it("keeps words of scripts written with spaces, lower-cased, Latin diacritics removed", () => {
    assert.deepEqual(analyzeText("Crème BRÛLÉE, C++ & Node.js"), ["creme", "brulee", "c", "node", "js"]);
    assert.deepEqual(analyzeText("Straße größe Ελληνικά русский"), [
      "straße",
      "große",
      "ελληνικά",
      "русский",
    ]);
    // e + combining acute, composed by NFKC, then folded.
    assert.deepEqual(analyzeText("Cafe\u0301"), ["cafe"]);
  });

  it("normalises width and compatibility forms (NFKC) before anything else", () => {
    assert.deepEqual(analyzeText("ＡＢＣ１２３"), ["abc123"]);
    assert.deepEqual(analyzeText("ｶﾀｶﾅ"), analyzeText("カタカナ"));
    assert.deepEqual(analyzeText("ﬁle"), ["file"]);
  });

  it("gives each Han, kana or Hangul character and each pair of neighbours, run by run", () => {
    assert.deepEqual(analyzeText("東京都の天気"), [
      "東",
      "東京",
      "京",
      "京都",
      "都",
      "の",
      "天",
      "天気",
      "気",
    ]);
    assert.deepEqual(analyzeText("한국어"), ["한", "한국", "국", "국어", "어"]);
    assert.deepEqual(analyzeText("北京"), ["北", "北京", "京"]);
    assert.deepEqual(analyzeText("猫"), ["猫"]);
    // The prolonged sound mark belongs to the kana run it follows.
    assert.deepEqual(analyzeText("データ"), ["デ", "デー", "ー", "ータ", "タ"]);
    assert.deepEqual(analyzeText("すーぱー"), ["す", "すー", "ー", "ーぱ", "ぱ", "ぱー", "ー"]);
  });

  it("separates CJK runs from Latin words and digits, with or without spaces", () => {
    assert.deepEqual(analyzeText("iPhone発売"), ["iphone", "発", "発売", "売"]);
    assert.deepEqual(analyzeText("iPhone 発売"), ["iphone", "発", "発売", "売"]);
    assert.deepEqual(analyzeText("2024年"), ["2024", "年"]);
    assert.deepEqual(analyzeText("東京、大阪"), ["東", "東京", "京", "大", "大阪", "阪"]);
  });

  it("keeps characters beyond the BMP whole, and a lone surrogate out of every token", () => {
    assert.deepEqual(analyzeText("𠮷野家"), ["𠮷", "𠮷野", "野", "野家", "家"]);
    assert.deepEqual(analyzeText("a\ud800b 東\ud800京"), ["a", "b", "東", "京"]);
  });

  it("segments Thai into dictionary words", () => {
    assert.deepEqual(analyzeText("ภาษาไทยง่าย"), ["ภาษา", "ไทย", "ง่าย"]);
  });

  it("gives nothing for text without words", () => {
    assert.deepEqual(analyzeText(""), []);
    assert.deepEqual(analyzeText(" -- !? 。、 "), []);
  });
});
