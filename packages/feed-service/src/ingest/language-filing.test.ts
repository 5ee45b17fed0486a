/**
 * Ingest files posts by language on both backends: feeds declaring `fr-CA` and then `fr-FR`
 * share one "French" row, as `es-MX` and `es-ES` share "Spanish"; Portuguese and Chinese keep
 * their written standards apart. Real feeds over a real socket, refreshed into a real database.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { openStore } from "../store/open-store.js";
import { postgresBackend, sqliteBackend, type TestBackend } from "../test-support/test-backends.js";
import { FetchLimiter } from "./fetch-limiter.js";
import { refreshFeed } from "./refresh-feed.js";

let server: Server;
let base: string;

/** An RSS document declaring the tag in its path (`/fr-CA.xml`). */
function rss(tag: string): string {
  return `<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>Feed ${tag}</title>
    <link>https://${tag}.test/</link><language>${tag}</language>
    <item><title>A post in ${tag}</title><link>https://${tag}.test/1</link><guid>${tag}-1</guid>
    <pubDate>Mon, 05 Jan 2026 10:00:00 GMT</pubDate><description>Text</description></item></channel></rss>`;
}

before(async () => {
  server = createServer((req, res) => {
    const tag = /^\/([A-Za-z-]+)\.xml$/.exec(req.url ?? "")?.[1];
    if (!tag) return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "application/rss+xml" }).end(rss(tag));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => server.close());

/** Declared tag -> the filed row's code and name, in the order the feeds are refreshed. */
const expected: Array<[string, string, string]> = [
  ["fr-CA", "fr", "French"],
  ["fr-FR", "fr", "French"],
  ["es-MX", "es", "Spanish"],
  ["es-ES", "es", "Spanish"],
  ["en-GB", "en", "English"],
  ["pt-PT", "pt-PT", "European Portuguese"],
  ["pt-BR", "pt-BR", "Brazilian Portuguese"],
  ["pt-MZ", "pt-PT", "European Portuguese"],
  ["zh-TW", "zh-Hant", "Traditional Chinese"],
  ["zh-HK", "zh-Hant", "Traditional Chinese"],
  ["zh-CN", "zh-Hans", "Simplified Chinese"],
  ["zh", "zh", "Chinese"],
];

function suite(backend: TestBackend): void {
  it(`${backend.name}: posts and feeds of one language share its row, whatever region came first`, async () => {
    const db = await backend.newDatabase();
    const store = await openStore(db.location);
    try {
      for (const [tag, code, name] of expected) {
        const { feedId } = await store.addFeed({ feedUrl: `${base}/${tag}.xml`, feedName: tag });
        const result = await refreshFeed((await store.feedById(feedId))!, {
          store,
          limiter: new FetchLimiter(),
        });
        assert.equal(result.outcome, "updated", tag);
        const [post] = await store.postsByFeed({ feedId, limit: 1, offset: 0 });
        const language = await store.languageById(post!.languageId);
        assert.deepEqual([language?.languageCode, language?.languageName], [code, name], tag);
        const feed = (await store.feeds()).find((f) => f.feedId === feedId)!;
        assert.equal(feed.languageId, post!.languageId, `${tag}: the feed is filed with its posts`);
      }
      const codes = (await store.languages()).map((l) => l.languageCode);
      assert.deepEqual(codes, ["en", "und", "fr", "es", "pt-PT", "pt-BR", "zh-Hant", "zh-Hans", "zh"]);
      const french = (await store.aggregateLanguageData(Date.now())).find((l) => l.languageCode === "fr")!;
      assert.deepEqual([french.languageName, french.feedCount, french.postCount], ["French", 2, 2]);
    } finally {
      await store.close();
      db.drop();
    }
  });
}

describe("ingest files declared languages", () => {
  suite(sqliteBackend);
  const pg = postgresBackend();
  after(() => pg.stop());
  suite(pg);
});
