/**
 * The counted words' matches per feed and block of ids (postgres-counted-feed-clicks.ts,
 * migration 56): each counted word's matches per feed and block held to counting every post
 * (brute force), and the pages by clicks of a counted word within `feed:` (clicks descending, ties
 * by id descending, the unclicked after the clicked: spec §4) held to a full sort of every match at
 * offsets 0, the middle of the clicked ones, across the clicked/unclicked boundary, the middle of
 * the unclicked ones at limit 20 and 1000, the last page, the last post, past the end; for a
 * `feed:` of many feeds (the feeds' words), of a few (facets in the index) and of one, in every
 * language and in one (`lang:`); again after first clicks, more clicks, clicks back to none,
 * posts added, removed, re-worded and re-filed under another language (a post never changes
 * feed: postgres-clicked-feeds.ts);
 * counts that disagree with the posts, a word whose blocks are not counted, queries the counts do
 * not describe, a truncation; and the search itself, through the counts from SEEK_FROM_OFFSET only.
 * And the word plans' pages by clicks of a counted word in a language (`lang:de amber`, folded
 * into the page's languages) that need SEEK_FROM_OFFSET matches or more (1,000 rows from 0):
 * through the word's click blocks (postgres-counted-clicks.ts), held to the full sort too.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type pg from "pg";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import {
  addNamedFeeds,
  assertEachAsRecounted,
  COUNTED_CHOICE,
  feedPostsHolding,
  insertSeries,
  NAMED_FEEDS,
  postsHolding,
  recountFeedPosts,
  resolvedQuery,
} from "../../test-support/postgres-counted-fixture.js";
import { recordingSql } from "../../test-support/recorded-statements.js";
import { openTestPostgresStore, type TestPostgresStore } from "../../test-support/test-postgres-server.js";
import type { SearchSort } from "../store.js";
import { inTransaction } from "./postgres-connection.js";
import {
  COUNTED_FEED_BLOCK_IDS,
  countedFeedClicksPage,
  createCountedFeedClicks,
  syncFeedBlocks,
} from "./postgres-counted-feed-clicks.js";
import { syncCountedWords } from "./postgres-counted-words.js";
import { FEW_MATCHES } from "./postgres-few-matches.js";
import { planOf } from "./postgres-operator-plan.js";
import { SEEK_FROM_OFFSET } from "./postgres-plan-costs.js";
import { searchWithOperators } from "./postgres-search-operators.js";
import { searchPosts } from "./postgres-search-queries.js";
import type { PostgresStore } from "./postgres-store.js";

const WORDS = ["amber", "birch"];
/** Ids this far apart: 9,000 posts span a dozen blocks. */
const STEP = 41;

let db: TestPostgresStore;
let store: PostgresStore;
let pool: pg.Pool;
let feeds: number[];
let german: number;

/** Posts `from`..`from + count - 1` of the series (id = n x STEP), every 7th in German. */
async function insertPosts(from: number, count: number, prefix: string): Promise<void> {
  await insertSeries(pool, feeds, from, count, prefix, { idStep: STEP, german });
}

/** Clicks: a share of the posts (`every`-th of those with `mod`) set to a few counts, with ties. */
async function click(every: number, mod: number, clicks: string): Promise<void> {
  await pool.query(`UPDATE posts SET clicks = ${clicks} WHERE (id / ${STEP}) % ${every} = ${mod}`);
}

before(async () => {
  db = await openTestPostgresStore("counted_feed_clicks");
  ({ store, pool } = db);
  german = (await store.ensureLanguage("de")).languageId;
  feeds = await addNamedFeeds(store);
  await insertPosts(1, 9000, "a");
  await click(5, 1, "1 + (id / 41) % 4");
  await click(11, 3, "7");
  await pool.query("ANALYZE");
  assert.equal(await syncCountedWords(pool, COUNTED_CHOICE), 2);
});
after(() => db?.close());

/** Each counted word's blocks against counting every post holding it. */
async function assertBlocks(label: string): Promise<void> {
  await assertEachAsRecounted(
    pool,
    label,
    WORDS,
    `SELECT b.feed_id, b.block, b.posts FROM counted_feed_blocks b
      JOIN counted_searches s ON s.id = b.search_id JOIN counted_feed_block_searches k ON k.search_id = s.id
      WHERE s.lexeme = $1 AND b.posts <> 0 ORDER BY 1, 2`,
    `SELECT p.feed_id, p.id / ${COUNTED_FEED_BLOCK_IDS} AS block, count(*)::int AS posts
      FROM posts p WHERE $1 = ANY(tsvector_to_array(p.search_vector)) GROUP BY 1, 2 ORDER BY 1, 2`,
    100,
  );
}

/** Every match of `word` in the feeds named like `like` (and `language`), in clicks order, with how many are clicked. */
const sorted = (word: string, like: string, language: number | null) =>
  feedPostsHolding(pool, word, like, "clicks", language);

const queryOf = (terms: string) => resolvedQuery(store, terms);

