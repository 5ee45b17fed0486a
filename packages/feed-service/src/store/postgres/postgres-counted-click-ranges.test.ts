/**
 * Date-ranged pages by clicks of the counted words (postgres-counted-click-ranges.ts, migration
 * 51): the unclicked matches per word, language (0: all), block of ids and 28-day period held to
 * counting every post (brute force), and the pages within `after:`, `before:`, both, whole
 * periods, a period cut at either end or both, ranges within a day, in all languages / one / two,
 * against a full sort of the range's matches (clicks descending, ties by id descending, the
 * unclicked after the clicked: spec §4) at offsets 0, the clicked middle, across the
 * clicked/unclicked boundary, the unclicked middle, the last page, past the end, each answered
 * from the counts (no statement of the operators' plans). Again after first clicks, later clicks,
 * clicks taken back, inserts, deletes, a post's date change, a language change, re-worded posts,
 * a count by a build without periods, first clicks with their clicked_posts rows written before
 * the periods move (migration 59), without them and with rows given no words, migrations 59 and 63
 * (one trigger for a clicked state's change) taken again, first clicks and clicks back to none
 * that re-word their post in the same statement, and a truncation.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type pg from "pg";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import {
  assertBlocksBesidePeriods,
  assertEachAsRecounted,
  clickedShape,
  clickedStateTriggers,
  DAY,
  DrawnCorpus,
  firstClicksWithoutRows,
  HOUR,
  languageSets,
  postsHolding,
  rangedQuery,
  rewordWithClickChanges,
  takeMigrationsFrom,
} from "../../test-support/postgres-counted-fixture.js";
import { recordingSql } from "../../test-support/recorded-statements.js";
import { inTransaction } from "./postgres-connection.js";
import { PERIOD_DAYS, rangePeriods, syncClickPeriods } from "./postgres-counted-click-ranges.js";
import { syncClickBlocks } from "./postgres-counted-clicks.js";
import { postgresMigrations } from "./postgres-migrations.js";
import { COUNTED_BLOCK_IDS } from "./postgres-plan-costs.js";
import { searchWithOperators } from "./postgres-search-operators.js";
import { countedRangePage } from "./postgres-search-queries.js";
import type { PostgresStore } from "./postgres-store.js";

const PERIOD = PERIOD_DAYS * DAY;
const NOW = Date.UTC(2026, 5, 1);
const WORDS = ["amber", "birch"];

let fx: DrawnCorpus;
let store: PostgresStore;
let pool: pg.Pool;
let languages: number[];
let feeds: number[];

/** Each counted word's periods against counting every unclicked post holding it. */
async function assertPeriods(label: string): Promise<void> {
  await assertEachAsRecounted(
    pool,
    label,
    WORDS,
    `SELECT b.language_id, b.block, g.period, b.unclicked[g.period] AS n FROM counted_click_periods b
      JOIN counted_searches s ON s.id = b.search_id
      CROSS JOIN LATERAL generate_series(array_lower(b.unclicked, 1), array_upper(b.unclicked, 1)) g (period)
      WHERE s.lexeme = $1 AND b.unclicked[g.period] <> 0 ORDER BY 1, 2, 3`,
    `SELECT coalesce(p.language_id, 0) AS language_id, p.id / ${COUNTED_BLOCK_IDS} AS block,
        floor(p.post_date / ${PERIOD}.0)::int AS period, count(*)::int AS n
      FROM posts p WHERE $1 = ANY(tsvector_to_array(p.search_vector)) AND p.clicks = 0
      GROUP BY GROUPING SETS ((p.language_id, 2, 3), (2, 3)) ORDER BY 1, 2, 3`,
  );
  await assertBlocksBesidePeriods(pool, label);
}

/**
 * The ranges: after and before a day (a period cut), whole periods, a period cut at both ends
 * (its part in the range short, or long: the period's count less the rest), within a day.
 */
function ranges(): Array<[string, number | null, number | null]> {
  const p = Math.floor((NOW - 200 * DAY) / PERIOD) * PERIOD;
  return [
    ["after a day", p + 9 * DAY, null],
    ["after a late day", p + 25 * DAY, null],
    ["before a day", null, p + 3 * DAY],
    ["before a late day", null, p + 20 * DAY],
    ["whole periods", p - 4 * PERIOD, p + 3 * PERIOD],
    ["both mid-period", p - 3 * PERIOD + 5 * DAY + 5 * HOUR, p + 2 * PERIOD + 17 * DAY + 1],
    ["within a period, short", p + 3 * DAY, p + 9 * DAY + 7 * HOUR],
    ["within a period, long", p + 2 * DAY + HOUR, p + 26 * DAY],
    ["within a day", p + 3 * HOUR, p + 20 * HOUR],
    ["before every post", null, NOW - 600 * DAY],
  ];
}

