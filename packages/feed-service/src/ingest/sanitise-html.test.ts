/**
 * sanitiseHtml's fast path for text without markup or entities, and its own sanitiser over
 * htmlparser2's callbacks (sanitiseParsed), must answer what sanitize-html answers (sanitiseMarkup),
 * byte for byte: random strings over an alphabet of the characters that matter to the parse and
 * its escaping, and random markup over pieces of tags, attributes, comments, raw-text elements,
 * entities and URLs, well-formed or not.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { sanitiseHtml, sanitiseMarkup, sanitiseParsed } from "./sanitise-html.js";

/** Deterministic strings over `alphabet` (a linear congruential generator). */
function strings(alphabet: readonly string[], count: number, maxLength: number, seed = 12345): string[] {
  let s = seed;
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

  it("sanitises markup as the library does", () => {
    const samples = [
      ...markupCases,
      ...strings(markupPieces, 6000, 30, 777),
      ...strings([...markupPieces, ...plain], 6000, 60, 4242),
    ];
    let reached = 0;
    for (const base of ["https://example.com/dir/page.html", null]) {
      for (const html of samples) {
        const expected = sanitiseMarkup(html, base);
        const ours = sanitiseParsed(html, base);
        if (ours !== undefined) {
          reached++;
          assert.equal(ours, expected, JSON.stringify(html));
        }
        assert.equal(sanitiseHtml(html, base), expected, JSON.stringify(html));
      }
    }
    // Almost every sample is sanitised without the library (all but srcset and the like).
    assert.ok(reached > samples.length * 1.5, `${reached} of ${samples.length * 2}`);
    assert.equal(
      sanitiseParsed(
        '<P Class=x onclick="y()">Hi <A HREF="/a?b=1&amp;c=2">a</a><script>x</script>',
        "https://e.com/",
      ),
      '<p>Hi <a href="https://e.com/a?b=1&amp;c=2" rel="noopener noreferrer">a</a></p>',
    );
  });
});

/** Whole fragments: feed markup as publishers write it, and the tricks sanitisers must survive. */
const markupCases = [
  '<p>Fish &amp; chips <a href="/site/1/posts/2">read</a></p><p>x <img src="/img/1.png" alt="x"></p>',
  "<blockquote cite='/q'>quoted</blockquote><ul><li>one<li>two</ul>",
  '<p>cut in the middle <a href="/x',
  "<p>cut <img src=",
  "<div><script>alert('<p>x</p>')</script><style>p{}</style>kept</div>",
  "<noscript><p>hidden <b>bold</b></p></noscript>after",
  "<textarea><b>raw</b></textarea>after<title>t &amp; t</title><option>o&lt;p&gt;</option>",
  "<head><meta charset=utf-8><title>x</title></head><body><p>b</p></body>",
  '<a href="javascript:alert(1)">j</a><a href="  JaVaScRiPt:alert(1)">j2</a><a href="jav&#x09;ascript:x">j3</a>',
  '<a href="data:text/html,x">d</a><img src="data:image/png;base64,xx"><a href="//evil.com/x">pr</a>',
  '<a href="mailto:a@b.c">m</a><a href="tel:+123">t</a><a href="ftp://x/y">f</a><a>no href</a><a href="">empty</a>',
  '<img src="/a.png" srcset="/a.png 1x, /b.png 2x" alt=""><img alt><img src="x.png" width="10" height="">',
  '<video src="/v.mp4" poster="/p.jpg" controls><source src="/v.webm" type="video/webm"></video>',
  '<audio src="/a.mp3" controls autoplay></audio><picture><source srcset="/i.webp" media="(min-width: 1px)"></picture>',
  '<p title="a &quot;quoted&quot; &amp; <b> value" id="x" style="color:red">t</p>',
  "<p>a<!-- comment <b>x</b> -->b<!-->c<!--->d</p><![CDATA[ cdata <b> ]]>e",
  "<?xml version='1.0'?><!DOCTYPE html><p>x</p>",
  "<p>unclosed <b>bold <i>italic</p>tail",
  "</p></div>stray closers<br/><br /><BR><hr><wbr>",
  "<table><tr><td colspan=2 rowspan='3' align=left>c</td><th scope=col>h</th></tr></table>",
  "<time datetime='2026-01-01'>d</time><abbr title='x'>a</abbr><q cite='http://x/'>q</q>",
  "<svg><a href='/s'>in svg</a><script>x</script></svg><math><mi>x</mi></math>",
  "<iframe src='/f'></iframe><object data='/o'></object><embed src='/e'><form><input value=x></form>",
  "<p>&nbsp;&copy;&#169;&#xA9;&unknown;&amp;amp;&lt;&gt;&quot;&apos; & &# &#x; &#0; &#xD800;</p>",
  "<p>nested <p>paragraphs</p></p><li>orphan<dd>dd<dt>dt",
  '<a href="/a" href="/b" rel="nofollow" title="t">dup</a><a rel="x" href="/r">rel first</a>',
  '<a href="http://exa mple.com/">bad host</a><a href="http://[::1]/">v6</a><a href="HTTP://EXAMPLE.COM/A">up</a>',
  "<img src='/x.png' onerror='alert(1)'><img src=\"/y.png\" alt='a\"b'>",
  "<p/>self-closed p<span/>span<div/>",
  "<scr<script>ipt>alert(1)</script><<p>>x<//p>",
  "<a\nhref='/nl'\n>newline attrs</a><a\thref=/tab>tab</a>",
  '<p data-x="1" aria-label="l" class="c">attrs</p><font color=red>font</font><center>c</center>',
  "<xmp><b>x</b></xmp><plaintext><b>y</b>",
  "<ruby>漢<rt>kan</rt></ruby><bdo dir=rtl>r</bdo><data value=1>d</data>",
  "\u0000<p>\u0001null\ufffe</p>\ud800",
  "<p>tail space </p>   \n",
  "   <b>leading</b>",
];

