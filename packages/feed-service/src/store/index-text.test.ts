import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { searchWords } from "../search/search-words.js";
import { htmlToIndexText } from "./index-text.js";

describe("htmlToIndexText", () => {
  it("turns tags into word breaks and keeps the text", () => {
    assert.deepEqual(searchWords(htmlToIndexText("<p>one</p><p>two<br>three</p>")), ["one", "two", "three"]);
    assert.deepEqual(searchWords(htmlToIndexText('<a href="https://x.test/hidden">shown</a>')), ["shown"]);
  });

  it("decodes character references", () => {
    assert.equal(htmlToIndexText("a &amp; b &lt;c&gt; &quot;d&quot; &#233;t&#xE9;"), 'a & b <c> "d" été');
    // References to characters XML cannot carry become word breaks, never the characters.
    assert.equal(htmlToIndexText("a&#0;b&#xD800;c&#1114112;d"), "a b c d");
  });

  it("drops scripts, styles and comments", () => {
    const html = "<style>p{color:red}</style><script>var secret = 1;</script><!-- note -->visible";
    assert.deepEqual(searchWords(htmlToIndexText(html)), ["visible"]);
  });

  it("returns plain text unchanged", () => {
    assert.equal(htmlToIndexText("no markup here"), "no markup here");
  });
});
