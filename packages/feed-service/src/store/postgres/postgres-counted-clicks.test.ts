/**
 * The counted words' blocks (postgres-counted-clicks.ts, migrations 50, 54, 59): the unclicked and
 * clicked matches per word, language (no all-languages row since migration 59: every kept row is
 * one of a language) and block of ids held to counting every post (brute force),
 * and their pages by clicks (clicks descending, ties by id descending, the unclicked after the
 * clicked: spec §4) to a full sort of every match at offsets 0, the middle of the clicked ones,
 * across the clicked/unclicked boundary, the middle of the unclicked ones, the last page, past
 * the end; all languages, one, two; again after first clicks, more clicks, ties, clicks taken
 * back, posts added, removed, re-worded and re-filed, a click and a language change in one
 * statement, a count made by a build without blocks, first clicks with their clicked_posts rows
 * written before the counts move (migration 54) and without them, a database at migration 54's
 * rows (the all-languages rows) taken to 59's and 63's (one trigger for a clicked state's change),
 * first clicks and clicks back to none that re-word their post in the same statement, the
 * counted searches' queries kept parsed for the clicked_posts rows' words (migration 64), and a
 * truncation.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type pg from "pg";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import {
  assertBlocksBesidePeriods,
  assertEachAsRecounted,
  blocksAsTableBefore66,
  clickedShape,
  clickedStateTriggers,
  DrawnCorpus,
  firstClicksWithoutRows,
  languageSets,
  postsHolding,
  rewordWithClickChanges,
  takeMigrationsFrom,
} from "../../test-support/postgres-counted-fixture.js";
import { countedClicksPage, syncClickBlocks } from "./postgres-counted-clicks.js";
import { COUNTED_BLOCK_IDS } from "./postgres-plan-costs.js";
import { searchKey } from "./postgres-search-key.js";
import { searchPosts } from "./postgres-search-queries.js";
import type { PostgresStore } from "./postgres-store.js";

const NOW = Date.UTC(2026, 5, 1);
const WORDS = ["amber", "birch"];

let fx: DrawnCorpus;
let store: PostgresStore;
let pool: pg.Pool;
let languages: number[];
let feeds: number[];

/** Each counted word's blocks against counting every post holding it. */
async function assertBlocks(label: string): Promise<void> {
  await assertEachAsRecounted(
    pool,
    label,
    WORDS,
    `SELECT b.language_id, b.block, b.unclicked, b.clicked FROM counted_click_blocks b
      JOIN counted_searches s ON s.id = b.search_id
      WHERE s.lexeme = $1 AND (b.unclicked <> 0 OR b.clicked <> 0) ORDER BY 1, 2`,
    `SELECT p.language_id, p.id / ${COUNTED_BLOCK_IDS} AS block,
        (count(*) FILTER (WHERE p.clicks = 0))::int AS unclicked, (count(*) FILTER (WHERE p.clicks > 0))::int AS clicked
      FROM posts p WHERE $1 = ANY(tsvector_to_array(p.search_vector))
      GROUP BY 1, 2 ORDER BY 1, 2`,
  );
  // Every clicked post's row holds the counted lexemes of its post, and only those.
  const { rows: wrong } = await pool.query(
    `SELECT k.id, k.words, held FROM clicked_posts k JOIN posts p ON p.id = k.id
      CROSS JOIN LATERAL (SELECT ARRAY(SELECT s.id FROM counted_searches s
        WHERE s.lexeme = ANY(tsvector_to_array(p.search_vector)) ORDER BY s.id) AS held) h
      WHERE k.words IS DISTINCT FROM h.held LIMIT 3`,
  );
  assert.deepEqual(wrong, [], `${label}: clicked posts' words`);
  await assertBlocksBesidePeriods(pool, label);
}

