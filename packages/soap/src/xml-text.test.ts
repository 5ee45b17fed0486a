import assert from "node:assert/strict";
import { test } from "node:test";
import { escapeXmlAttribute, escapeXmlText, stripForbiddenXmlChars } from "./xml-text.js";

test("text: escapes markup, keeps tab/LF/CR and astral characters, drops what XML 1.0 forbids", () => {
  assert.equal(escapeXmlText("plain"), "plain");
  assert.equal(escapeXmlText("a<b>&c]]>"), "a&lt;b&gt;&amp;c]]&gt;");
  assert.equal(escapeXmlText("t\tn\nr\r😀"), "t\tn\nr\r😀");
  assert.equal(escapeXmlText("\u0000\u001f\u007fx\uFFFE\uFFFF\uD800y\uDFFF"), "\u007fxy");
  // A reversed pair is two lone surrogates.
  assert.equal(escapeXmlText("\uDE00\uD83D"), "");
});

test("attributes: also quotes and whitespace other than space, which a reader would normalise", () => {
  assert.equal(escapeXmlAttribute('a "b" & <c>'), "a &quot;b&quot; &amp; &lt;c&gt;");
  assert.equal(escapeXmlAttribute("a\tb\nc\rd"), "a&#9;b&#10;c&#13;d");
});

test("text: the one-pass escaping equals three plain replaces on random mixes of every case", () => {
  const pieces = [
    "a",
    "bc",
    "&",
    "<",
    ">",
    "&amp;",
    "ü",
    "😀",
    "東",
    " ",
    "\u0001",
    "\uD800",
    "\uDC00",
    "\t",
  ];
  const forbidden =
    /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
  const reference = (s: string) =>
    s.replace(forbidden, "").replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  let seed = 7;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  for (let i = 0; i < 3000; i++) {
    let s = "";
    for (let k = random(12); k > 0; k--) s += pieces[random(pieces.length)];
    assert.equal(escapeXmlText(s), reference(s), JSON.stringify(s));
  }
});

test("stripForbiddenXmlChars drops exactly what XML 1.0 forbids and keeps the rest", () => {
  assert.equal(stripForbiddenXmlChars("plain"), "plain");
  assert.equal(stripForbiddenXmlChars("a\u0000b\u0007c\u001F\uFFFE\uFFFF"), "abc");
  assert.equal(stripForbiddenXmlChars("tab\tlf\ncr\r"), "tab\tlf\ncr\r");
  assert.equal(
    stripForbiddenXmlChars("pair \uD83D\uDE00 lone \uD83D x \uDE00"),
    "pair \uD83D\uDE00 lone  x ",
  );
});