/** The counted path's page (null: it does not answer). */
async function countedPage(terms: string, sort: SearchSort, page: { offset: number; limit: number }) {
  const query = await queryOf(terms);
  return countedFeedClicksPage(pool, { ...page, ...query, sort }, planOf(query.query, query.languageIds), 0);
}

/** Pages by clicks against the full sort: the counted path (which must answer in every language), and the search. */
async function assertPages(label: string): Promise<void> {
  for (const word of WORDS) {
    for (const [name, like] of NAMED_FEEDS) {
      for (const language of [null, german]) {
        const { ids, clicked } = await sorted(word, like, language);
        const terms = `feed:${name} ${language === null ? "" : "lang:de "}${word}`;
        assert.ok(
          clicked > 10 && ids.length - clicked > 20,
          `${label}: ${terms}: ${clicked} of ${ids.length}`,
        );
        const mid = clicked + Math.floor((ids.length - clicked) / 2);
        for (const [offset, limit] of [
          [0, 20],
          [0, 1000],
          [Math.floor(clicked / 2), 20],
          [clicked - 7, 20],
          [clicked - 1, 1],
          [clicked, 20],
          [clicked - 150, 300],
          [mid, 20],
          [mid - 400, 1000],
          [ids.length - 20, 20],
          [ids.length - 1, 20],
          [ids.length, 20],
          [ids.length + 30, 20],
        ] as const) {
          if (offset < 0) continue;
          const at = `${label}: '${terms}' at ${offset}+${limit} (${clicked} clicked of ${ids.length})`;
          const expected = ids.slice(offset, offset + limit);
          const counted = await countedPage(terms, "clicks", { offset, limit });
          // Within a language the blocks answer only the clicked part (they count every language).
          if (language === null || offset + limit <= clicked)
            assert.deepEqual(counted, expected, `${at}: counted`);
          else assert.equal(counted, null, `${at}: counted`);
          const query = await queryOf(terms);
          const found = await searchWithOperators(pool, { ...query, sort: "clicks", offset, limit });
          assert.deepEqual(
            found.map((p) => p.postId),
            expected,
            `${at}: search`,
          );
        }
      }
    }
  }
}

