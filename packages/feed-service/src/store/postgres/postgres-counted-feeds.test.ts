/**
 * The counted words' months per feed (postgres-counted-feeds.ts, migration 52): each counted
 * word's matches per feed and month held to counting every post (brute force), and the date
 * pages of a counted word within `feed:` (newest first, ties by id descending: spec §4) held to a
 * full sort of every match at offsets 0, inside the first month, the middle, across months at
 * limit 1000, the last page, the last post, past the end; for a `feed:` of many feeds (through
 * posts_by_feed), of a few (facets in the index) and of one; again after posts are added,
 * removed, re-worded, moved to another feed or day and a feed removed; a word whose months are
 * not counted, counts that disagree with the posts, queries the counts cannot answer, and a
 * truncation; and the search itself, through the counts past COUNTED_FEEDS_DEPTH only.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type pg from "pg";
import {
  addNamedFeeds,
  assertEachAsRecounted,
  COUNTED_CHOICE,
  DAY,
  feedPostsHolding,
  insertSeries,
  NAMED_FEEDS,
  recountFeedPosts,
  resolvedQuery,
} from "../../test-support/postgres-counted-fixture.js";
import { recordingSql } from "../../test-support/recorded-statements.js";
import { openTestPostgresStore, type TestPostgresStore } from "../../test-support/test-postgres-server.js";
import type { SearchSort } from "../store.js";
import { COUNTED_FEEDS_DEPTH, countedFeedsPage, syncFeedMonths } from "./postgres-counted-feeds.js";
import { syncCountedWords } from "./postgres-counted-words.js";
import { planOf } from "./postgres-operator-plan.js";
import { MONTH_DAYS } from "./postgres-scope-months.js";
import { searchWithOperators } from "./postgres-search-operators.js";
import type { PostgresStore } from "./postgres-store.js";

const WORDS = ["amber", "birch"];

let db: TestPostgresStore;
let store: PostgresStore;
let pool: pg.Pool;
let feeds: number[];

/** `count` posts from `from` on (ids of the sequence), all in English, at five times of their day. */
async function insertPosts(from: number, count: number, prefix: string): Promise<void> {
  await insertSeries(pool, feeds, from, count, prefix, { timesOfDay: true });
}

before(async () => {
  db = await openTestPostgresStore("counted_feeds");
  ({ store, pool } = db);
  // "Tagebuch n", a `feed:` of many, read through posts_by_feed.
  feeds = await addNamedFeeds(store);
  await insertPosts(1, 9000, "a");
  await pool.query("ANALYZE");
  assert.equal(await syncCountedWords(pool, COUNTED_CHOICE), 2);
});
after(() => db?.close());

/** Each counted word's months against counting every post holding it. */
async function assertMonths(label: string): Promise<void> {
  await assertEachAsRecounted(
    pool,
    label,
    WORDS,
    `SELECT m.feed_id, m.month, m.posts FROM counted_feed_months m
      JOIN counted_searches s ON s.id = m.search_id JOIN counted_feed_searches k ON k.search_id = s.id
      WHERE s.lexeme = $1 AND m.posts <> 0 ORDER BY 1, 2`,
    `SELECT p.feed_id, floor(post_day(p.post_date) / ${MONTH_DAYS}.0)::int AS month, count(*)::int AS posts
      FROM posts p WHERE $1 = ANY(tsvector_to_array(p.search_vector)) GROUP BY 1, 2 ORDER BY 1, 2`,
    100,
  );
}

/** Every match of `word` in the feeds named like `like`, newest first. */
async function sorted(word: string, like: string): Promise<number[]> {
  return (await feedPostsHolding(pool, word, like, "date")).ids;
}

const queryOf = (terms: string) => resolvedQuery(store, terms);

/** The counted path's page (null: it does not answer). */
async function countedPage(terms: string, sort: SearchSort, page: { offset: number; limit: number }) {
  const query = await queryOf(terms);
  return countedFeedsPage(pool, { ...page, ...query, sort }, planOf(query.query, query.languageIds), 0);
}

/** Date pages against the full sort: the counted path (which must answer), and the search itself. */
async function assertPages(label: string): Promise<void> {
  for (const word of WORDS) {
    for (const [name, like] of NAMED_FEEDS) {
      const ids = await sorted(word, like);
      const terms = `feed:${name} ${word}`;
      assert.ok(ids.length > 200, `${label}: ${terms} has ${ids.length}`);
      const mid = Math.floor(ids.length / 2);
      for (const [offset, limit] of [
        [0, 20],
        [7, 20],
        [mid, 20],
        [mid - 400, 1000],
        [ids.length - 20, 20],
        [ids.length - 1, 20],
        [ids.length, 20],
        [ids.length + 30, 20],
      ] as const) {
        if (offset < 0) continue;
        const at = `${label}: '${terms}' at ${offset}+${limit} of ${ids.length}`;
        const expected = ids.slice(offset, offset + limit);
        assert.deepEqual(await countedPage(terms, "date", { offset, limit }), expected, `${at}: counted`);
        const query = await queryOf(terms);
        const found = await searchWithOperators(pool, { ...query, sort: "date", offset, limit });
        assert.deepEqual(
          found.map((p) => p.postId),
          expected,
          `${at}: search`,
        );
      }
    }
  }
}