/** Pieces random markup is drawn from: tags allowed and not, attributes, URLs, comments, text. */
const markupPieces = [
  "<p>",
  "</p>",
  "<P>",
  "<div>",
  "</div>",
  "<b>",
  "</b>",
  "<i>",
  "<li>",
  "<ul>",
  "</ul>",
  "<br>",
  "<br/>",
  "<hr />",
  "<img",
  "<img src=/i.png>",
  '<img src="x.png" alt="">',
  "<a",
  '<a href="/r">',
  "<a href='//x.com/p'>",
  '<a href="javascript:x()">',
  "<a href=mailto:a@b>",
  "</a>",
  "<script>",
  "</script>",
  "<style>",
  "</style>",
  "<textarea>",
  "</textarea>",
  "<title>",
  "</title>",
  "<noscript>",
  "</noscript>",
  "<option>",
  "</option>",
  "<head>",
  "</head>",
  "<span>",
  "</span>",
  "<font>",
  "</font>",
  "<table>",
  "<td>",
  "<tr>",
  "<blockquote cite=/c>",
  "</blockquote>",
  "<q cite='x'>",
  "<video poster=/p src=/v>",
  "<source src=/s type=t>",
  "<source srcset='/a 1x'>",
  "<audio controls>",
  "<svg>",
  "</svg>",
  "<xmp>",
  "</xmp>",
  "<!--",
  "-->",
  "<![CDATA[",
  "]]>",
  "<!DOCTYPE x>",
  "<?pi?>",
  " href=/h",
  ' title="t"',
  " onclick=x",
  " alt",
  " width=''",
  ' class="c"',
  " style='s'",
  " rel=r",
  "=",
  '"',
  "'",
  "<",
  ">",
  "/>",
  "/",
  "&amp;",
  "&lt;",
  "&gt;",
  "&quot;",
  "&#60;",
  "&#x3c;",
  "&nbsp;",
  "&",
  ";",
  "&copy",
  " ",
  "\n",
  "text",
  "é",
];