describe("postgres counted words' blocks per feed", () => {
  it("counts each word's matches per feed and block, and pages the feeds' matches by clicks", async () => {
    await assertBlocks("counted");
    await assertPages("counted");
  });

  it("keeps the pages exact when posts are clicked, come, go, change words or language", async () => {
    // First clicks, more clicks, clicks back to none (ties among them).
    await click(13, 2, "2");
    await click(5, 1, "clicks + 1");
    await click(17, 4, "0");
    await insertPosts(20_001, 1500, "b");
    await pool.query(`DELETE FROM posts WHERE (id / ${STEP}) % 19 = 5`);
    // Re-worded: some posts lose a counted word, some gain one.
    await pool.query(
      `UPDATE posts SET search_vector = 'birch:1 w1:2'::tsvector WHERE (id / ${STEP}) % 23 = 3`,
    );
    await pool.query(
      `UPDATE posts SET search_vector = search_vector || 'amber:9'::tsvector WHERE (id / ${STEP}) % 29 = 4`,
    );
    // Re-filed, and a click with it in one statement.
    await pool.query(`UPDATE posts SET language_id = $1, clicks = clicks + 3 WHERE (id / ${STEP}) % 37 = 7`, [
      german,
    ]);
    await recountFeedPosts(pool);
    await assertBlocks("after the writes");
    await assertPages("after the writes");
  });

  it("answers nothing from counts that disagree with the posts, or from a word not counted per feed", async () => {
    const { ids, clicked } = await sorted("amber", "Tagebuch %", null);
    const mid = clicked + Math.floor((ids.length - clicked) / 2);
    // The block of the middle's post off by one: its page and the pages past it are not trusted.
    const { rows } = await pool.query<{ feed_id: number }>("SELECT feed_id FROM posts WHERE id = $1", [
      ids[mid],
    ]);
    const { rowCount } = await pool.query(
      `UPDATE counted_feed_blocks SET posts = posts + 1 WHERE block = $1 AND feed_id = $2
        AND search_id = (SELECT id FROM counted_searches WHERE lexeme = 'amber')`,
      [Math.floor(ids[mid]! / COUNTED_FEED_BLOCK_IDS), rows[0]!.feed_id],
    );
    assert.equal(rowCount, 1);
    const page = { offset: mid, limit: 20 };
    assert.equal(await countedPage("feed:tagebuch amber", "clicks", page), null);
    const found = await searchWithOperators(pool, {
      ...(await queryOf("feed:tagebuch amber")),
      sort: "clicks",
      ...page,
    });
    assert.deepEqual(
      found.map((p) => p.postId),
      ids.slice(mid, mid + 20),
    );
    await pool.query("DELETE FROM counted_feed_block_searches");
    assert.equal(await countedPage("feed:tagebuch birch", "clicks", { offset: 0, limit: 20 }), null);
    assert.equal(await syncFeedBlocks(pool), 2);
    assert.equal(await syncFeedBlocks(pool), 0);
    await assertBlocks("counted again");
    await assertPages("counted again");
  });

  it("takes migration 56 again without a change: the same blocks, pages and index", async () => {
    const index = async () =>
      (await pool.query("SELECT indexdef FROM pg_indexes WHERE indexname = 'clicked_posts_by_feed'")).rows[0]
        .indexdef as string;
    assert.match(await index(), /INCLUDE \(language_id, words\)/);
    await inTransaction(pool, createCountedFeedClicks);
    assert.match(await index(), /INCLUDE \(language_id, words\)/);
    await assertBlocks("migrated again");
    await assertPages("migrated again");
  });

  it("leaves queries the counts do not describe, and shallow pages, to the other plans", async () => {
    const query = await queryOf("feed:tagebuch amber");
    const plan = planOf(query.query, query.languageIds);
    const shallow = { ...query, sort: "clicks" as const, offset: SEEK_FROM_OFFSET - 21, limit: 20 };
    assert.equal(await countedFeedClicksPage(pool, shallow, plan), null, "shallow");
    for (const [terms, sort] of [
      ["feed:tagebuch amber", "relevance"],
      ["feed:tagebuch amber", "date"],
      ["feed:tagebuch amber -birch", "clicks"],
      ["feed:tagebuch amber birch", "clicks"],
      ["feed:tagebuch after:2025-06-01 amber", "clicks"],
      ["feed:tagebuch title:amber", "clicks"],
      ["feed:tagebuch amber*", "clicks"],
      ["feed:tagebuch w5", "clicks"],
      ["-feed:tagebuch amber", "clicks"],
      ["lang:de amber", "clicks"],
    ] as const) {
      assert.equal(await countedPage(terms, sort, { offset: 2000, limit: 20 }), null, `${terms} by ${sort}`);
    }
  });

  it("forgets the blocks when the posts are truncated and counts them again with the words", async () => {
    await pool.query("TRUNCATE posts CASCADE");
    const { rows } = await pool.query(
      "SELECT (SELECT count(*) FROM counted_feed_blocks)::int + (SELECT count(*) FROM counted_feed_block_searches)::int AS n",
    );
    assert.equal(rows[0].n, 0);
    await insertPosts(1, 6000, "d");
    await click(3, 1, "1 + (id / 41) % 3");
    await pool.query("ANALYZE posts");
    assert.equal(await syncCountedWords(pool, COUNTED_CHOICE), 2);
    await assertBlocks("after the truncation");
    await assertPages("after the truncation");
  });

  it("reads the search's pages from SEEK_FROM_OFFSET matches on through the counts, and shallower ones not", async () => {
    const { ids } = await sorted("amber", "Tagebuch %", null);
    const query = await queryOf("feed:tagebuch amber");
    for (const [offset, limit] of [
      [0, 20],
      [0, SEEK_FROM_OFFSET],
      [SEEK_FROM_OFFSET - 21, 20],
      [SEEK_FROM_OFFSET + 7, 20],
      [ids.length - 20, 20],
    ] as const) {
      const { sql, ran } = recordingSql(pool);
      const found = await searchWithOperators(sql, { ...query, sort: "clicks", offset, limit });
      assert.deepEqual(
        found.map((p) => p.postId),
        ids.slice(offset, offset + limit),
        `at ${offset}+${limit} of ${ids.length}`,
      );
      const counted = ran.some((text) => text.includes("FROM counted_feed_blocks"));
      // Feeds that hold few matches are read whole first (postgres-few-matches.ts).
      const few = ids.length <= FEW_MATCHES;
      assert.equal(counted, !few && offset + limit >= SEEK_FROM_OFFSET, `counted at ${offset}+${limit}`);
      // The few-matches plan's page statement (its counts are read from blocks or months).
      const whole = ran.some((text) => text.includes("IS TRUE AS kept"));
      assert.equal(whole, few, `read whole at ${offset}+${limit} of ${ids.length}`);
    }
  });

  it("reads the word plans' pages of 1,000 rows by clicks in a language through the word's click blocks", async () => {
    for (const languageIds of [[german], null]) {
      const { ids, clicked } = await postsHolding(pool, "amber", "clicks", { languageIds });
      assert.ok(clicked > 50 && ids.length > clicked + 50, `${clicked} of ${ids.length}`);
      for (const [offset, limit] of [
        [0, 20],
        [0, 1000],
        [clicked - 10, 1000],
        [0, SEEK_FROM_OFFSET - 1],
        [ids.length - 3, 1000],
      ] as const) {
        const { sql, ran } = recordingSql(pool);
        const found = await searchPosts(sql, {
          query: parseSearchQuery("amber"),
          sort: "clicks",
          offset,
          limit,
          languageIds,
        });
        const at = `${JSON.stringify(languageIds)} at ${offset}+${limit} (${clicked} clicked of ${ids.length})`;
        assert.deepEqual(
          found.map((p) => p.postId),
          ids.slice(offset, offset + limit),
          at,
        );
        const counted = ran.some((text) => text.includes("FROM counted_click_blocks"));
        assert.equal(counted, offset + limit >= SEEK_FROM_OFFSET, `counted ${at}`);
      }
    }
  });
});
