/**
 * The smart categories' counts per day (postgres-counted-searches.ts) and the posts per month
 * (postgres-scope-months.ts) on posts stored out of date order, in several languages: the counts are held to counting every post's words (brute force,
 * `search_vector @@` the query, not the search index), and every page of every smart category,
 * the last one included, to sorting every match; again after posts are added, changed, re-filed
 * and removed, after a smart category goes and comes back, and after the posts are truncated.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type pg from "pg";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import {
  assertAsRecounted,
  type CountedStore,
  DAY,
  languageSets,
  openCountedStore,
} from "../../test-support/postgres-counted-fixture.js";
import { recordingSql } from "../../test-support/recorded-statements.js";
import { mulberry32Draws } from "../../test-support/seeded-draws.js";
import type { IncomingPost } from "../store.js";
import { syncCountedSearches } from "./postgres-counted-searches.js";
import { dayRangeBlocks } from "./postgres-search-facets.js";
import { searchKey } from "./postgres-search-key.js";
import { searchPosts } from "./postgres-search-queries.js";
import type { PostgresStore } from "./postgres-store.js";
import { toTsquery } from "./postgres-text-search.js";

const NOW = Date.UTC(2026, 5, 1);
const WORDS = ["river", "stone", "light", "garden", "signal", "market"];
/** One word, an OR, an AND, a phrase of two words and one of three (checked on the posts' words). */
const QUERIES = ["river", "stone OR garden", "light market", '"river stone"', '"river stone light"'];

let fx: CountedStore;
let store: PostgresStore;
let pool: pg.Pool;
let languages: number[];
let feeds: number[];
let categories: number[];

const next = mulberry32Draws(19);

/** A feed's archive, newest first, over up to three years, some posts sharing a day. */
function archive(prefix: string, size: number, languageId: number): IncomingPost[] {
  return Array.from({ length: size }, (_, i) => {
    const age = Math.floor(next() * 1_095 * DAY);
    const words = Array.from({ length: 4 }, () => WORDS[Math.floor(next() * WORDS.length)]!);
    return {
      guid: `${prefix}${i}`,
      link: `https://example.test/${prefix}/${i}`,
      // One post in six holds the phrases, so that every language has pages of them.
      title: `${i % 6 === 0 ? "river stone light " : ""}${words.join(" ")}`,
      excerpt: `post ${i}`,
      content: "",
      publishedAt: NOW - (i % 5 === 0 ? Math.floor(age / DAY) * DAY : age),
      updatedAt: null,
      seenAt: NOW,
      languageId,
    };
  });
}

/** Every post matching `query` (its words on `search_vector`), newest first. */
async function matching(query: string, languageIds: number[] | null): Promise<number[]> {
  const { rows } = await pool.query<{ id: number }>(
    `SELECT id FROM posts WHERE search_vector @@ $1::tsquery AND ($2::int[] IS NULL OR language_id = ANY($2::int[]))
      ORDER BY post_date DESC, id DESC`,
    [toTsquery(parseSearchQuery(query)), languageIds],
  );
  return rows.map((r) => r.id);
}

/** The counts kept against counting every post: per smart category, language (0: all) and day. */
async function assertCounts(label: string): Promise<void> {
  for (const { smartCategoryQuery: text } of await store.smartCategories()) {
    const key = searchKey(parseSearchQuery(text))!;
    await assertAsRecounted(
      pool,
      `${label}: '${text}'`,
      [
        `SELECT d.language_id, d.day, d.posts AS n FROM search_days d JOIN counted_searches s ON s.id = d.search_id
          WHERE s.index_query = $1 AND s.verify_query IS NOT DISTINCT FROM $2 AND d.posts <> 0 ORDER BY 1, 2`,
        [key.index, key.verify],
      ],
      [
        `SELECT coalesce(p.language_id, 0) AS language_id, floor(p.post_date / ${DAY}.0)::int AS day, count(*)::int AS n
          FROM posts p WHERE p.search_vector @@ $1::tsquery
          GROUP BY GROUPING SETS ((p.language_id, 2), (2)) ORDER BY 1, 2`,
        [toTsquery(parseSearchQuery(text))],
      ],
    );
  }
}

async function assertPages(label: string): Promise<void> {
  for (const text of QUERIES) {
    for (const languageIds of languageSets(languages)) {
      const expected = await matching(text, languageIds);
      assert.ok(expected.length > 20, `${text}: ${expected.length} matches`);
      for (const [offset, limit] of [
        [0, 20],
        [17, 20],
        [Math.floor(expected.length / 2), 1000],
        [expected.length - 20, 20],
        [expected.length - 3, 20],
        [expected.length, 20],
        [expected.length + 50, 20],
      ] as const) {
        const found = await store.searchPosts({
          query: parseSearchQuery(text),
          sort: "date",
          limit,
          offset,
          languageIds,
        });
        assert.deepEqual(
          found.map((p) => p.postId),
          expected.slice(offset, offset + limit),
          `${label}: '${text}' in ${JSON.stringify(languageIds)} at ${offset}, limit ${limit}`,
        );
      }
    }
  }
}

