/**
 * Index upkeep (sqlite-search-maintenance.ts, ingest/search-index-upkeep.ts): a store written by
 * many small transactions, as ingest writes one, is spread over many FTS5 segments; the bounded
 * merge steps leave every index in one segment, go on where they stopped when writes come between
 * them, and change no search's rows or order.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import Database from "better-sqlite3";
import { loadDemoData } from "../../demo/load-demo-data.js";
import { mergeSearchIndex } from "../../ingest/search-index-upkeep.js";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { openStore } from "../open-store.js";
import type { SearchSort, Store } from "../store.js";
import { FEED_FTS } from "./fts5-feed-index.js";
import { CLICKED_FTS } from "./sqlite-clicked-index.js";
import { mergeSearchIndexStep, searchIndexSegments } from "./sqlite-search-maintenance.js";

const NOW = Date.parse("2026-01-10T12:00:00Z");
const TABLES = ["posts_fts", CLICKED_FTS, FEED_FTS];
const QUERIES = [
  "the",
  "data",
  "new post",
  '"one more"',
  "the*",
  "title:post",
  "post -data",
  "extra OR data",
];
const SORTS: SearchSort[] = ["relevance", "date", "clicks"];

function segments(path: string): number[] {
  const db = new Database(path, { readonly: true });
  try {
    return TABLES.map((t) => searchIndexSegments(db, t));
  } finally {
    db.close();
  }
}

/** Adds posts and clicks one transaction each, as ingest passes and visitors write them. */
async function writeSpread(store: Store, feedId: number, from: number, count: number): Promise<void> {
  for (let i = from; i < from + count; i++) {
    await store.applyFeedUpdate(feedId, {
      fetchState: {},
      posts: [
        {
          guid: `spread-${i}`,
          link: `https://example.test/spread/${i}`,
          title: `One more post ${i}`,
          excerpt: i % 3 === 0 ? "the new data" : "after the load",
          content: `<p>the post ${i} of the spread</p>`,
          publishedAt: NOW - i * 60_000,
          updatedAt: null,
          seenAt: NOW,
          languageId: 1,
        },
      ],
    });
  }
  const recent = await store.recentPosts({ limit: count, offset: 0, languageIds: null });
  for (const [i, post] of recent.entries())
    await store.insertClick(post.postId, `client-${from}-${i}`, NOW - i);
}

async function answers(store: Store): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const text of QUERIES) {
    for (const sort of SORTS) {
      out.push(
        await store.searchPosts({
          limit: 500,
          offset: 0,
          languageIds: null,
          query: parseSearchQuery(text),
          sort,
        }),
      );
    }
  }
  return out;
}

describe("search index upkeep", () => {
  it("merges a spread index into one segment per table and changes no search", async () => {
    const dir = mkdtempSync(join(tmpdir(), "feed-merge-"));
    const path = join(dir, "spread.db");
    try {
      const store = await openStore(path);
      try {
        await loadDemoData(store, { posts: 600, now: NOW });
        const feedId = (await store.feeds())[0]!.feedId;
        await writeSpread(store, feedId, 0, 80);
        const spread = segments(path);
        assert.ok(
          spread.every((n) => n > 2),
          `spread: ${spread}`,
        );
        const before = await answers(store);
        const merge = await mergeSearchIndex(store);
        assert.equal(merge.merged, true);
        assert.ok(merge.steps >= 2, `steps: ${merge.steps}`);
        assert.deepEqual(segments(path), [1, 1, 1]);
        assert.deepEqual(await answers(store), before);
        // Merged already: one step that finds nothing to do.
        const again = await mergeSearchIndex(store);
        assert.deepEqual([again.steps, again.merged], [1, true]);
      } finally {
        await store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("goes on where it stopped when writes come between steps, and converges", async () => {
    const dir = mkdtempSync(join(tmpdir(), "feed-merge-"));
    const path = join(dir, "spread.db");
    try {
      const store = await openStore(path);
      try {
        await loadDemoData(store, { posts: 600, now: NOW });
        const feedId = (await store.feeds())[0]!.feedId;
        await writeSpread(store, feedId, 0, 80);
      } finally {
        await store.close();
      }
      // One page per step: a merge of many steps, with a write (a new segment) after each one.
      const db = new Database(path);
      const writer = await openStore(path);
      try {
        const feedId = (await writer.feeds())[0]!.feedId;
        let steps = 0;
        let writes = 0;
        while (mergeSearchIndexStep(db, 1)) {
          steps++;
          if (writes < 40) await writeSpread(writer, feedId, 1000 + writes++, 1);
          assert.ok(steps < 100_000, "the merge converges");
        }
        assert.ok(writes === 40 && steps > 40, `steps ${steps}, writes ${writes}`);
        assert.deepEqual(
          TABLES.map((t) => searchIndexSegments(db, t)),
          [1, 1, 1],
        );
      } finally {
        await writer.close();
        db.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
