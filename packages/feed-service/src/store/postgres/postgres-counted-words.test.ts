/**
 * The common words counted per day (postgres-counted-words.ts, migration 48): which words the
 * statistics choose, their counts held to counting every post's words (brute force) per
 * language and day, and their date pages (first, middle, last; all languages, one, two) to
 * sorting every match, through the counted path; again after posts are added, removed, re-dated,
 * re-filed and re-worded, after a word becomes common, after one stops being common (a smart
 * category keeping its query counted), and after the posts are truncated.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type pg from "pg";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import {
  assertEachAsRecounted,
  COUNTED_CHOICE,
  DAY,
  DrawnCorpus,
  languageSets,
  postsHolding,
} from "../../test-support/postgres-counted-fixture.js";
import { recordingSql } from "../../test-support/recorded-statements.js";
import type { IncomingPost } from "../store.js";
import { chooseCountedWords, syncCountedWords } from "./postgres-counted-words.js";
import { lexemeOf } from "./postgres-search-key.js";
import { searchPosts } from "./postgres-search-queries.js";
import type { PostgresStore } from "./postgres-store.js";

const NOW = Date.UTC(2026, 5, 1);

let fx: DrawnCorpus;
let store: PostgresStore;
let pool: pg.Pool;
let languages: number[];
let feeds: number[];

/** A feed's posts, `extra` (a word) in every title. */
function archive(prefix: string, size: number, languageId: number, extra = ""): IncomingPost[] {
  return fx.posts(prefix, size, languageId, (words) => `${words} ${extra}`.trim());
}

async function counted(): Promise<Array<{ lexeme: string; common: boolean }>> {
  const { rows } = await pool.query<{ lexeme: string; common: boolean }>(
    "SELECT lexeme, common FROM counted_searches WHERE lexeme IS NOT NULL ORDER BY lexeme",
  );
  return rows;
}

/** Each counted word's counts against counting every post holding it, per language (0: all) and day. */
async function assertCounts(label: string): Promise<void> {
  const words = await counted();
  assert.ok(words.length > 0, `${label}: words counted`);
  await assertEachAsRecounted(
    pool,
    label,
    words.map((w) => w.lexeme),
    `SELECT d.language_id, d.day, d.posts::int AS n FROM search_days d JOIN counted_searches s ON s.id = d.search_id
      WHERE s.lexeme = $1 AND d.posts <> 0 ORDER BY 1, 2`,
    `SELECT coalesce(p.language_id, 0) AS language_id, floor(p.post_date / ${DAY}.0)::int AS day, count(*)::int AS n
      FROM posts p WHERE $1 = ANY(tsvector_to_array(p.search_vector))
      GROUP BY GROUPING SETS ((p.language_id, 2), (2)) ORDER BY 1, 2`,
  );
}

/** Pages of `words` at offsets 0, middle and last against sorting every match, through the counts when `viaCounts`. */
async function assertPages(label: string, words: string[], viaCounts: boolean): Promise<void> {
  for (const word of words) {
    for (const languageIds of languageSets(languages)) {
      const { ids: expected } = await postsHolding(pool, word, "date", { languageIds });
      assert.ok(expected.length > 20, `${label}: ${word} ${expected.length} matches`);
      for (const [offset, limit] of [
        [0, 20],
        [Math.floor(expected.length / 2), 20],
        [Math.floor(expected.length / 3), 1000],
        [expected.length - 20, 20],
        [expected.length - 1, 20],
        [expected.length, 20],
      ] as const) {
        const { sql, ran: seen } = recordingSql(pool);
        const found = await searchPosts(sql, {
          query: parseSearchQuery(word),
          sort: "date",
          limit,
          offset,
          languageIds,
        });
        const at = `${label}: '${word}' in ${JSON.stringify(languageIds)} at ${offset} of ${expected.length}`;
        assert.deepEqual(
          found.map((p) => p.postId),
          expected.slice(offset, offset + limit),
          at,
        );
        // Counted: the last pages through the counts' days (a page among the newest posts may be
        // a short walk of them instead); uncounted: never.
        const counts = seen.some((q) => /FROM search_days/.test(q));
        if (!viaCounts || offset >= expected.length - 20)
          assert.equal(counts, viaCounts, `${at}: ${seen.join("\n")}`);
      }
    }
  }
}

before(async () => {
  fx = await DrawnCorpus.open("counted_words", {
    seed: 48,
    now: NOW,
    // Shares of the posts holding each word: three common, one rare.
    shares: [
      ["amber", 0.85],
      ["birch", 0.5],
      ["cedar", 0.3],
      ["dune", 0.02],
    ],
    days: 900,
    // Some posts share a day to the millisecond: ties broken by id.
    age: (i, age) => (i % 4 === 0 ? Math.floor(age / DAY) * DAY : age),
  });
  ({ store, pool, languages } = fx);
  feeds = await fx.addFeeds("w", 24, (f) => 40 + 3 * f);
  await pool.query("ANALYZE posts");
});
after(() => fx?.db.close());