/** Pages by clicks against the full sort: the counted path where it answers, and the search itself. */
async function assertPages(label: string): Promise<void> {
  for (const word of WORDS) {
    for (const languageIds of languageSets(languages)) {
      const { ids, clicked } = await postsHolding(pool, word, "clicks", { languageIds });
      assert.ok(clicked > 40 && ids.length - clicked > 40, `${label}: ${word} ${clicked} of ${ids.length}`);
      const mid = clicked + Math.floor((ids.length - clicked) / 2);
      for (const [offset, limit] of [
        [0, 20],
        [Math.floor(clicked / 2), 20],
        [clicked - 30, 20],
        [clicked - 7, 20],
        [clicked - 1, 1],
        [clicked, 20],
        [clicked - 150, 300],
        [mid, 20],
        [mid - 400, 1000],
        [ids.length - 20, 20],
        [ids.length - 1, 20],
        [ids.length, 20],
      ] as const) {
        if (offset < 0) continue;
        const at = `${label}: '${word}' in ${JSON.stringify(languageIds)} at ${offset}+${limit} (${clicked} clicked of ${ids.length})`;
        const expected = ids.slice(offset, offset + limit);
        const counted = await countedClicksPage(pool, searchKey(parseSearchQuery(word))!, languageIds, {
          offset,
          limit,
        });
        assert.deepEqual(counted, expected, `${at}: counted`);
        const found = await searchPosts(pool, {
          query: parseSearchQuery(word),
          sort: "clicks",
          limit,
          offset,
          languageIds,
        });
        assert.deepEqual(
          found.map((p) => p.postId),
          expected,
          `${at}: search`,
        );
      }
    }
  }
}

before(async () => {
  fx = await DrawnCorpus.open("counted_clicks", clickedShape(50, NOW, 900));
  ({ store, pool, languages } = fx);
  feeds = await fx.addClickedFeeds("k");
});
after(() => fx?.db.close());

