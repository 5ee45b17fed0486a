import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import Database from "better-sqlite3";
import { demoRareWords } from "../../demo/demo-vocabulary.js";
import { loadDemoData } from "../../demo/load-demo-data.js";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { incoming } from "../../test-support/store-contract/contract-fixture.js";
import type { SearchSort, Store } from "../store.js";
import { StatementCache } from "./sqlite-connection.js";
import { migrateSqlite } from "./sqlite-migrations.js";
import { searchPosts } from "./sqlite-search-queries.js";
import { openSqliteStore, SqliteStore } from "./sqlite-store.js";

// Date-sorted search scores only the page's id range (sqlite-post-queries.ts): the scores must be
// exactly those that ranking every hit gives, on any page.
describe("SQLite search scores by sort", () => {
  let store: Store;
  before(async () => {
    store = openSqliteStore(":memory:");
    await loadDemoData(store, { posts: 3000, now: Date.parse("2026-01-10T12:00:00Z") });
  });
  after(() => store.close());

  const search = (terms: string, sort: SearchSort, limit: number, offset = 0) =>
    store.searchPosts({ limit, offset, languageIds: null, query: parseSearchQuery(terms), sort });

  it("gives every hit the same score sorted by date as by relevance, page by page", async () => {
    const queries = [
      ...demoRareWords.slice(0, 12),
      `${demoRareWords[0]} OR ${demoRareWords[1]}`,
      `${demoRareWords[2]} OR ${demoRareWords[3]} OR ${demoRareWords[4]}`,
      "typescript OR rust",
    ];
    let compared = 0;
    for (const terms of queries) {
      const ranked = new Map((await search(terms, "relevance", 5000)).map((p) => [p.postId, p.score]));
      const byDate = await search(terms, "date", 5000);
      assert.equal(byDate.length, ranked.size, terms);
      for (const p of byDate) assert.equal(p.score, ranked.get(p.postId), `${terms}: post ${p.postId}`);
      for (let i = 1; i < byDate.length; i++) {
        const [a, b] = [byDate[i - 1]!, byDate[i]!];
        assert.ok(a.postDate > b.postDate || (a.postDate === b.postDate && a.postId > b.postId), terms);
      }
      const paged = await search(terms, "date", 4, 3);
      assert.deepEqual(paged, byDate.slice(3, 7), terms);
      compared += byDate.length;
    }
    assert.ok(compared > 100, `only ${compared} hits compared`);
  });
});

// A relevance page reads ids only for the hits that score at least its last one
// (sqlite-search-queries.ts): pages that end inside a run of equal scores must still order the
// run by id descending (spec §4), whether every hit is ranked or only the pool's newest.
describe("SQLite relevance pages that end among equal scores", () => {
  const db = new Database(":memory:");
  migrateSqlite(db);
  const store = new SqliteStore(db);
  const stmts = new StatementCache(db);
  const T = Date.parse("2026-01-10T12:00:00Z");
  before(async () => {
    const feed = await store.addFeed({ feedUrl: "https://ties.test/feed", feedName: "Ties" });
    // Three shapes of post, each scoring alike (same counts of the word, same lengths); their
    // other words differ, so no two are the same story. Dates out of id order.
    const shapes = [
      (i: number) => ({ title: `tieword tieword a${i}`, excerpt: `b${i} c${i}` }),
      (i: number) => ({ title: `tieword d${i} e${i}`, excerpt: `f${i} g${i}` }),
      (i: number) => ({ title: `h${i} j${i} k${i}`, excerpt: `tieword m${i}` }),
    ];
    const posts = Array.from({ length: 60 }, (_, i) =>
      incoming(`tie-${i}`, {
        ...shapes[i % 3]!(i),
        content: "",
        publishedAt: T - ((i * 37) % 60) * 60_000,
      }),
    );
    await store.applyFeedUpdate(feed.feedId, { fetchState: {}, posts });
  });
  after(() => store.close());

  it("orders each page by score, then id descending, as a full sort does", () => {
    const query = parseSearchQuery("tieword");
    for (const pool of [1000, 25]) {
      const bounds = { relevancePool: pool, termSamplePosts: 32_768 };
      const all = searchPosts(
        stmts,
        { limit: 1000, offset: 0, languageIds: null, query, sort: "relevance" },
        bounds,
      );
      assert.equal(all.length, Math.min(60, pool));
      const scores = new Set(all.map((p) => p.score));
      assert.equal(scores.size, 3, `three scores, ${pool}`);
      const sorted = [...all].sort((a, b) => b.score - a.score || b.postId - a.postId);
      assert.deepEqual(
        all.map((p) => p.postId),
        sorted.map((p) => p.postId),
        `${pool}`,
      );
      if (pool === 25) {
        const newest = db
          .prepare("SELECT id FROM posts ORDER BY post_date DESC, id DESC LIMIT 25")
          .pluck()
          .all() as number[];
        assert.deepEqual(new Set(all.map((p) => p.postId)), new Set(newest));
      }
      // Pages shallow enough for the bounded sort (twice their end under the pool) that start
      // after the first tie group: the hits ranked above the page are skipped by count.
      for (const [offset, limit] of [
        [0, 3],
        [2, 3],
        [3, 2],
        [7, 3],
        [8, 2],
        [9, 2],
        [5, 7],
        [18, 4],
        [20, 1],
        [21, 30],
      ]) {
        const page = searchPosts(
          stmts,
          { limit, offset, languageIds: null, query, sort: "relevance" },
          bounds,
        );
        assert.deepEqual(
          page.map((p) => [p.postId, p.score]),
          all.slice(offset, offset + limit).map((p) => [p.postId, p.score]),
          `pool ${pool}, offset ${offset}, limit ${limit}`,
        );
      }
    }
  });
});