describe("postgres common words counted per day", () => {
  it("keeps a plain word's query as its lexeme, and no phrase's pair or other query", () => {
    assert.equal(lexemeOf("'the'", null), "the");
    assert.equal(lexemeOf("'it''s'", null), "it's");
    assert.equal(lexemeOf("'the'", "'the'"), null);
    assert.equal(lexemeOf("'the':*", null), null);
    assert.equal(lexemeOf("'the' & 'end'", null), null);
    assert.equal(lexemeOf("'open source'", null), null);
  });

  it("chooses the words the statistics list over the bound, commonest first, as many as allowed", async () => {
    assert.deepEqual(await chooseCountedWords(pool, COUNTED_CHOICE), ["amber", "birch"]);
    assert.deepEqual(await chooseCountedWords(pool, { matches: 150, most: 10 }), ["amber", "birch", "cedar"]);
    assert.deepEqual(await chooseCountedWords(pool, { matches: 1e9, most: 10 }), []);
  });

  it("reads deep pages of a word not yet counted by its matches, exact", async () => {
    assert.deepEqual(await counted(), []);
    await assertPages("uncounted", ["amber"], false);
  });

  it("counts the chosen words in one pass over the posts, and pages them through their days", async () => {
    assert.equal(await syncCountedWords(pool, COUNTED_CHOICE), 2);
    assert.deepEqual(await counted(), [
      { lexeme: "amber", common: true },
      { lexeme: "birch", common: true },
    ]);
    await assertCounts("counted");
    await assertPages("counted", ["amber", "birch"], true);
    // Again: nothing new to count.
    assert.equal(await syncCountedWords(pool, COUNTED_CHOICE), 0);
  });

  it("keeps the counts exact when posts come, go, and change words, date or language", async () => {
    for (let f = 0; f < 24; f += 5) {
      await store.applyFeedUpdate(feeds[f]!, {
        fetchState: {},
        posts: archive(`b${f}-`, 30, languages[f % 3]!),
      });
    }
    const { rows: some } = await pool.query<{ id: number }>(
      "SELECT id FROM posts ORDER BY id % 7, id LIMIT 60",
    );
    const ids = some.map((r) => r.id);
    await pool.query("UPDATE posts SET language_id = $1 WHERE id = ANY($2::int[])", [
      languages[2],
      ids.slice(0, 20),
    ]);
    await pool.query("UPDATE posts SET post_date = post_date - 300 * $1::bigint WHERE id = ANY($2::int[])", [
      DAY,
      ids.slice(20, 40),
    ]);
    // A refresh re-words some posts as the writer stores them.
    await store.applyFeedUpdate(feeds[1]!, {
      fetchState: {},
      posts: archive("a1-", 12, languages[1]!).map((p) => ({ ...p, title: "amber birch changed" })),
    });
    await store.applyFeedUpdate(feeds[2]!, {
      fetchState: {},
      posts: archive("a2-", 12, languages[2]!).map((p) => ({ ...p, title: "cedar only now" })),
    });
    for (const id of ids.slice(40)) await store.insertClick(id, `k${id}`, NOW - DAY);
    assert.ok(await store.removeFeed(feeds[3]!));
    await pool.query("DELETE FROM posts WHERE id = ANY($1::int[])", [ids.slice(20, 25)]);
    await assertCounts("after the writes");
    await assertPages("after the writes", ["amber", "birch"], true);
  });

  it("counts a word that became common when the words are chosen again", async () => {
    for (let f = 0; f < 24; f += 2) {
      await store.applyFeedUpdate(feeds[f]!, {
        fetchState: {},
        posts: archive(`c${f}-`, 25, languages[f % 3]!, "ember"),
      });
    }
    // Not counted until chosen: exact, the slower way.
    await assertPages("ember uncounted", ["ember"], false);
    await pool.query("ANALYZE posts");
    const wider = { matches: 150, most: 4 };
    assert.deepEqual((await chooseCountedWords(pool, wider)).sort(), ["amber", "birch", "cedar", "ember"]);
    assert.equal(await syncCountedWords(pool, wider), 2);
    await assertCounts("ember counted");
    await assertPages("ember counted", ["ember"], true);
  });

  it("stops counting a word no longer chosen, unless a smart category counts its query", async () => {
    await store.addSmartCategory({ name: "Birch", query: "birch" });
    assert.equal(await syncCountedWords(pool, { matches: 150, most: 1 }), 0);
    assert.deepEqual(await counted(), [
      { lexeme: "amber", common: true },
      { lexeme: "birch", common: false },
    ]);
    await assertCounts("birch kept by its smart category");
    const smart = (await store.smartCategories()).find((c) => c.smartCategoryQuery === "birch")!;
    assert.ok(await store.removeSmartCategory(smart.smartCategoryId));
    assert.deepEqual(await counted(), [{ lexeme: "amber", common: true }]);
    await assertPages("birch uncounted", ["birch"], false);
  });

  it("forgets the words when the posts are truncated, and counts them again when chosen, one by one", async () => {
    await pool.query("TRUNCATE posts CASCADE");
    assert.deepEqual(await counted(), []);
    for (let f = 0; f < 6; f++) {
      await store.applyFeedUpdate(feeds[f === 3 ? 4 : f]!, {
        fetchState: {},
        posts: archive(`d${f}-`, 150, languages[f % 3]!),
      });
    }
    await pool.query("ANALYZE posts");
    // One word at a time: each counted through the search index, not by a pass over every post.
    assert.equal(await syncCountedWords(pool, { matches: 150, most: 1 }), 1);
    assert.equal(await syncCountedWords(pool, COUNTED_CHOICE), 1);
    await assertCounts("after the truncation");
    await assertPages("after the truncation", ["amber", "birch"], true);
  });

  it("chooses and counts the words on the store's own call (as at its open)", async () => {
    // The store's bound is the spec's budget over a match's cost: far above these few posts.
    assert.equal(await store.recountCommonWords(), 0);
    assert.deepEqual(await counted(), []);
  });
});
