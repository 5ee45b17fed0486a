import assert from "node:assert/strict";
import { test } from "node:test";
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
