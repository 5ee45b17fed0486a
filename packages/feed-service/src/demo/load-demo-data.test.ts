import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import Database from "better-sqlite3";
import { FeedServiceError } from "../errors.js";
import { parseSearchQuery } from "../search/parse-search-query.js";
import { openStore } from "../store/open-store.js";
import { searchIndexSegments } from "../store/sqlite/sqlite-search-maintenance.js";
import type { Store } from "../store/store.js";
import { demoRareWords } from "./demo-vocabulary.js";
import { loadDemoData } from "./load-demo-data.js";

const NOW = Date.parse("2026-01-10T12:00:00Z");
const DAY = 86_400_000;

async function snapshot(store: Store) {
  return {
    recent: await store.recentPosts({ limit: 50, offset: 0, languageIds: null }),
    feeds: await store.feeds(),
    smart: await store.smartCategories(),
    popular: await store.mostPopularPosts({ since: NOW - 30 * DAY, limit: 20, categoryId: null }),
    languages: await store.aggregateLanguageData(NOW),
  };
}

describe("loadDemoData", () => {
  it("writes the same corpus, ids included, for the same seed and now", async () => {
    const a = await openStore(":memory:");
    const b = await openStore(":memory:");
    const c = await openStore(":memory:");
    try {
      const summary = await loadDemoData(a, { posts: 1500, now: NOW, seed: 7 });
      assert.deepEqual(await loadDemoData(b, { posts: 1500, now: NOW, seed: 7 }), summary);
      assert.deepEqual(await snapshot(b), await snapshot(a));
      await loadDemoData(c, { posts: 1500, now: NOW, seed: 8 });
      assert.notDeepEqual((await snapshot(c)).recent, (await snapshot(a)).recent);
    } finally {
      await Promise.all([a.close(), b.close(), c.close()]);
    }
  });

  it("writes a realistic multi-language corpus over the 90 days before now", async () => {
    const store = await openStore(":memory:");
    try {
      const progress: string[] = [];
      const summary = await loadDemoData(store, {
        posts: 3000,
        now: NOW,
        onProgress: (p) => progress.push(p.phase),
      });
      assert.equal(summary.posts, 3000);
      assert.ok(progress.includes("posts") && progress.includes("clicks"));
      const feeds = await store.feeds();
      assert.equal(feeds.length, 45);
      assert.equal(
        feeds.reduce((n, f) => n + f.postCount, 0),
        3000,
      );
      assert.equal((await store.categories()).length, 6);
      const langs = await store.aggregateLanguageData(NOW);
      const withPosts = langs.filter((l) => l.postCount > 0).map((l) => l.languageCode);
      for (const code of ["en", "fr", "de", "es", "pt-BR", "ja", "zh", "ko", "it", "nl", "und"])
        assert.ok(withPosts.includes(code), code);
      const posts = await store.recentPosts({ limit: 3000, offset: 0, languageIds: null });
      assert.ok(posts.every((p) => p.postDate <= NOW && p.postDate >= NOW - 90 * DAY));
      assert.ok(posts[posts.length - 1]!.postDate < NOW - 85 * DAY, "spread over the whole window");
      assert.ok(posts.every((p) => p.postExcerpt.length > 0 && p.postExcerpt.length <= 500));
      assert.ok(summary.clicks > 300, `clicks: ${summary.clicks}`);
      assert.ok((await store.mostPopularFeeds({ since: NOW - 7 * DAY, limit: 40 })).length > 10);
      const smart = await store.smartCategories();
      assert.equal(smart.length, 6);
      const tsjs = smart.find((s) => s.smartCategoryQuery === "TypeScript OR JavaScript")!;
      const found = await store.searchPosts({
        limit: 1000,
        offset: 0,
        languageIds: null,
        query: parseSearchQuery(tsjs.smartCategoryQuery),
        sort: "date",
      });
      assert.ok(found.length > 50 && found.length < 600, `TypeScript OR JavaScript: ${found.length}`);
    } finally {
      await store.close();
    }
  });

  it("puts each rare word in at most 1% of posts", async () => {
    const store = await openStore(":memory:");
    try {
      await loadDemoData(store, { posts: 4000, now: NOW });
      let seen = 0;
      for (const word of demoRareWords.slice(0, 40)) {
        const hits = await store.searchPosts({
          limit: 1000,
          offset: 0,
          languageIds: null,
          query: parseSearchQuery(word),
          sort: "date",
        });
        assert.ok(hits.length <= 40, `${word}: ${hits.length} of 4000 posts`);
        if (hits.length > 0) seen++;
      }
      assert.ok(seen > 30, "rare words do occur");
    } finally {
      await store.close();
    }
  });

  it("writes Japanese and Chinese without spaces, Korean with them, all searchable by word", async () => {
    const store = await openStore(":memory:");
    try {
      await loadDemoData(store, { posts: 3000, now: NOW });
      const posts = await store.recentPosts({ limit: 3000, offset: 0, languageIds: null });
      const codes = new Map((await store.languages()).map((l) => [l.languageId, l.languageCode]));
      const textOf = (code: string) =>
        posts.filter((p) => codes.get(p.languageId) === code).flatMap((p) => [p.postTitle, p.postExcerpt]);
      const cjkSpaceCjk =
        /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}] [\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]/u;
      for (const code of ["ja", "zh"]) {
        assert.ok(textOf(code).length > 50, code);
        assert.ok(!textOf(code).some((t) => cjkSpaceCjk.test(t)), `${code} has no space between words`);
      }
      assert.ok(
        textOf("ko").every((t) => / /.test(t)),
        "Korean keeps spaces between word groups",
      );
      // A word inside unspaced runs: each finds posts of its language only (and its own feeds).
      for (const [word, code] of [
        ["データ", "ja"],
        ["数据", "zh"],
        ["데이터", "ko"],
      ] as const) {
        const hits = await store.searchPosts({
          limit: 1000,
          offset: 0,
          languageIds: null,
          query: parseSearchQuery(word),
          sort: "date",
        });
        const languages = new Set(hits.map((p) => codes.get(p.languageId)));
        assert.ok(hits.length > 10, `${word}: ${hits.length}`);
        assert.ok(
          [...languages].every((c) => c === code || c === "und"),
          `${word}: ${[...languages]}`,
        );
      }
    } finally {
      await store.close();
    }
  });

  it("leaves the SQLite full-text index merged into one segment", async () => {
    const dir = mkdtempSync(join(tmpdir(), "feed-demo-"));
    const path = join(dir, "demo.db");
    try {
      const store = await openStore(path);
      let feedId: number;
      try {
        await loadDemoData(store, { posts: 2000, now: NOW });
        feedId = (await store.feeds())[0]!.feedId;
      } finally {
        await store.close();
      }
      const db = new Database(path);
      try {
        assert.equal(searchIndexSegments(db), 1);
      } finally {
        db.close();
      }
      // The count is real: one more write transaction adds a segment of its own.
      const again = await openStore(path);
      try {
        await again.applyFeedUpdate(feedId, {
          fetchState: {},
          posts: [
            {
              guid: "extra",
              link: "https://example.test/extra",
              title: "One more post",
              excerpt: "after the load",
              content: "<p>after the load</p>",
              publishedAt: NOW,
              updatedAt: null,
              seenAt: NOW,
              languageId: 1,
            },
          ],
        });
      } finally {
        await again.close();
      }
      const db2 = new Database(path);
      try {
        assert.equal(searchIndexSegments(db2), 2);
      } finally {
        db2.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses a store that already holds feeds, and a bad size", async () => {
    const store = await openStore(":memory:");
    try {
      await store.addFeed({ feedUrl: "https://x.test/", feedName: "x" });
      await assert.rejects(
        loadDemoData(store, { posts: 10 }),
        (e: unknown) => e instanceof FeedServiceError && e.code === "FEED_CONFLICT",
      );
      await assert.rejects(
        loadDemoData(store, { posts: -1 }),
        (e: unknown) =>
          e instanceof FeedServiceError && /whole number from 0 to 5000000; got -1/.test(e.message),
      );
    } finally {
      await store.close();
    }
  });
});
