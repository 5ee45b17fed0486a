import assert from "node:assert/strict";
import { test } from "node:test";
import { discoverHub, parseLinkHeader } from "./hub-discovery.js";
import { processFeedDocument } from "./process-document.js";

const feedUrl = "https://blog.example/feed";
const now = Date.UTC(2026, 0, 1);

function metadataOf(text: string, contentType: string) {
  return processFeedDocument(new TextEncoder().encode(text), contentType, feedUrl, now).metadata;
}

test("Link headers: quoted and bare rels, several types, relative targets, several header lines", () => {
  const links = parseLinkHeader(
    [
      '<https://hub.example/>; rel="hub", </topic?x=1>; title="a, b"; rel=self',
      '<https://other.example/h>; rel="Hub alternate", <mailto:x@example.org>; rel=hub, <no-rel>',
    ],
    feedUrl,
  );
  assert.deepEqual(links, [
    { href: "https://hub.example/", rels: ["hub"] },
    { href: "https://blog.example/topic?x=1", rels: ["self"] },
    { href: "https://other.example/h", rels: ["hub", "alternate"] },
    { href: "https://blog.example/no-rel", rels: [] },
  ]);
  assert.deepEqual(parseLinkHeader("garbage, <", feedUrl), []);
  assert.deepEqual(parseLinkHeader(null, feedUrl), []);
});

test("Atom: link rel=hub and rel=self, relative to the document's xml:base", () => {
  const meta = metadataOf(
    `<feed xmlns="http://www.w3.org/2005/Atom" xml:base="https://blog.example/atom/">
       <title>T</title><id>urn:x</id>
       <link rel="hub" href="https://hub.example/"/><link rel="hub" href="https://second.example/"/>
       <link rel="self" href="feed.xml"/>
     </feed>`,
    "application/atom+xml",
  );
  assert.deepEqual(meta.hubs, ["https://hub.example/", "https://second.example/"]);
  assert.equal(meta.selfUrl, "https://blog.example/atom/feed.xml");
  assert.deepEqual(discoverHub(null, feedUrl, meta), {
    hubUrl: "https://hub.example/",
    topicUrl: "https://blog.example/atom/feed.xml",
  });
});

test("RSS: atom:link rel=hub inside the channel", () => {
  const meta = metadataOf(
    `<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>T</title>
       <link>https://blog.example/</link>
       <atom:link rel="hub" href="https://hub.example/rss-hub"/>
       <atom:link rel="self" href="https://blog.example/rss.xml" type="application/rss+xml"/>
     </channel></rss>`,
    "application/rss+xml",
  );
  assert.deepEqual(discoverHub(undefined, feedUrl, meta), {
    hubUrl: "https://hub.example/rss-hub",
    topicUrl: "https://blog.example/rss.xml",
  });
});

test("JSON Feed: hubs of type WebSub, feed_url as the topic; other hub types are ignored", () => {
  const meta = metadataOf(
    JSON.stringify({
      version: "https://jsonfeed.org/version/1.1",
      title: "T",
      feed_url: "https://blog.example/feed.json",
      hubs: [
        { type: "rssCloud", url: "https://cloud.example/" },
        { type: "WebSub", url: "https://hub.example/json" },
      ],
      items: [],
    }),
    "application/feed+json",
  );
  assert.deepEqual(meta.hubs, ["https://hub.example/json"]);
  assert.deepEqual(discoverHub(null, feedUrl, meta), {
    hubUrl: "https://hub.example/json",
    topicUrl: "https://blog.example/feed.json",
  });
});

test("the Link header's hub and self win over the document's; no hub anywhere is null", () => {
  const meta = { hubs: ["https://doc-hub.example/"], selfUrl: "https://blog.example/doc-self" };
  assert.deepEqual(
    discoverHub(
      '<https://header-hub.example/>; rel="hub", <https://blog.example/h-self>; rel="self"',
      feedUrl,
      meta,
    ),
    { hubUrl: "https://header-hub.example/", topicUrl: "https://blog.example/h-self" },
  );
  // A header hub without a header self takes the document's self URL, then the fetched URL.
  assert.equal(discoverHub("<https://h.example/>; rel=hub", feedUrl, meta)?.topicUrl, meta.selfUrl);
  assert.equal(
    discoverHub("<https://h.example/>; rel=hub", feedUrl, { hubs: [], selfUrl: null })?.topicUrl,
    feedUrl,
  );
  assert.equal(
    discoverHub('<https://blog.example/x>; rel="self"', feedUrl, { hubs: [], selfUrl: null }),
    null,
  );
  assert.equal(
    discoverHub(
      null,
      feedUrl,
      metadataOf("<rss version='2.0'><channel><title>T</title></channel></rss>", "application/rss+xml"),
    ),
    null,
  );
});