describe("postgres counted words' months per feed", () => {
  it("counts each word's matches per feed and month, and pages the feeds' matches by date", async () => {
    await assertMonths("counted");
    await assertPages("counted");
  });

  it("keeps the counts exact when posts come, go, change words, feed or day, and a feed goes", async () => {
    await insertPosts(20_001, 1500, "b");
    await pool.query("DELETE FROM posts WHERE id % 19 = 5");
    // Re-worded: some posts lose a counted word, some gain one.
    await pool.query("UPDATE posts SET search_vector = 'birch:1 w1:2'::tsvector WHERE id % 23 = 3");
    await pool.query(
      "UPDATE posts SET search_vector = search_vector || 'amber:9'::tsvector WHERE id % 29 = 4",
    );
    await pool.query("UPDATE posts SET feed_id = $1 WHERE id % 31 = 6", [feeds[20]]);
    await pool.query(`UPDATE posts SET post_date = post_date - ${40 * DAY} WHERE id % 37 = 7`);
    // Words and day in one statement: moved once.
    await pool.query(
      `UPDATE posts SET post_date = post_date + ${DAY}, search_vector = 'amber:1'::tsvector WHERE id % 41 = 8`,
    );
    assert.ok(await store.removeFeed(feeds[30]!));
    feeds[30] = (await store.addFeed({ feedUrl: "https://c.test/30b", feedName: "Tagebuch 30b" })).feedId;
    await recountFeedPosts(pool);
    await assertMonths("after the writes");
    await assertPages("after the writes");
  });

  it("answers nothing from counts that disagree with the posts, or from a word not counted per feed", async () => {
    const ids = await sorted("amber", "Tagebuch %");
    // A month near the middle off by one: the pages from it on are not trusted.
    const { rows } = await pool.query<{ day: number; feed_id: number }>(
      "SELECT post_day(post_date) AS day, feed_id FROM posts WHERE id = $1",
      [ids[Math.floor(ids.length / 2)]],
    );
    const month = Math.floor(rows[0]!.day / MONTH_DAYS);
    const { rowCount } = await pool.query(
      `UPDATE counted_feed_months SET posts = posts + 1 WHERE month = $1 AND feed_id = $2
        AND search_id = (SELECT id FROM counted_searches WHERE lexeme = 'amber')`,
      [month, rows[0]!.feed_id],
    );
    assert.equal(rowCount, 1);
    const page = { offset: Math.floor(ids.length / 2), limit: 20 };
    assert.equal(await countedPage("feed:tagebuch amber", "date", page), null);
    // (Pages past that month take its count as the posts'; the counts are held to the posts above.)
    const found = await searchWithOperators(pool, {
      ...(await queryOf("feed:tagebuch amber")),
      sort: "date",
      ...page,
    });
    assert.deepEqual(
      found.map((p) => p.postId),
      ids.slice(page.offset, page.offset + 20),
    );
    await pool.query("DELETE FROM counted_feed_searches");
    assert.equal(await countedPage("feed:tagebuch birch", "date", { offset: 0, limit: 20 }), null);
    assert.equal(await syncFeedMonths(pool), 2);
    assert.equal(await syncFeedMonths(pool), 0);
    await assertMonths("counted again");
    await assertPages("counted again");
  });

  it("leaves queries the counts do not describe, and shallow pages, to the other plans", async () => {
    const query = await queryOf("feed:tagebuch amber");
    const plan = planOf(query.query, query.languageIds);
    const shallow = { ...query, sort: "date" as const, offset: COUNTED_FEEDS_DEPTH - 20, limit: 20 };
    assert.equal(await countedFeedsPage(pool, shallow, plan), null, "shallow");
    for (const [terms, sort] of [
      ["feed:tagebuch amber", "relevance"],
      ["feed:tagebuch amber", "clicks"],
      ["feed:tagebuch amber -birch", "date"],
      ["feed:tagebuch amber birch", "date"],
      ["feed:tagebuch lang:en amber", "date"],
      ["feed:tagebuch after:2025-06-01 amber", "date"],
      ["feed:tagebuch title:amber", "date"],
      ["feed:tagebuch amber*", "date"],
      ["feed:tagebuch w5", "date"],
      ["-feed:tagebuch amber", "date"],
    ] as const) {
      assert.equal(await countedPage(terms, sort, { offset: 100, limit: 20 }), null, `${terms} by ${sort}`);
    }
  });

  it("forgets the months when the posts are truncated and counts them again with the words", async () => {
    await pool.query("TRUNCATE posts CASCADE");
    const { rows } = await pool.query(
      "SELECT (SELECT count(*) FROM counted_feed_months)::int + (SELECT count(*) FROM counted_feed_searches)::int AS n",
    );
    assert.equal(rows[0].n, 0);
    await insertPosts(1, 6000, "d");
    await pool.query("ANALYZE posts");
    assert.equal(await syncCountedWords(pool, COUNTED_CHOICE), 2);
    await assertMonths("after the truncation");
    await assertPages("after the truncation");
  });

  it("reads the search's pages deeper than COUNTED_FEEDS_DEPTH through the counts, and shallower ones not", async () => {
    await insertPosts(10_001, 32_000, "e");
    await pool.query("ANALYZE posts");
    const ids = await sorted("amber", "Tagebuch %");
    assert.ok(ids.length > COUNTED_FEEDS_DEPTH + 1000, `${ids.length} matches`);
    const query = await queryOf("feed:tagebuch amber");
    for (const offset of [
      0,
      COUNTED_FEEDS_DEPTH + 7,
      Math.floor(ids.length / 2) + 3,
      ids.length - 20,
      ids.length + 5,
    ]) {
      const { sql, ran } = recordingSql(pool);
      const found = await searchWithOperators(sql, { ...query, sort: "date", offset, limit: 20 });
      assert.deepEqual(
        found.map((p) => p.postId),
        ids.slice(offset, offset + 20),
        `at ${offset} of ${ids.length}`,
      );
      const counted = ran.some((text) => text.includes("FROM counted_feed_months"));
      assert.equal(counted, offset + 20 > COUNTED_FEEDS_DEPTH, `counted at ${offset}`);
    }
  });
});
