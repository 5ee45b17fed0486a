/**
 * The PostgreSQL store on data shaped unlike the demo (spec §4 Latency: any shape): 240 feeds of
 * very different sizes in three categories and four languages, each feed's archive stored in one
 * refresh from its newest post to its oldest, feed after feed, so that ids follow neither the
 * dates nor one feed; clicks on posts of every age. Every answer is compared with one worked out
 * from the rows themselves (brute force in JavaScript), deep pages included, so the date-ordered
 * reads, the day seeks on `scope_days`, the roll-ups and the clicked posts are held to the same
 * answers as on the demo's shape.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type pg from "pg";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { mulberry32Draws } from "../../test-support/seeded-draws.js";
import { openTestPostgresStore, type TestPostgresStore } from "../../test-support/test-postgres-server.js";
import type { IncomingPost } from "../store.js";
import type { PostgresStore } from "./postgres-store.js";

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 5, 1);
const WORDS = ["river", "stone", "light", "garden", "signal", "market", "winter", "paper"];

interface Row {
  id: number;
  post_date: number;
  feed_id: number;
  category_id: number | null;
  language_id: number;
  clicks: number;
  title: string;
}

let db: TestPostgresStore;
let store: PostgresStore;
let pool: pg.Pool;
let all: Row[];
let languages: number[];
let categories: number[];

const newestFirst = (a: Row, b: Row) => b.post_date - a.post_date || b.id - a.id;

before(async () => {
  db = await openTestPostgresStore("data_shapes");
  ({ store, pool } = db);
  const next = mulberry32Draws(31);
  languages = [
    1,
    ...(await Promise.all(["de", "fr", "ja"].map((c) => store.ensureLanguage(c)))).map((l) => l.languageId),
  ];
  categories = (await Promise.all(["News", "Code", "Art"].map((n) => store.addCategory(n)))).map(
    (c) => c.categoryId,
  );
  for (let f = 0; f < 240; f++) {
    // Heavy-tailed sizes: a few feeds with hundreds of posts, most with a handful.
    const size = Math.max(1, Math.floor(600 / (1 + f) ** 1.1));
    const languageId = languages[f % languages.length]!;
    const feed = await store.addFeed({
      feedUrl: `https://f${f}.test/feed`,
      feedName: `Feed ${f}`,
      languageId,
      ...(f % 4 === 3 ? {} : { categoryId: categories[f % 3]! }),
    });
    const posts: IncomingPost[] = [];
    // An archive: newest first, spread over up to three years, with some posts on one day.
    for (let i = 0; i < size; i++) {
      const age = Math.floor(next() * 1_095 * DAY);
      const word = WORDS[Math.floor(next() * WORDS.length)]!;
      posts.push({
        guid: `p${i}`,
        link: `https://f${f}.test/${i}`,
        title: `${word} ${WORDS[(f + i) % WORDS.length]} ${i}`,
        excerpt: `the ${word} of feed ${f}`,
        content: "",
        publishedAt: NOW - (i % 7 === 0 ? Math.floor(age / DAY) * DAY : age),
        updatedAt: null,
        seenAt: NOW,
        languageId,
      });
    }
    await store.applyFeedUpdate(feed.feedId, { fetchState: {}, posts });
  }
  // 400 posts drawn with the test's own seed (a partial Fisher-Yates shuffle), so a run replays.
  const ids = (await pool.query<{ id: number }>("SELECT id FROM posts ORDER BY id")).rows;
  for (let i = 0; i < 400; i++) {
    const j = i + Math.floor(next() * (ids.length - i));
    [ids[i], ids[j]] = [ids[j]!, ids[i]!];
  }
  ids.length = 400;
  for (const [n, { id }] of ids.entries()) {
    for (let k = 0; k <= n % 5; k++)
      await store.insertClick(id, `c${n}-${k}`, NOW - ((n * 7 + k) % 900) * DAY);
  }
  await pool.query("ANALYZE");
  all = (
    await pool.query<Row>("SELECT id, post_date, feed_id, category_id, language_id, clicks, title FROM posts")
  ).rows.map((r) => ({ ...r, post_date: Number(r.post_date) }));
});
after(() => db?.close());

describe("postgres store on posts stored out of date order, many small feeds, several languages", () => {
  it("stores ids that follow neither the dates nor one feed", () => {
    const byId = [...all].sort((a, b) => a.id - b.id);
    let inversions = 0;
    for (let i = 1; i < byId.length; i++) if (byId[i]!.post_date > byId[i - 1]!.post_date) inversions++;
    assert.ok(all.length > 2_500, `${all.length} posts`);
    assert.ok(inversions > all.length / 4, `${inversions} of ${all.length} ids follow the dates`);
  });

  it("pages recent posts and category posts, deep and last pages included, as sorting every post", async () => {
    const scopes: Array<{ categoryId?: number; languageIds: number[] | null }> = [
      { languageIds: null },
      { languageIds: [languages[1]!, languages[3]!] },
      { categoryId: categories[0]!, languageIds: null },
      { categoryId: categories[1]!, languageIds: [languages[1]!] },
    ];
    for (const scope of scopes) {
      const expected = all
        .filter((r) => scope.categoryId === undefined || r.category_id === scope.categoryId)
        .filter((r) => scope.languageIds === null || scope.languageIds.includes(r.language_id))
        .sort(newestFirst)
        .map((r) => r.id);
      for (const offset of [0, 999, 1001, 1500, expected.length - 7, expected.length]) {
        const page = { limit: 25, offset: Math.max(0, offset), languageIds: scope.languageIds };
        const found =
          scope.categoryId === undefined
            ? await store.recentPosts(page)
            : await store.postsByCategory({
                ...page,
                categoryId: scope.categoryId,
                sincePostId: null,
                sinceDate: null,
              });
        assert.deepEqual(
          found.map((p) => p.postId),
          expected.slice(page.offset, page.offset + 25),
          `${JSON.stringify(scope)} at ${page.offset}`,
        );
      }
    }
  });

  it("counts prolific feeds from either side of the window, and language data, as counting every post", async () => {
    for (const days of [0.5, 30, 400, 700, 36_500]) {
      const since = NOW - days * DAY;
      const counts = new Map<number, number>();
      for (const r of all) if (r.post_date >= since) counts.set(r.feed_id, (counts.get(r.feed_id) ?? 0) + 1);
      const expected = [...counts]
        .sort((a, b) => b[1] - a[1] || a[0] - b[0])
        .slice(0, 50)
        .map(([feedId, n]) => [feedId, n]);
      const found = await store.mostProlificFeeds({ since, limit: 50 });
      assert.deepEqual(
        found.map((f) => [f.feedId, Number(f.periodPosts)]),
        expected,
        `${days} days`,
      );
    }
    const data = await store.aggregateLanguageData(NOW);
    for (const id of languages) {
      const row = data.find((d) => d.languageId === id)!;
      const mine = all.filter((r) => r.language_id === id);
      assert.equal(Number(row.postCount), mine.length);
      assert.equal(
        Number(row.clicks),
        mine.reduce((sum, r) => sum + r.clicks, 0),
      );
    }
  });

  it("searches by date and by clicks, deep pages included, as checking every post", async () => {
    const word = "river";
    const { rows: hits } = await pool.query<{ id: number }>(
      "SELECT id FROM posts WHERE search_vector @@ $1::tsquery",
      [`'${word}'`],
    );
    const hit = new Set(hits.map((h) => h.id));
    const byDate = all
      .filter((r) => hit.has(r.id))
      .sort(newestFirst)
      .map((r) => r.id);
    const byClicks = all
      .filter((r) => hit.has(r.id))
      .sort((a, b) => b.clicks - a.clicks || b.id - a.id)
      .map((r) => r.id);
    assert.ok(byDate.length > 300, `${byDate.length} matches`);
    for (const [sort, expected] of [
      ["date", byDate],
      ["clicks", byClicks],
    ] as const) {
      for (const offset of [0, 40, byDate.length - 10]) {
        const found = await store.searchPosts({
          query: parseSearchQuery(word),
          sort,
          limit: 20,
          offset,
          languageIds: null,
        });
        assert.deepEqual(
          found.map((p) => p.postId),
          expected.slice(offset, offset + 20),
          `${word} by ${sort} at ${offset}`,
        );
      }
    }
  });

  it("keeps clicks off every index of posts: a click is a heap-only update", async () => {
    const { rows: indexed } = await pool.query<{ name: string }>(
      `SELECT i.indexrelid::regclass::text AS name FROM pg_index i
        WHERE i.indrelid = 'posts'::regclass
          AND (pg_get_indexdef(i.indexrelid) ~ '\\mclicks\\M')`,
    );
    assert.deepEqual(indexed, []);
    // An update is heap-only only when the row's page has room for its new version (PostgreSQL
    // docs, "Heap-Only Tuples"): the table is rewritten with 10% of every page free, so that the
    // answer depends on the indexes alone, not on how full all[0]'s page happens to be.
    await pool.query("ALTER TABLE posts SET (fillfactor = 90)");
    await pool.query("VACUUM FULL posts");
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      await client.query("UPDATE posts SET clicks = clicks + 1 WHERE id = $1", [all[0]!.id]);
      const { rows } = await client.query<{ updated: number; hot: number }>(
        `SELECT n_tup_upd::int AS updated, n_tup_hot_upd::int AS hot FROM pg_stat_xact_user_tables
          WHERE relid = 'posts'::regclass`,
      );
      assert.deepEqual(rows, [{ updated: 1, hot: 1 }]);
    } finally {
      await client.query("ROLLBACK");
      client.release();
    }
  });
});