describe("postgres counted words' pages by clicks", () => {
  it("counts each word's unclicked and clicked matches per language and block, and pages them", async () => {
    await assertBlocks("counted");
    await assertPages("counted");
  });

  it("moves a post's counts on its first click, not on later ones, and keeps ties in id order", async () => {
    await fx.click(120, 0, 0);
    await fx.click(80, 1, 3);
    // Ties: many posts with the same clicks, some made equal now.
    await pool.query("UPDATE posts SET clicks = 4 WHERE clicks BETWEEN 5 AND 6");
    await assertBlocks("after clicks");
    await assertPages("after clicks");
  });

  it("keeps the counts exact when posts come, go, change words or language, and lose their clicks", async () => {
    for (let f = 0; f < 12; f += 4) {
      await store.applyFeedUpdate(feeds[f]!, {
        fetchState: {},
        posts: fx.posts(`b${f}-`, 60, languages[f % 3]!),
      });
    }
    // Re-worded by the writer: some posts lose a counted word, some gain one.
    await store.applyFeedUpdate(feeds[1]!, {
      fetchState: {},
      posts: fx.posts("a1-", 40, languages[1]!, "birch changed"),
    });
    await store.applyFeedUpdate(feeds[2]!, {
      fetchState: {},
      posts: fx.posts("a2-", 40, languages[2]!, "amber birch only"),
    });
    await pool.query("UPDATE posts SET language_id = $1 WHERE id % 13 = 1", [languages[2]]);
    // A first click and a language change in one statement: the counts move once.
    await pool.query("UPDATE posts SET clicks = 3, language_id = $1 WHERE clicks = 0 AND id % 17 = 2", [
      languages[0],
    ]);
    // Clicks taken back to none.
    await pool.query("UPDATE posts SET clicks = 0 WHERE clicks = 1 AND id % 3 = 0");
    await pool.query("DELETE FROM posts WHERE id % 19 = 5");
    assert.ok(await store.removeFeed(feeds[5]!));
    await fx.click(60, 0, 0);
    await assertBlocks("after the writes");
    await assertPages("after the writes");
  });

  it("answers nothing from a word counted without blocks until they are counted", async () => {
    await pool.query("DELETE FROM counted_click_searches");
    await pool.query("UPDATE counted_click_blocks SET unclicked = unclicked + 5");
    await pool.query("UPDATE clicked_posts SET words = '{}' WHERE id % 2 = 0");
    const key = searchKey(parseSearchQuery("amber"))!;
    assert.equal(await countedClicksPage(pool, key, null, { offset: 1500, limit: 20 }), null);
    assert.equal(await syncClickBlocks(pool), 2);
    assert.equal(await syncClickBlocks(pool), 0);
    await assertBlocks("counted again");
    await assertPages("counted again");
  });

  it("moves a first click's counts by the words of the clicked_posts row just inserted, or by the post's own without it", async () => {
    // AFTER triggers of one event fire in name order (migration 54): the blocks' after the row's
    // insert, in the one trigger of a clicked state's change since migration 63.
    assert.deepEqual(await clickedStateTriggers(pool), ["posts_track_clicked", "posts_track_clicked_counts"]);
    const { rows: picked } = await pool.query<{ id: number }>(
      "SELECT id FROM posts WHERE clicks = 0 ORDER BY md5(id::text) LIMIT 40",
    );
    await firstClicksWithoutRows(
      pool,
      picked.map((r) => r.id),
    );
    // Then first clicks as /click makes them.
    await fx.click(50, 0, 0);
    await assertBlocks("first clicks with and without their rows");
  });

  it("drops the all-languages rows and sums the languages' rows where all languages are asked (migration 59), and keeps the blocks in the period rows (migration 66)", async () => {
    // The rows as migration 50 kept them, in a table of their own: every word's all-languages row
    // beside its languages'.
    await blocksAsTableBefore66(pool);
    await pool.query(
      `INSERT INTO counted_click_blocks (search_id, language_id, block, unclicked, clicked)
        SELECT search_id, 0, block, sum(unclicked), sum(clicked) FROM counted_click_blocks GROUP BY 1, 3`,
    );
    // Migration 59 and the later ones that replace its triggers (63), as an upgrade takes them;
    // 66 moves the table's rows into the period rows and leaves a view of them.
    await takeMigrationsFrom(pool, 59);
    const { rows: zero } = await pool.query(
      "SELECT count(*)::int AS n FROM counted_click_periods WHERE language_id = 0 AND (block_unclicked <> 0 OR block_clicked <> 0)",
    );
    assert.equal(zero[0].n, 0);
    const { rows: kind } = await pool.query(
      "SELECT relkind::text AS kind FROM pg_class WHERE oid = 'counted_click_blocks'::regclass",
    );
    assert.equal(kind[0].kind, "v");
    await assertBlocks("the blocks moved into the period rows");
    // One trigger per event keeps both kinds of count (none of the tables' own before 66).
    const { rows: triggers } = await pool.query<{ tgname: string }>(
      `SELECT tgname FROM pg_trigger WHERE tgrelid = 'posts'::regclass AND tgname ~ '_click_(blocks|periods|counts)$' ORDER BY 1`,
    );
    assert.deepEqual(
      triggers.map((t) => t.tgname),
      [
        "posts_count_click_counts",
        "posts_forget_click_periods",
        "posts_move_click_counts",
        "posts_uncount_click_counts",
      ],
    );
    // Taken again: the same triggers, the counts exact through first clicks, later ones, and words changed.
    await takeMigrationsFrom(pool, 59);
    assert.deepEqual(await clickedStateTriggers(pool), ["posts_track_clicked", "posts_track_clicked_counts"]);
    // Migration 64: every counted search's stored query is its text's (the words above were counted
    // after it, so the column follows later writes too).
    const { rows: queries } = await pool.query(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE query IS DISTINCT FROM index_query::tsquery)::int AS differ
        FROM counted_searches`,
    );
    assert.ok(queries[0].n >= WORDS.length);
    assert.equal(queries[0].differ, 0);
    await fx.click(60, 0, 0);
    await fx.click(30, 1, 2);
    await store.applyFeedUpdate(feeds[2]!, {
      fetchState: {},
      posts: fx.posts("a2-", 30, languages[2]!, "birch amber again"),
    });
    await pool.query("UPDATE posts SET language_id = $1 WHERE id % 29 = 3", [languages[1]]);
    await pool.query("UPDATE posts SET clicks = 0 WHERE clicks = 1 AND id % 5 = 0");
    await assertBlocks("after migration 59");
    await rewordWithClickChanges(pool);
    await assertBlocks("after first clicks and clicks back to none that re-word");
    await assertPages("after migration 59");
  });

  it("forgets the blocks when the posts are truncated and counts them again with the words", async () => {
    await pool.query("TRUNCATE posts CASCADE");
    const { rows } = await pool.query("SELECT count(*)::int AS n FROM counted_click_blocks");
    assert.equal(rows[0].n, 0);
    await fx.refillClickedFeeds(feeds);
    await assertBlocks("after the truncation");
    await assertPages("after the truncation");
  });
});
