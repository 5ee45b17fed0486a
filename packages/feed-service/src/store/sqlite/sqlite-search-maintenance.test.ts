/**
 * Index upkeep (sqlite-search-maintenance.ts, ingest/search-index-upkeep.ts): a store written by
 * many small transactions, as ingest writes one, is spread over many FTS5 segments; the bounded
 * merge steps merge them by size (a full merge only once the small segments hold a share of the
 * largest), go on where they stopped when writes come between them, change no search's rows or
 * order, and over a history of many passes write each page a bounded number of times.
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
import { runCaptured } from "../../test-support/captured-run.js";
import { openStore } from "../open-store.js";
import type { SearchSort, Store } from "../store.js";
import { FEED_FTS } from "./fts5-feed-index.js";
import { CLICKED_FTS } from "./sqlite-clicked-index.js";
import {
  chooseMerge,
  FULL_MERGE_SHARE,
  type IndexLevel,
  mergeIndexStep,
  readIndexLevels,
  searchIndexSegments,
  segmentPages,
} from "./sqlite-search-maintenance.js";

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

/** What the policy would do next on each index: "none" once the steps are done. */
function restingChoices(path: string): string[] {
  const db = new Database(path, { readonly: true });
  try {
    return TABLES.map((t) => chooseMerge(readIndexLevels(db, t)));
  } finally {
    db.close();
  }
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
  it("merges a spread index by size, leaves nothing to merge and changes no search", async () => {
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
        // What the policy wants of each index before the merge. The clicked index's rows carry
        // period tokens (schema 32), so FTS5's own promotion keeps it in few segments of distinct
        // levels: nothing to merge there, and the merge must leave it as it is.
        const due = restingChoices(path);
        assert.notEqual(due[0], "none", `posts_fts is spread: ${due}`);
        assert.notEqual(due[2], "none", `the per-feed index is spread: ${due}`);
        const before = await answers(store);
        const merge = await mergeSearchIndex(store);
        assert.equal(merge.merged, true);
        assert.ok(merge.steps >= 2, `steps: ${merge.steps}`);
        const merged = segments(path);
        assert.ok(
          merged.every((n, i) => (due[i] === "none" ? n === spread[i] : n < spread[i]!)),
          `spread ${spread} (${due}), merged ${merged}`,
        );
        assert.deepEqual(restingChoices(path), ["none", "none", "none"]);
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

  it("goes on where it stopped when writes come between steps, and converges", () => {
    const db = new Database(":memory:");
    try {
      db.exec("CREATE VIRTUAL TABLE t USING fts5(body)");
      const insert = db.prepare("INSERT INTO t (body) VALUES (?)");
      const doc = (i: number) =>
        Array.from({ length: 150 }, (_, k) => `w${(i * 131 + k * 17) % 5000}`).join(" ");
      db.transaction(() => {
        for (let i = 0; i < 60; i++) insert.run(doc(i));
      })();
      // One transaction a post: the small segments soon hold more than the share of the largest.
      for (let i = 60; i < 400; i++) insert.run(doc(i));
      assert.equal(chooseMerge(readIndexLevels(db, "t")), "full");
      // One page per step: a merge of many steps, with a write (a new segment) after each one.
      let steps = 0;
      let writes = 0;
      while (mergeIndexStep(db, "t", 1)) {
        steps++;
        if (writes < 20) insert.run(doc(1000 + writes++));
        assert.ok(steps < 100_000, "the merge converges");
      }
      assert.ok(writes === 20 && steps > 20, `steps ${steps}, writes ${writes}`);
      assert.equal(chooseMerge(readIndexLevels(db, "t")), "none");
      assert.ok(searchIndexSegments(db, "t") <= 4, `segments ${searchIndexSegments(db, "t")}`);
    } finally {
      db.close();
    }
  });

  it("chooses from the segments' sizes: a full merge only once the small ones hold the share", () => {
    const level = (merging: number, ...pages: number[]): IndexLevel => ({
      merging,
      segments: pages.map((n, i) => ({ id: i + 1, first: 1, last: n })),
    });
    assert.equal(chooseMerge([]), "none");
    assert.equal(chooseMerge([level(0, 1000)]), "none");
    assert.equal(chooseMerge([level(0, 10, 10), level(0, 1000)]), "none");
    assert.equal(chooseMerge([level(0, 300, 200), level(0, 1000)]), "full");
    assert.equal(chooseMerge([level(2, 10, 10), level(0, 1000)]), "continue");
    assert.equal(chooseMerge([level(0, 5, 5, 5, 5), level(0, 1000)]), "level");
    // Never a level merge that would rewrite the largest segment.
    assert.equal(chooseMerge([level(0, 5), level(0, 1000, 5, 5, 5)]), "none");
  });

  it("rewrites each page a bounded number of times over many ingest passes", () => {
    const history = (policy: "none" | "tiered") => {
      const db = new Database(":memory:");
      try {
        db.exec("CREATE VIRTUAL TABLE t USING fts5(body)");
        const insert = db.prepare("INSERT INTO t (body) VALUES (?)");
        let seed = 7;
        const next = () => {
          seed = (seed * 1103515245 + 12345) % 2147483648;
          return seed / 2147483648;
        };
        const doc = () => Array.from({ length: 40 }, () => `w${Math.floor(4000 ** next())}`).join(" ");
        let known = new Map<number, [number, number]>();
        // Leaf pages that a segment did not hold before: written since the last count.
        const count = () => {
          const now = new Map<number, [number, number]>();
          for (const l of readIndexLevels(db, "t"))
            for (const g of l.segments) now.set(g.id, [g.first, g.last]);
          let fresh = 0;
          for (const [id, [first, last]] of now) {
            const old = known.get(id);
            const overlap = old ? Math.max(0, Math.min(last, old[1]) - Math.max(first, old[0]) + 1) : 0;
            fresh += last - first + 1 - overlap;
          }
          known = now;
          return { fresh, segments: now.size };
        };
        const atRest: number[] = [];
        let byWrites = 0;
        let bySteps = 0;
        for (let pass = 0; pass < 60; pass++) {
          const updates = pass === 0 ? 150 : 1 + Math.floor(next() * 20);
          for (let u = 0; u < updates; u++) {
            db.transaction(() => {
              for (let i = 1 + Math.floor(next() * 6); i > 0; i--) insert.run(doc());
            })();
            byWrites += count().fresh;
          }
          if (policy === "tiered") while (mergeIndexStep(db, "t", 50)) bySteps += count().fresh;
          atRest.push(count().segments);
        }
        const final = readIndexLevels(db, "t")
          .flatMap((l) => l.segments)
          .reduce((sum, g) => sum + segmentPages(g), 0);
        return { byWrites, bySteps, final, atRest };
      } finally {
        db.close();
      }
    };
    const fts5 = history("none");
    const tiered = history("tiered");
    // The steps' full merges write at most (1 + 1 / share) pages per page the writes wrote (each
    // starts once the small segments hold the share of the largest, and takes them in once); their
    // level merges move a page up at most one level of four times its size each time.
    const levels = Math.ceil(Math.log(tiered.final) / Math.log(4));
    assert.ok(
      tiered.bySteps <= (1 + 1 / FULL_MERGE_SHARE + levels) * tiered.byWrites,
      `steps wrote ${tiered.bySteps}, writes ${tiered.byWrites}, ${levels} levels`,
    );
    assert.ok(
      Math.max(...tiered.atRest) < Math.max(...fts5.atRest),
      `segments at rest: tiered ${tiered.atRest}, FTS5 alone ${fts5.atRest}`,
    );
  });

  it("feed-service ingest merges a spread index after its pass and says so, in text and in --json", async () => {
    const dir = mkdtempSync(join(tmpdir(), "feed-merge-cli-"));
    const path = join(dir, "cli.db");
    try {
      const store = await openStore(path);
      try {
        // A loopback feed: ingest refuses it without fetching (no --allow-private-fetch), and the
        // merge runs after the pass whatever its feeds did.
        const feed = await store.addFeed({ feedUrl: "http://127.0.0.1:9/feed.xml", feedName: "Loopback" });
        await writeSpread(store, feed.feedId, 0, 40);
      } finally {
        await store.close();
      }
      const spread = segments(path);
      assert.ok(
        spread.some((n) => n > 2),
        `spread: ${spread}`,
      );
      const plain = await runCaptured(["ingest", "--database", path]);
      assert.match(plain.stdout, /^ingest: 1 feed: 0 updated, 0 not modified, 1 failed/);
      assert.match(plain.stdout, /^search index: merged in \d+ steps, \d+\.\d s$/m);
      assert.deepEqual(restingChoices(path), ["none", "none", "none"]);
      assert.ok(
        segments(path).every((n, i) => n <= spread[i]!),
        `spread ${spread}, after ${segments(path)}`,
      );
      // Merged already: one step that finds nothing to do, and no line for it.
      const json = JSON.parse((await runCaptured(["ingest", "--all", "--json", "--database", path])).stdout);
      assert.deepEqual([json.searchIndexMerge.steps, json.searchIndexMerge.merged], [1, true]);
      const quiet = await runCaptured(["ingest", "--all", "--database", path]);
      assert.doesNotMatch(quiet.stdout, /search index/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
