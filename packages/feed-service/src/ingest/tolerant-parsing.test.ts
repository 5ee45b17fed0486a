// Feeds as publishers really serve them: JSON Feeds with any version spelling (or none), and
// Atom 0.3 text constructs sent base64-encoded. Fixtures written here, one per class of input.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FeedServiceError } from "../errors.js";
import { parseFeedText } from "./parse-feed.js";
import { processFeedDocument } from "./process-document.js";

const now = Date.UTC(2025, 5, 1);
const items = '[{"id":"a1","url":"https://j.example/1","title":"First","content_html":"<p>Body</p>"}]';

function jsonFeed(head: string): string {
  return `{${head}${head ? "," : ""}"items":${items}}`;
}

describe("JSON Feed, tolerant", () => {
  const spellings: Array<[string, string]> = [
    ["the canonical 1.1 URL", '"version":"https://jsonfeed.org/version/1.1","title":"J"'],
    ["a bare 1.1", '"version":"1.1","title":"J"'],
    ["a bare 1", '"version":"1","title":"J"'],
    ["words", '"version":"JSON Feed 1.1","title":"J"'],
    ["no scheme", '"version":"jsonfeed.org/version/1","title":"J"'],
    ["a number", '"version":1.1,"title":"J"'],
    ["no version", '"title":"J"'],
    ["no version and no title", ""],
    ["upper-case keys", '"Version":"1.1","Title":"J"'],
  ];
  for (const [name, head] of spellings) {
    it(`reads a JSON object with items whose version is ${name}`, () => {
      const { feed, repaired } = parseFeedText(jsonFeed(head));
      assert.equal(feed.format, "json");
      assert.equal(repaired, false);
      assert.equal(feed.entries.length, 1);
      assert.equal(feed.entries[0]!.title, "First");
      assert.equal(feed.entries[0]!.link, "https://j.example/1");
      assert.equal(feed.entries[0]!.guid, "a1");
      if (head.includes("itle")) assert.equal(feed.title, "J");
    });
  }

  it("stores such a feed's posts end to end", () => {
    const doc = processFeedDocument(
      Buffer.from(jsonFeed('"version":"1.1","title":"J"')),
      "application/json",
      "https://j.example/feed.json",
      now,
    );
    assert.equal(doc.entries.length, 1);
    assert.equal(doc.entries[0]!.title, "First");
  });

  it("refuses JSON that is not an object with an items array, saying why", () => {
    for (const [text, reason] of [
      ['{"version":"1.1","title":"J"}', /no items array/],
      ['{"items":{"a":1}}', /no items array/],
      ['[{"items":[]}]', /not an object with an items array/],
      ["{not json", /not valid JSON/],
    ] as const) {
      assert.throws(
        () => parseFeedText(text),
        (e: unknown) =>
          e instanceof FeedServiceError && e.code === "FEED_PARSE_FAILED" && reason.test(e.message),
        text,
      );
    }
  });
});

describe("Atom 0.3 mode=base64", () => {
  const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
  const atom03 = (entry: string) =>
    `<?xml version="1.0"?><feed version="0.3" xmlns="http://purl.org/atom/ns#"><title mode="base64">${b64("Feed über")}</title>` +
    `<link rel="alternate" type="text/html" href="https://a.example/"/><entry>${entry}</entry></feed>`;

  it("decodes base64 titles and HTML content before reading them", () => {
    const { feed, repaired } = parseFeedText(
      atom03(
        `<id>tag:a,1</id><title type="text/plain" mode="base64">${b64("Café & <friends>")}</title>` +
          `<link rel="alternate" type="text/html" href="https://a.example/1"/>` +
          `<content type="text/html" mode="base64">\n${b64("<p>Hello <b>world</b> – naïve</p>").replace(/(.{20})/g, "$1\n")}\n</content>`,
      ),
    );
    assert.equal(repaired, false);
    assert.equal(feed.title, "Feed über");
    assert.equal(feed.entries[0]!.title, "Café & <friends>");
    assert.equal(feed.entries[0]!.contentHtml, "<p>Hello <b>world</b> – naïve</p>");
  });

  it("decodes base64 in a prefixed Atom 0.3 document and leaves escaped and xml modes alone", () => {
    const { feed } = parseFeedText(
      `<a:feed version="0.3" xmlns:a="http://purl.org/atom/ns#"><a:title>T</a:title><a:entry><a:id>1</a:id>` +
        `<a:title mode="escaped" type="text/html">A &amp;amp; B</a:title>` +
        `<a:summary mode="base64" type="text/plain">${b64("short")}</a:summary></a:entry></a:feed>`,
    );
    assert.equal(feed.entries[0]!.title, "A & B");
    assert.equal(feed.entries[0]!.summaryHtml, "short");
  });

  it("keeps text that only claims to be base64 as it is", () => {
    const { feed } = parseFeedText(atom03('<id>2</id><title mode="base64">not base64!</title>'));
    assert.equal(feed.entries[0]!.title, "not base64!");
  });
});
