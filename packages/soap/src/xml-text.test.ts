import assert from "node:assert/strict";
import { test } from "node:test";
import { escapeXmlAttribute, escapeXmlText } from "./xml-text.js";

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
