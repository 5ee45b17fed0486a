import assert from "node:assert/strict";
import { test } from "node:test";
import { escapeHtml, Html, html, httpUrl, raw } from "./html.js";

const attack = `<script>alert(1)</script><img src=x onerror="alert(2)">'&`;

test("every interpolated string is escaped, in text and in quoted attributes", () => {
  const page = html`<p title="${attack}">${attack}</p>`.toString();
  assert.equal(
    page,
    '<p title="&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=&quot;alert(2)&quot;&gt;&#39;&amp;">' +
      "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=&quot;alert(2)&quot;&gt;&#39;&amp;</p>",
  );
  assert.ok(!page.includes("<script"));
});

test("nested templates and arrays are kept as markup; false, null and undefined render nothing", () => {
  const items = ["a<b", "c"].map((t) => html`<li>${t}</li>`);
  const hidden = false;
  assert.equal(
    html`<ul>${items}</ul>${hidden && html`<b>x</b>`}${null}${undefined}${0}`.toString(),
    "<ul><li>a&lt;b</li><li>c</li></ul>0",
  );
});

test("raw() is the one way to pass markup through unescaped", () => {
  assert.equal(html`${raw("<mark>")}x${raw("</mark>")}`.toString(), "<mark>x</mark>");
  assert.throws(() => new Html("<b>", Symbol("Html") as never), /html`…` or raw\(\)/);
});

test("a value of another type is refused with a clear error", () => {
  assert.throws(() => html`${new Date(0) as never}`, /cannot show a object; format it as text first/);
  assert.throws(() => html`${true as never}`, /cannot show a boolean/);
});

test("escapeHtml escapes the five characters that matter and nothing else", () => {
  assert.equal(escapeHtml(`a&b<c>d"e'f 東京 é`), "a&amp;b&lt;c&gt;d&quot;e&#39;f 東京 é");
});

test("httpUrl keeps absolute http(s) URLs and drops every other scheme", () => {
  assert.equal(httpUrl("https://example.org/a?b=1"), "https://example.org/a?b=1");
  assert.equal(httpUrl("HTTP://Example.org"), "http://example.org/");
  for (const bad of [
    "javascript:alert(1)",
    " javascript:alert(1)",
    "JaVaScRiPt:x",
    "data:text/html,x",
    "/relative",
    "",
    null,
  ]) {
    assert.equal(httpUrl(bad), undefined, String(bad));
  }
});
