/**
 * Date-ranged pages by date of counted searches (countedRangePage in postgres-search-queries.ts):
 * a counted word's pages within `after:`/`before:` ranges (whole days, and ranges that start or end
 * within a day, or within one day at both ends; an empty range; a range before every post), in
 * every language, one and two, at offsets 0, middle and last, against sorting every match in the
 * range, each answered through the counted days (no statement of the operators' plans, which a
 * miscount would fall back to); an uncounted word's ranged pages through the operators' plans;
 * and again after posts are written and deleted.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type pg from "pg";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import {
  COUNTED_CHOICE,
  DAY,
  DrawnCorpus,
  HOUR,
  languageSets,
  postsHolding,
  rangedQuery,
} from "../../test-support/postgres-counted-fixture.js";
import { recordingSql } from "../../test-support/recorded-statements.js";
import { syncCountedWords } from "./postgres-counted-words.js";
import { searchWithOperators } from "./postgres-search-operators.js";
import type { PostgresStore } from "./postgres-store.js";

const NOW = Date.UTC(2026, 5, 1);

let fx: DrawnCorpus;
let store: PostgresStore;
let pool: pg.Pool;
let languages: number[];
let feeds: number[];

/** Every match of `word` in the range and languages, newest first (brute force). */
async function matching(
  word: string,
  languageIds: number[] | null,
  from: number | null,
  until: number | null,
): Promise<number[]> {
  return (await postsHolding(pool, word, "date", { languageIds, from, until })).ids;
}

/** The ranges: whole days, cut days at either end or both, one day cut at both ends, empty, before every post. */
function ranges(): Array<[string, number | null, number | null]> {
  const mid = NOW - 30 * DAY;
  return [
    ["after a day", mid, null],
    ["before a day", null, mid],
    ["whole days", mid - 10 * DAY, mid + 5 * DAY],
    ["after mid-day", mid + 7 * HOUR + 1234, null],
    ["before mid-day", null, mid + 13 * HOUR],
    ["both mid-day", mid - 9 * DAY + 5 * HOUR, mid + 4 * DAY + 17 * HOUR + 1],
    ["within one day", mid + 3 * HOUR, mid + 20 * HOUR],
    ["one whole day", mid, mid + DAY],
    ["a day's first millisecond", mid, mid + 1],
    ["empty", mid + DAY, mid],
    ["empty at a day's start", mid, mid],
    ["before every post", null, NOW - 400 * DAY],
  ];
}

async function assertRangedPages(label: string, word: string, viaCounts: boolean): Promise<number> {
  let pages = 0;
  for (const [name, from, until] of ranges()) {
    for (const languageIds of languageSets(languages)) {
      const expected = await matching(word, languageIds, from, until);
      const n = expected.length;
      const spots: Array<[number, number]> = [
        [0, 20],
        [Math.floor(n / 2), 20],
        [Math.floor(n / 3), 1000],
        [Math.max(0, n - 20), 20],
        [Math.max(0, n - 1), 20],
        [n, 20],
        [n + 5, 20],
      ];
      for (const [offset, limit] of spots) {
        const { sql, ran: seen } = recordingSql(pool);
        const found = await searchWithOperators(sql, {
          query: rangedQuery(word, from, until),
          sort: "date",
          limit,
          offset,
          languageIds,
        });
        const at = `${label}: '${word}' ${name} in ${JSON.stringify(languageIds)} at ${offset} of ${n}`;
        assert.deepEqual(
          found.map((p) => p.postId),
          expected.slice(offset, offset + limit),
          at,
        );
        // Through the counted days alone (a miscount would fall back to the operators' plans).
        const operators = seen.some((q) => q.includes("operator_facets("));
        const counts = seen.some((q) => q.includes("FROM search_days"));
        const empty = from !== null && until !== null && from >= until;
        if (viaCounts) {
          assert.ok(!operators, `${at}: ${seen.join("\n")}`);
          // Whole days are read from the counts alone: only a cut day's matches are counted.
          const whole = (from ?? 0) % DAY === 0 && (until ?? 0) % DAY === 0;
          const cutCounted = seen.some((q) => q.includes("count(*)::int AS n FROM posts"));
          if (whole) assert.ok(!cutCounted, `${at}: ${seen.join("\n")}`);
          assert.ok(counts || empty, `${at}: ${seen.join("\n")}`);
        } else assert.ok((operators || empty) && !counts, `${at}: ${seen.join("\n")}`);
        pages++;
      }
    }
  }
  return pages;
}

before(async () => {
  fx = await DrawnCorpus.open("counted_ranges", {
    seed: 49,
    now: NOW,
    shares: [
      ["amber", 0.8],
      ["birch", 0.4],
      ["dune", 0.03],
    ],
    // 60 days, so that each day holds several matches and a cut day some on both sides.
    days: 60,
    // Some posts at a day's first millisecond, some at the same millisecond: ties broken by id.
    age: (i, age) =>
      i % 4 === 0 ? Math.floor(age / DAY) * DAY : i % 7 === 0 ? Math.floor(age / HOUR) * HOUR : age,
  });
  ({ store, pool, languages } = fx);
  feeds = await fx.addFeeds("r", 12, (f) => 60 + 7 * f);
  await pool.query("ANALYZE posts");
  // `amber` and `birch` counted.
  assert.equal(await syncCountedWords(pool, COUNTED_CHOICE), 2);
});
after(() => fx?.db.close());

describe("postgres date-ranged pages of counted searches", () => {
  it("pages a counted word within any range through its counted days, exact", async () => {
    assert.ok((await assertRangedPages("counted", "amber", true)) > 100);
    await assertRangedPages("counted", "birch", true);
  });

  it("pages an uncounted word within a range through the operators' plans, exact", async () => {
    await assertRangedPages("uncounted", "dune", false);
  });

  it("stays exact after posts are written and deleted", async () => {
    for (let f = 0; f < 12; f += 3) {
      await store.applyFeedUpdate(feeds[f]!, {
        fetchState: {},
        posts: fx.posts(`b${f}-`, 40, languages[f % 3]!),
      });
    }
    await pool.query("DELETE FROM posts WHERE id % 9 = 0");
    await assertRangedPages("after the writes", "amber", true);
  });

  it("answers a parsed after:/before: query of a counted word as its brute-force matches", async () => {
    const from = Date.UTC(2026, 3, 10);
    const until = Date.UTC(2026, 4, 2) + DAY;
    const expected = await matching("amber", null, from, until);
    const { sql, ran: seen } = recordingSql(pool);
    const found = await searchWithOperators(sql, {
      query: parseSearchQuery("after:2026-04-10 before:2026-05-02 amber"),
      sort: "date",
      limit: 20,
      offset: expected.length - 7,
      languageIds: null,
    });
    assert.deepEqual(
      found.map((p) => p.postId),
      expected.slice(-7),
    );
    assert.ok(!seen.some((q) => q.includes("operator_facets(")));
  });
});