/** Pages by clicks within each range against the full sort, answered from the counts. */
async function assertPages(label: string): Promise<number> {
  let pages = 0;
  for (const word of WORDS) {
    for (const [name, from, until] of ranges()) {
      for (const languageIds of languageSets(languages)) {
        const { ids, clicked } = await postsHolding(pool, word, "clicks", { languageIds, from, until });
        const mid = clicked + Math.floor((ids.length - clicked) / 2);
        for (const [offset, limit] of [
          [0, 20],
          [Math.floor(clicked / 2), 20],
          [clicked - 7, 20],
          [clicked, 20],
          [clicked - 150, 300],
          [mid, 20],
          [Math.max(0, ids.length - 20), 20],
          [Math.max(0, ids.length - 1), 20],
          [ids.length, 20],
          [ids.length + 5, 20],
        ] as const) {
          if (offset < 0) continue;
          const at = `${label}: '${word}' ${name} in ${JSON.stringify(languageIds)} at ${offset}+${limit} (${clicked} clicked of ${ids.length})`;
          const expected = ids.slice(offset, offset + limit);
          const page = {
            query: rangedQuery(word, from, until),
            sort: "clicks" as const,
            limit,
            offset,
            languageIds,
          };
          const { sql, ran } = recordingSql(pool);
          const counted = await countedRangePage(sql, page, 0);
          assert.deepEqual(
            counted?.map((p) => p.postId),
            expected,
            `${at}: counted\n${ran.join("\n")}`,
          );
          assert.ok(!ran.some((q) => q.includes("operator_facets(")), `${at}: ${ran.join("\n")}`);
          if (offset % 3 === 0 || offset === clicked) {
            const found = await searchWithOperators(pool, page);
            assert.deepEqual(
              found.map((p) => p.postId),
              expected,
              `${at}: search`,
            );
          }
          pages++;
        }
      }
    }
  }
  return pages;
}

before(async () => {
  fx = await DrawnCorpus.open("counted_click_ranges", clickedShape(51, NOW, 400));
  ({ store, pool, languages } = fx);
  feeds = await fx.addClickedFeeds("q");
});
after(() => fx?.db.close());

