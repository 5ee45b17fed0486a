import assert from "node:assert/strict";
import { test } from "node:test";
import { openStore } from "../store/open-store.js";
import { importSubscriptions } from "./opml-import.js";
import { readOpml } from "./opml-reader.js";
import { writeOpml } from "./opml-writer.js";

const opml = `<?xml version="1.0" encoding="ISO-8859-1"?>
<opml version="2.0"><head><title>Mine</title></head><body>
  <outline text="Tech" title="Tech">
    <outline type="rss" text="A &amp; B" xmlUrl="https://a.example/feed" htmlUrl="https://a.example/"/>
    <outline type="rss" text="Caf\xe9" xmlUrl="https://cafe.example/rss"/>
  </outline>
  <outline type="rss" text="Loose" xmlUrl="https://loose.example/atom" category="/News/World"/>
  <outline type="rss" text="Bad" xmlUrl="javascript:alert(1)"/>
  <outline text="empty folder"/>
</body></opml>`;

test("readOpml finds every feed with its category, decoding the declared charset", () => {
  const subs = readOpml(Buffer.from(opml, "latin1"));
  assert.deepEqual(
    subs.map((s) => [s.feedUrl, s.title, s.category]),
    [
      ["https://a.example/feed", "A & B", "Tech"],
      ["https://cafe.example/rss", "Café", "Tech"],
      ["https://loose.example/atom", "Loose", "News"],
      ["javascript:alert(1)", "Bad", null],
    ],
  );
  assert.throws(() => readOpml(Buffer.from("<html></html>")), { code: "FEED_PARSE_FAILED" });
});

test("import adds feeds and categories once; export writes them back grouped", async () => {
  const store = await openStore(":memory:");
  try {
    const first = await importSubscriptions(store, readOpml(Buffer.from(opml, "latin1")), "cli:test");
    assert.equal(first.added, 3);
    assert.deepEqual(
      first.skipped.map((s) => s.feedUrl),
      ["javascript:alert(1)"],
    );
    const again = await importSubscriptions(store, readOpml(Buffer.from(opml, "latin1")), "cli:test");
    assert.deepEqual([again.added, again.alreadyPresent], [0, 3]);
    assert.deepEqual(
      (await store.categories()).map((c) => [c.categoryName, c.feedCount]),
      [
        ["News", 1],
        ["Tech", 2],
      ],
    );
    const exported = writeOpml(await store.feeds(), new Date("2024-01-01T00:00:00Z"));
    const roundTrip = readOpml(Buffer.from(exported));
    assert.deepEqual(roundTrip.map((s) => [s.feedUrl, s.category]).sort(), [
      ["https://a.example/feed", "Tech"],
      ["https://cafe.example/rss", "Tech"],
      ["https://loose.example/atom", "News"],
    ]);
  } finally {
    await store.close();
  }
});
