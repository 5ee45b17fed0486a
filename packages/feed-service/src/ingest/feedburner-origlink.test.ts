// The link a story is known by, as feeds declare it: FeedBurner's feedburner:origLink (RSS and
// Atom, its own prefix or another, CDATA and entities) and <link rel="canonical">, read through
// the real parser (feedsmith behind parse-feed.ts) and the whole document pipeline.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { origLinksAsCanonical } from "./feedburner-origlink.js";
import { parseFeedText } from "./parse-feed.js";
import { processFeedDocument } from "./process-document.js";

const fb = "http://rssnamespace.org/feedburner/ext/1.0";

const feedburnerRss = `<?xml version="1.0" encoding="UTF-8"?>
<rss xmlns:atom10="http://www.w3.org/2005/Atom" xmlns:feedburner="${fb}" version="2.0">
<channel><title>Blog</title><link>https://blog.example/</link>
<atom10:link xmlns:atom10="http://www.w3.org/2005/Atom" rel="self" type="application/rss+xml" href="https://feeds.feedburner.com/blog"/>
<feedburner:info uri="blog"/>
<item><title>Tram</title><link>https://feedproxy.google.com/~r/blog/~3/AbC/</link>
  <guid isPermaLink="false">tag:blog.example,2026:1</guid>
  <description>The tram.</description>
  <feedburner:origLink>https://blog.example/2026/tram/</feedburner:origLink></item>
<item><title>Search</title><link>https://feedproxy.google.com/~r/blog/~3/DeF/</link>
  <guid isPermaLink="false">tag:blog.example,2026:2</guid>
  <feedburner:origLink> https://blog.example/search?q=tram&amp;page=2 </feedburner:origLink></item>
<item><title>No original</title><link>https://feedproxy.google.com/~r/blog/~3/GhI/</link>
  <guid isPermaLink="false">tag:blog.example,2026:3</guid></item>
</channel></rss>`;

const feedburnerAtom = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:fb="${fb}">
<title>Blog</title><id>tag:blog.example,2026:feed</id><updated>2026-01-10T00:00:00Z</updated>
<entry><id>tag:blog.example,2026:1</id><title>Tram</title><updated>2026-01-09T00:00:00Z</updated>
  <link rel="alternate" type="text/html" href="https://feedproxy.google.com/~r/blog/~3/AbC/"/>
  <fb:origLink><![CDATA[https://blog.example/tram?a=1&b=2]]></fb:origLink></entry>
<entry><id>tag:blog.example,2026:2</id><title>Garden</title><updated>2026-01-08T00:00:00Z</updated>
  <link rel="alternate" href="https://feedproxy.google.com/~r/blog/~3/DeF/"/></entry>
<entry><id>tag:blog.example,2026:3</id><title>Declared</title><updated>2026-01-07T00:00:00Z</updated>
  <link rel="alternate" href="https://blog.example/declared?utm_source=x"/>
  <link rel="canonical" href="https://blog.example/declared"/></entry>
</feed>`;

describe("feedburner:origLink and rel=canonical", () => {
  it("reads FeedBurner RSS: each item's origLink is its canonical link, its link stays the feed's", () => {
    const { feed, repaired } = parseFeedText(feedburnerRss);
    assert.equal(repaired, false);
    assert.deepEqual(
      feed.entries.map((e) => [e.link, e.canonicalLink]),
      [
        ["https://feedproxy.google.com/~r/blog/~3/AbC/", "https://blog.example/2026/tram/"],
        ["https://feedproxy.google.com/~r/blog/~3/DeF/", "https://blog.example/search?q=tram&page=2"],
        ["https://feedproxy.google.com/~r/blog/~3/GhI/", null],
      ],
    );
    assert.equal(feed.selfUrl, "https://feeds.feedburner.com/blog");
  });

  it("reads FeedBurner Atom under another prefix, CDATA included, beside a declared rel=canonical", () => {
    const { feed } = parseFeedText(feedburnerAtom);
    assert.deepEqual(
      feed.entries.map((e) => e.canonicalLink),
      ["https://blog.example/tram?a=1&b=2", null, "https://blog.example/declared"],
    );
    assert.equal(feed.entries[0]!.link, "https://feedproxy.google.com/~r/blog/~3/AbC/");
  });

  it("reads rel=canonical in RSS (atom:link) and an undeclared feedburner prefix", () => {
    const { feed } =
      parseFeedText(`<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>T</title>
      <item><guid>1</guid><link>https://m.example/1?utm_source=rss</link>
        <atom:link rel="canonical" href="https://example.org/1"/></item>
      <item><guid>2</guid><link>https://proxy.example/2</link>
        <feedburner:origLink>https://example.org/2</feedburner:origLink></item>
      </channel></rss>`);
    assert.deepEqual(
      feed.entries.map((e) => e.canonicalLink),
      ["https://example.org/1", "https://example.org/2"],
    );
  });

  it("gives the canonical link to the stored post's story link through the whole document pipeline", () => {
    const doc = processFeedDocument(
      new TextEncoder().encode(feedburnerRss),
      "application/rss+xml",
      "https://feeds.feedburner.com/blog",
      Date.UTC(2026, 0, 10),
    );
    assert.deepEqual(
      doc.entries.map((e) => e.canonicalLink ?? null),
      ["https://blog.example/2026/tram/", "https://blog.example/search?q=tram&page=2", null],
    );
  });

  it("leaves documents without an origLink as they are", () => {
    const plain = '<rss version="2.0"><channel><title>T</title><item><guid>1</guid></item></channel></rss>';
    assert.equal(origLinksAsCanonical(plain), plain);
    const other = `<rss xmlns:x="urn:other" version="2.0"><channel><item><x:origLink>a</x:origLink></item></channel></rss>`;
    assert.equal(origLinksAsCanonical(other), other);
  });
});
