/**
 * Checkpoints off the writing thread: after a store on a file writes posts, the database file
 * itself grows (the log was copied back) although the writer's own autocheckpoint is far from due;
 * closing the store ends the thread and removes the log.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { openStore } from "../open-store.js";
import type { IncomingPost } from "../store.js";

test("a thread copies the log into the database file after writes; close removes the log", async () => {
  const dir = mkdtempSync(join(tmpdir(), "feed-checkpoint-"));
  const path = join(dir, "feeds.db");
  try {
    const store = await openStore(path);
    const feed = await store.addFeed({ feedUrl: "https://a.example/feed", feedName: "A" });
    const before = statSync(path).size;
    const body = "<p>Words that take some room in the log, repeated. </p>".repeat(20);
    for (let batch = 0; batch < 5; batch++) {
      const posts: IncomingPost[] = Array.from({ length: 50 }, (_, i) => ({
        guid: `g-${batch}-${i}`,
        link: `https://a.example/${batch}/${i}`,
        title: `Post ${batch} ${i}`,
        excerpt: "An excerpt",
        content: body,
        publishedAt: null,
        updatedAt: null,
        seenAt: Date.now(),
        languageId: 1,
      }));
      await store.applyFeedUpdate(feed.feedId, { posts, fetchState: {} });
    }
    // ~1 MB of log, far below the writer's own 10,000-page backstop: only the thread copies it.
    assert.ok(statSync(`${path}-wal`).size > 500_000, "the writes went to the log");
    let grown = false;
    for (let i = 0; i < 100 && !grown; i++) {
      await sleep(50);
      grown = statSync(path).size > before + 500_000;
    }
    assert.ok(grown, "the database file received the log's pages");
    assert.equal((await store.recentPosts({ limit: 1000, offset: 0, languageIds: null })).length, 250);
    await store.close();
    assert.equal(existsSync(`${path}-wal`), false, "the last close checkpointed and removed the log");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
