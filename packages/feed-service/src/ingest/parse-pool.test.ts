import assert from "node:assert/strict";
import { test } from "node:test";
import { linkKey, storyKeys } from "../dedupe/story-keys.js";
import { postIndexText } from "../store/index-text.js";
import { entryStoryLink } from "./normalised-entry.js";
import { ParsePool } from "./parse-pool.js";
import { processFeedDocument } from "./process-document.js";

const rss = Buffer.from(
  `<rss version="2.0"><channel><title>T</title><language>de</language>
   <item><title>Eins</title><link>/1</link><description>&lt;b&gt;fett&lt;/b&gt;</description></item>
   <item><title>Zwei</title><guid>g2</guid></item></channel></rss>`,
);

test("the worker pool parses exactly as the inline parser does, and reports errors the same way", async () => {
  const pool = new ParsePool(2);
  try {
    const now = Date.UTC(2024, 0, 1);
    const url = "https://example.com/feed.xml";
    const [a, b] = await Promise.all([
      pool.process(rss, "text/xml", url, now),
      pool.process(rss, "text/xml", url, now),
    ]);
    const inline = processFeedDocument(rss, "text/xml", url, now);
    const { parsed: _raw, ...forStore } = inline;
    assert.deepEqual(a, forStore);
    assert.deepEqual(b, forStore);
    await assert.rejects(pool.process(Buffer.from("<html><body>x</body></html>"), "text/html", url, now), {
      code: "FEED_PARSE_FAILED",
      message: /HTML page/,
    });
  } finally {
    await pool.close();
  }
});

test("each entry arrives from the worker with its story keys and search tokens, the ones the store would compute", async () => {
  const words =
    "the tram line across the river was extended after two years of public hearings in which residents of the northern districts argued that buses could no longer carry the commuters";
  const doc = Buffer.from(
    `<rss version="2.0"><channel><title>T</title><link>https://site.test/</link>
     <item><title>Tram</title><link>https://site.test/a?utm_source=x</link><description>${words}</description></item>
     <item><title>Short</title><description>too few words</description></item></channel></rss>`,
  );
  const pool = new ParsePool(1);
  try {
    const { entries } = await pool.process(
      doc,
      "application/rss+xml",
      "https://site.test/feed",
      Date.UTC(2024, 0, 1),
    );
    assert.equal(entries.length, 2);
    for (const e of entries) {
      assert.deepEqual(
        e.storyKeys,
        storyKeys({ storyLink: entryStoryLink(e), title: e.title, excerpt: e.excerpt }),
      );
      assert.deepEqual(e.indexText, postIndexText(e));
    }
    assert.equal(entries[0]!.storyKeys?.linkKey, linkKey("https://site.test/a"));
    assert.equal(entries[0]!.storyKeys?.print?.bands.length, 8);
    // No link of its own and too little text: nothing to merge on.
    assert.deepEqual(entries[1]!.storyKeys, { linkKey: null, print: null });
  } finally {
    await pool.close();
  }
});