/** scope_months against adding up scope_days per 28-day month. */
async function assertMonths(label: string): Promise<void> {
  await assertAsRecounted(
    pool,
    `${label}: months`,
    [
      "SELECT category_id, language_id, month, posts::int AS n FROM scope_months WHERE posts <> 0 ORDER BY 1, 2, 3",
      [],
    ],
    [
      `SELECT category_id, language_id, floor(day / 28.0)::int AS month, sum(posts)::int AS n FROM scope_days
        GROUP BY 1, 2, 3 HAVING sum(posts) <> 0 ORDER BY 1, 2, 3`,
      [],
    ],
  );
}

interface Row {
  id: number;
  post_date: number;
  feed_id: number;
  category_id: number | null;
  language_id: number;
}

async function everyPost(): Promise<Row[]> {
  const { rows } = await pool.query<Row>(
    "SELECT id, post_date, feed_id, category_id, language_id FROM posts",
  );
  return rows.map((r) => ({ ...r, post_date: Number(r.post_date) }));
}

/** Deep pages of recent and category posts (a date bound too) and prolific feeds, against every post. */
async function assertListsAndWindows(label: string): Promise<void> {
  const all = await everyPost();
  const newestFirst = (a: Row, b: Row) => b.post_date - a.post_date || b.id - a.id;
  const sinceDate = NOW - 500 * DAY;
  const scopes: Array<{ categoryId?: number; languageIds: number[] | null; sinceDate?: number }> = [
    { languageIds: null },
    { languageIds: [languages[1]!] },
    { categoryId: categories[0]!, languageIds: null },
    { categoryId: categories[1]!, languageIds: [languages[0]!, languages[2]!] },
    { categoryId: categories[0]!, languageIds: null, sinceDate },
  ];
  for (const scope of scopes) {
    const expected = all
      .filter((r) => scope.categoryId === undefined || r.category_id === scope.categoryId)
      .filter((r) => scope.languageIds === null || scope.languageIds.includes(r.language_id))
      .filter((r) => scope.sinceDate === undefined || r.post_date > scope.sinceDate)
      .sort(newestFirst)
      .map((r) => r.id);
    for (const offset of [1001, Math.floor(expected.length / 2), expected.length - 7, expected.length + 3]) {
      const page = { limit: 25, offset: Math.max(0, offset), languageIds: scope.languageIds };
      const found =
        scope.categoryId === undefined
          ? await store.recentPosts(page)
          : await store.postsByCategory({
              ...page,
              categoryId: scope.categoryId,
              sincePostId: null,
              sinceDate: scope.sinceDate ?? null,
            });
      assert.deepEqual(
        found.map((p) => p.postId),
        expected.slice(page.offset, page.offset + 25),
        `${label}: ${JSON.stringify(scope)} at ${page.offset} of ${expected.length}`,
      );
    }
  }
  for (const days of [0.5, 3, 40, 200, 700, 36_500]) {
    const since = NOW - days * DAY;
    const counts = new Map<number, number>();
    for (const r of all) if (r.post_date >= since) counts.set(r.feed_id, (counts.get(r.feed_id) ?? 0) + 1);
    const expected = [...counts].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, 30);
    const found = await store.mostProlificFeeds({ since, limit: 30 });
    assert.deepEqual(
      found.map((f) => [f.feedId, Number(f.periodPosts)]),
      expected,
      `${label}: prolific over ${days} days`,
    );
  }
}

before(async () => {
  fx = await openCountedStore("counted_searches");
  ({ store, pool, languages } = fx);
  categories = (await Promise.all(["News", "Code"].map((n) => store.addCategory(n)))).map(
    (c) => c.categoryId,
  );
  feeds = [];
  // Posts first, the smart categories after (counted when added), then more posts (counted by
  // the triggers).
  for (let f = 0; f < 60; f++) {
    const feed = await store.addFeed({
      feedUrl: `https://f${f}.test/feed`,
      feedName: `Feed ${f}`,
      languageId: languages[f % 3]!,
      ...(f % 4 === 3 ? {} : { categoryId: categories[f % 2]! }),
    });
    feeds.push(feed.feedId);
    const size = Math.max(2, Math.floor(400 / (1 + f) ** 1.1));
    await store.applyFeedUpdate(feed.feedId, {
      fetchState: {},
      posts: archive(`a${f}-`, size, languages[f % 3]!),
    });
  }
  for (const [i, query] of QUERIES.entries()) await store.addSmartCategory({ name: `Smart ${i}`, query });
  for (let f = 0; f < 60; f += 3) {
    await store.applyFeedUpdate(feeds[f]!, {
      fetchState: {},
      posts: archive(`b${f}-`, 25, languages[f % 3]!),
    });
  }
});
after(() => fx?.db.close());

