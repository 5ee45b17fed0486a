import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeBytes } from "./decode-bytes.js";
import { processFeedDocument } from "./process-document.js";
import { sanitiseHtml } from "./sanitise-html.js";

const now = Date.UTC(2025, 5, 1);

function entries(
  xml: string | Buffer,
  contentType: string | null = null,
  url = "https://feeds.example/x/feed.xml",
) {
  return processFeedDocument(typeof xml === "string" ? Buffer.from(xml) : xml, contentType, url, now).entries;
}

test("URLs are made absolute against xml:base, then the feed's link, then the feed URL", () => {
  const [atom] = entries(
    `<feed xmlns="http://www.w3.org/2005/Atom" xml:base="https://base.example/a/"><entry xml:base="b/">
       <id>1</id><title>t</title><link href="post.html"/><content type="html">&lt;a href="x.html"&gt;x&lt;/a&gt;&lt;img src="/i.png"&gt;</content>
     </entry></feed>`,
  );
  assert.equal(atom!.link, "https://base.example/a/b/post.html");
  assert.equal(
    atom!.content,
    '<a href="https://base.example/a/b/x.html" rel="noopener noreferrer">x</a><img src="https://base.example/i.png" />',
  );
  const [rss] = entries(`<rss version="2.0"><channel><link>https://site.example/blog/</link>
    <item><title>t</title><link>p/1</link></item></channel></rss>`);
  assert.equal(rss!.link, "https://site.example/blog/p/1");
  const [bare] = entries(
    `<rss version="2.0"><channel><item><title>t</title><link>/p/2</link></item></channel></rss>`,
  );
  assert.equal(bare!.link, "https://feeds.example/p/2");
});

test("dangerous markup and links are removed; non-http links are dropped", () => {
  assert.equal(
    sanitiseHtml(
      '<p onclick="x()" style="color:red">Hi<script>alert(1)</script><a href="javascript:alert(1)">j</a><iframe src="https://e.example/"></iframe></p>',
      null,
    ),
    "<p>Hi<a>j</a></p>",
  );
  const [e] = entries(
    `<rss version="2.0"><channel><item><title>t</title><link>javascript:alert(1)</link><guid>g</guid></item></channel></rss>`,
  );
  assert.equal(e!.link, null);
});

test("titles are unescaped once, excerpts are plain text of at most 500 characters", () => {
  const long = "word ".repeat(300);
  const [e] = entries(
    `<rss version="2.0"><channel><item><title>Fish &amp;amp; chips &lt;b&gt;now&lt;/b&gt;</title>
     <description>&lt;p&gt;${long}&lt;/p&gt;</description></item></channel></rss>`,
  );
  assert.equal(e!.title, "Fish &amp; chips now".replace("&amp;", "&"));
  assert.ok(e!.excerpt.length <= 500, `excerpt is ${e!.excerpt.length} characters`);
  assert.ok(e!.excerpt.endsWith("…"));
  assert.doesNotMatch(e!.excerpt, /[<>]/);
});

test("characters XML 1.0 forbids never survive; no date means first-seen; future dates are clamped", () => {
  const xml = Buffer.from(
    `<rss version="2.0"><channel><item><title>a\u0001b\u000bc</title><description>x\u0000y</description><guid>g1</guid></item>
     <item><title>future</title><guid>g2</guid><pubDate>Tue, 01 Jan 2999 00:00:00 GMT</pubDate></item></channel></rss>`,
  );
  const [a, b] = entries(xml);
  assert.equal(a!.title, "abc");
  assert.equal(a!.excerpt, "xy");
  assert.equal(a!.publishedAt, null);
  assert.equal(b!.publishedAt, now);
});

test("bytes are decoded by BOM, HTTP charset and XML declaration, in that order", () => {
  const body = Buffer.concat([
    Buffer.from('<?xml version="1.0" encoding="iso-8859-1"?><rss><channel><title>'),
    Buffer.from([0xe9]),
    Buffer.from("</title></channel></rss>"),
  ]);
  assert.equal(decodeBytes(body).encoding, "windows-1252");
  assert.match(decodeBytes(body).text, /<title>é</);
  const sjis = Buffer.from([0x82, 0xa0]);
  assert.equal(decodeBytes(sjis, "text/xml; charset=Shift_JIS").text, "あ");
  const big5 = Buffer.from([0xa4, 0xa4]);
  assert.equal(
    decodeBytes(Buffer.concat([Buffer.from('<?xml version="1.0" encoding="big5"?>'), big5])).text.slice(-1),
    "中",
  );
  const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("<rss/>", "utf16le")]);
  assert.deepEqual(
    [decodeBytes(utf16, "text/xml; charset=iso-8859-1").text, decodeBytes(utf16).encoding],
    ["<rss/>", "utf-16le"],
  );
  assert.equal(
    decodeBytes(Buffer.from([0x63, 0x61, 0x66, 0xe9])).text,
    "café",
    "invalid UTF-8 falls back to windows-1252",
  );
});

test("JSON Feed and Atom content with text type are read", () => {
  const [j] = entries(
    JSON.stringify({
      version: "https://jsonfeed.org/version/1.1",
      title: "J",
      items: [
        {
          id: "1",
          url: "https://j.example/1",
          content_text: "a < b",
          date_published: "2024-02-03T04:05:06Z",
        },
      ],
    }),
    "application/feed+json",
  );
  assert.equal(j!.content, "<p>a &lt; b</p>");
  assert.equal(j!.publishedAt, Date.UTC(2024, 1, 3, 4, 5, 6));
});