describe("postgres counted words' date-ranged pages by clicks", () => {
  it("splits a range into whole periods and the stretches of the periods it cuts", () => {
    const p = 700 * PERIOD;
    assert.deepEqual(rangePeriods({ from: p, until: p + 3 * PERIOD }), {
      low: 700,
      high: 702,
      stretches: [],
    });
    assert.deepEqual(rangePeriods({ from: p + DAY, until: null }), {
      low: 700,
      high: 2_147_483_647,
      stretches: [{ from: p, until: p + DAY, sign: -1 }],
    });
    assert.deepEqual(rangePeriods({ from: null, until: p + 3 * DAY }), {
      low: -2_147_483_648,
      high: 699,
      stretches: [{ from: p, until: p + 3 * DAY, sign: 1 }],
    });
    assert.deepEqual(rangePeriods({ from: p + DAY, until: p + 27 * DAY }), {
      low: 700,
      high: 700,
      stretches: [
        { from: p, until: p + DAY, sign: -1 },
        { from: p + 27 * DAY, until: p + PERIOD, sign: -1 },
      ],
    });
    assert.deepEqual(rangePeriods({ from: p + DAY, until: p + 2 * DAY }), {
      low: 701,
      high: 699,
      stretches: [{ from: p + DAY, until: p + 2 * DAY, sign: 1 }],
    });
  });

  it("counts each word's unclicked matches per language, block and period, and pages ranges by them", async () => {
    await assertPeriods("counted");
    assert.ok((await assertPages("counted")) > 500);
  });

  it("keeps the counts exact through clicks, inserts, deletes and changes of date, words and language", async () => {
    await fx.click(120, 0, 0);
    await fx.click(80, 1, 3);
    await pool.query("UPDATE posts SET clicks = 4 WHERE clicks BETWEEN 5 AND 6");
    for (let f = 0; f < 12; f += 4) {
      await store.applyFeedUpdate(feeds[f]!, {
        fetchState: {},
        posts: fx.posts(`b${f}-`, 60, languages[f % 3]!),
      });
    }
    await store.applyFeedUpdate(feeds[1]!, {
      fetchState: {},
      posts: fx.posts("a1-", 40, languages[1]!, "birch changed"),
    });
    // Dates moved across periods (unclicked and clicked posts), languages changed.
    await pool.query(`UPDATE posts SET post_date = post_date - ${9 * DAY} WHERE id % 7 = 3`);
    await pool.query(
      `UPDATE posts SET post_date = post_date + ${40 * DAY} WHERE id % 23 = 4 AND post_date < $1`,
      [NOW - 50 * DAY],
    );
    await pool.query("UPDATE posts SET language_id = $1 WHERE id % 13 = 1", [languages[2]]);
    // A first click with a date change in one statement; clicks taken back to none.
    await pool.query(
      `UPDATE posts SET clicks = 3, post_date = post_date - ${30 * DAY} WHERE clicks = 0 AND id % 17 = 2`,
    );
    await pool.query("UPDATE posts SET clicks = 0 WHERE clicks = 1 AND id % 3 = 0");
    await pool.query("DELETE FROM posts WHERE id % 19 = 5");
    assert.ok(await store.removeFeed(feeds[5]!));
    await fx.click(60, 0, 0);
    await assertPeriods("after the writes");
    await assertPages("after the writes");
  });

  it("answers nothing from a word counted without periods until they are counted", async () => {
    await pool.query("DELETE FROM counted_period_searches");
    await pool.query(
      "UPDATE counted_click_periods SET unclicked = counted_periods_add(unclicked, '[730:730]={5}')",
    );
    const { sql } = recordingSql(pool);
    const page = {
      query: parseSearchQuery("after:2026-01-01 amber"),
      sort: "clicks" as const,
      limit: 20,
      offset: 300,
      languageIds: null,
    };
    assert.equal(await countedRangePage(sql, page, 0), null);
    assert.equal(await syncClickPeriods(pool), 2);
    assert.equal(await syncClickPeriods(pool), 0);
    await assertPeriods("counted again");
    await assertPages("counted again");
  });

  it("takes a first click's periods off by the words of the clicked_posts row just inserted, or by the post's own without it (migration 59)", async () => {
    // AFTER triggers of one event fire in name order: the periods' after the row's insert.
    // Since migration 63 the periods' first click is in the one trigger of a clicked state's change.
    assert.deepEqual(await clickedStateTriggers(pool), ["posts_track_clicked", "posts_track_clicked_counts"]);
    const unclicked = async (n: number) =>
      (
        await pool.query<{ id: number }>(
          `SELECT id FROM posts WHERE clicks = 0 AND tsvector_to_array(search_vector) && $1::text[]
            ORDER BY md5(id::text) LIMIT $2`,
          [WORDS, n],
        )
      ).rows.map((r) => r.id);
    await firstClicksWithoutRows(pool, await unclicked(40));
    await fx.click(50, 0, 0);
    await assertPeriods("first clicks with and without their rows");

    // The row's words are what a first click takes off: rows given no words leave the counts where they were.
    const [{ def }] = (
      await pool.query<{ def: string }>("SELECT pg_get_functiondef('clicked_posts_words'::regproc) AS def")
    ).rows as [{ def: string }];
    const noWords = await unclicked(10);
    await pool.query(
      "CREATE OR REPLACE FUNCTION clicked_posts_words() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.words := '{}'; RETURN NEW; END $$",
    );
    try {
      for (const id of noWords) await store.insertClick(id, `w${id}`, NOW - DAY);
    } finally {
      await pool.query(def);
    }
    await assert.rejects(assertPeriods("first clicks by rows without words"));
    await pool.query("UPDATE posts SET clicks = 0 WHERE id = ANY($1::int[])", [noWords]);
    // Their blocks and rows' words moved by the same empty words: all counted again.
    await pool.query("DELETE FROM counted_period_searches");
    await pool.query("DELETE FROM counted_click_searches");
    assert.equal(await syncClickPeriods(pool), 2);
    assert.equal(await syncClickBlocks(pool), 2);
    await assertPeriods("counted again after rows without words");

    // Migration 59 taken again, and 63 after it as an upgrade takes them: one first-click trigger,
    // the counts still exact; 63 taken once more, then 66 (the blocks in the period rows) again
    // after it, changes nothing.
    await takeMigrationsFrom(pool, 59);
    const m63 = postgresMigrations.find((m) => m.version === 63)!;
    await inTransaction(pool, (sql) => m63.up(sql, () => {}));
    await takeMigrationsFrom(pool, 66);
    assert.deepEqual(await clickedStateTriggers(pool), ["posts_track_clicked", "posts_track_clicked_counts"]);
    await fx.click(40, 0, 0);
    await fx.click(20, 1, 2);
    await assertPeriods("after migration 59 ran again");
    await assertPages("after migration 59 ran again");
    await rewordWithClickChanges(pool);
    await assertPeriods("after first clicks and clicks back to none that re-word");
  });

  it("forgets the periods when the posts are truncated and counts them again with the words", async () => {
    await pool.query("TRUNCATE posts CASCADE");
    const { rows } = await pool.query("SELECT count(*)::int AS n FROM counted_click_periods");
    assert.equal(rows[0].n, 0);
    await fx.refillClickedFeeds(feeds);
    await assertPeriods("after the truncation");
    await assertPages("after the truncation");
  });
});