describe("time blocks of a range of days", () => {
  it("cover every day of the range once and none outside it, in few blocks", () => {
    for (const [from, to] of [
      [20_466, 20_466],
      [20_460, 20_475],
      [19_000, 20_470],
      [-30, 400],
      [20_384, 20_747],
    ] as const) {
      const blocks = dayRangeBlocks(from, to);
      const days = blocks.flatMap((b) => Array.from({ length: b.days }, (_, i) => b.first + i));
      assert.deepEqual(
        days,
        Array.from({ length: to - from + 1 }, (_, i) => from + i),
        `${from}..${to}`,
      );
      for (const b of blocks) assert.equal(((b.first % b.days) + b.days) % b.days, 0, `${b.lexeme} aligned`);
      assert.ok(blocks.length <= 50, `${blocks.length} blocks`);
    }
    assert.deepEqual(
      dayRangeBlocks(20_384, 20_747).map((b) => b.lexeme),
      [" yr 56"],
    );
  });
});

describe("postgres posts per category, language and month", () => {
  it("keeps scope_months the sum of scope_days per month", async () => {
    await assertMonths("after the load");
  });

  it("seeks deep pages through the months, and counts prolific feeds' windows, as every post says", async () => {
    await assertListsAndWindows("after the load");
  });
});

describe("postgres smart categories counted per day", () => {
  it("counts each smart category's query once, by the text the search index reads", async () => {
    const { rows } = await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM counted_searches");
    assert.equal(rows[0]!.n, QUERIES.length);
    await assertCounts("after the load");
  });

  it("pages every smart category, last pages and languages included, as sorting every match", async () => {
    await assertPages("after the load");
  });

  it("reads a last page from its days alone: no statement reads the matches of other days", async () => {
    const { sql, ran: seen } = recordingSql(pool);
    const expected = await matching("river", null);
    const found = await searchPosts(sql, {
      query: parseSearchQuery("river"),
      sort: "date",
      limit: 20,
      offset: expected.length - 20,
      languageIds: null,
    });
    assert.deepEqual(
      found.map((p) => p.postId),
      expected.slice(-20),
    );
    // The estimate (whether a short walk of the newest posts holds the page: not a last one), the
    // counted search, its days, then one statement of the search index narrowed to the page's
    // days, then columns.
    assert.equal(seen.length, 6, seen.join("\n"));
    assert.match(seen[0]!, /^EXPLAIN/);
    assert.match(seen[1]!, /FROM pg_class/);
    assert.match(seen[2]!, /FROM counted_searches/);
    assert.match(seen[3]!, /FROM search_days/);
    assert.match(seen[4]!, /@@/);
    assert.match(seen[5]!, /id = ANY/);
  });

  it("keeps the counts exact when posts are changed, re-filed, re-dated, clicked and removed", async () => {
    const { rows: some } = await pool.query<{ id: number }>(
      "SELECT id FROM posts ORDER BY id % 7, id LIMIT 60",
    );
    const ids = some.map((r) => r.id);
    // A post's words change as a refresh stores them (the writer's own update).
    await store.applyFeedUpdate(feeds[1]!, {
      fetchState: {},
      posts: archive("a1-", 10, languages[1]!).map((p) => ({
        ...p,
        title: "river stone light market garden",
      })),
    });
    await pool.query("UPDATE posts SET language_id = $1 WHERE id = ANY($2::int[])", [
      languages[2],
      ids.slice(0, 20),
    ]);
    await pool.query("UPDATE posts SET post_date = post_date - 400 * $1::bigint WHERE id = ANY($2::int[])", [
      DAY,
      ids.slice(20, 40),
    ]);
    for (const id of ids.slice(40)) await store.insertClick(id, `k${id}`, NOW - DAY);
    assert.ok(await store.removeFeed(feeds[4]!));
    await assertCounts("after the changes");
    await assertPages("after the changes");
    await assertMonths("after the changes");
    await assertListsAndWindows("after the changes");
  });

  it("forgets a smart category's counts when it goes, and counts it again when it comes back", async () => {
    const smart = (await store.smartCategories()).find((c) => c.smartCategoryQuery === "light market")!;
    assert.ok(await store.removeSmartCategory(smart.smartCategoryId));
    const { rows } = await pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM counted_searches WHERE index_query = $1",
      ["'light' & 'market'"],
    );
    assert.equal(rows[0]!.n, 0);
    // Not counted: its pages are found as any search's, still exact.
    await assertPages("one query uncounted");
    await store.addSmartCategory({ name: "Again", query: "light market" });
    await assertCounts("counted again");
  });

  it("forgets every count when the posts are truncated, and counts again from the posts on sync", async () => {
    await pool.query("TRUNCATE posts CASCADE");
    const { rows } = await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM counted_searches");
    assert.equal(rows[0]!.n, 0);
    for (let f = 0; f < 6; f++) {
      await store.applyFeedUpdate(feeds[f === 4 ? 5 : f]!, {
        fetchState: {},
        posts: archive(`c${f}-`, 120, languages[f % 3]!),
      });
    }
    await syncCountedSearches(pool);
    await assertCounts("after the truncation");
    await assertPages("after the truncation");
    await assertMonths("after the truncation");
  });
});
