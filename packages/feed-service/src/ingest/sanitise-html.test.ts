/**
 * sanitiseHtml's fast path for text without markup or entities must answer what sanitize-html's
 * parse answers (sanitiseMarkup), byte for byte, for any text: random strings over an alphabet of
 * the characters that matter to the parse and its escaping, with and without `<` and `&`.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { sanitiseHtml, sanitiseMarkup } from "./sanitise-html.js";

/** Deterministic strings over `alphabet` (a linear congruential generator). */
function strings(alphabet: readonly string[], count: number, maxLength: number): string[] {
  let s = 12345;
  const next = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  return Array.from({ length: count }, () => {
    let out = "";
    const n = Math.floor(next() * maxLength);
    for (let i = 0; i < n; i++) out += alphabet[Math.floor(next() * alphabet.length)];
    return out;
  });
}

const plain = [
  "a",
  "Z",
  "9",
  " ",
  "\n",
  "\t",
  "\r",
  ">",
  '"',
  "'",
  "=",
  "/",
  "]",
  ";",
  "#",
  "é",
  "東",
  "\u00a0",
  "\u0001",
  "\ufffe",
  "\ud83d\ude00",
  "gt",
  "amp",
];

describe("sanitiseHtml", () => {
  it("answers text without markup or entities as the library's parse does", () => {
    const samples = [
      "",
      "   ",
      "Fish > chips",
      "She said \"hi\" and 'bye'",
      "a\u0000b\u000bc",
      "  leading and trailing\n",
      "x]]>y",
      ...strings(plain, 2000, 40),
    ];
    for (const text of samples)
      assert.equal(
        sanitiseHtml(text, "https://example.com/"),
        sanitiseMarkup(text, "https://example.com/"),
        JSON.stringify(text),
      );
  });

  it("leaves text with `<` or `&` to the library's parse", () => {
    const samples = [
      "a & b",
      "a &amp; b",
      "&lt;script&gt;",
      "1 < 2",
      "<script>bad()</script>ok",
      '<a href="/x">x</a>',
      ...strings([...plain, "<", "&", "<p>", "&amp;", "<script>"], 2000, 40),
    ];
    for (const text of samples)
      assert.equal(
        sanitiseHtml(text, "https://example.com/"),
        sanitiseMarkup(text, "https://example.com/"),
        JSON.stringify(text),
      );
    // The cases that tell a fast path taken for them apart.
    assert.equal(sanitiseHtml("a & b", null), "a &amp; b");
    assert.equal(sanitiseHtml("<script>bad()</script>ok", null), "ok");
    assert.equal(sanitiseHtml("Fish > chips", null), "Fish &gt; chips");
  });
});
