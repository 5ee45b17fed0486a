/**
 * Search by clicks within `feed:`, which reads each feed's clicked posts through
 * clicked_posts_by_feed (migration 34; postgres-clicked-feeds.ts, postgres-clicked-order.ts) or,
 * for many feeds, walks every clicked post checking its feed on the clicked_posts row, against
 * brute force: on 30,000 posts of feeds of many sizes (half the posts, a tenth, a fiftieth, one
 * with few clicked posts, a handful of posts, forty small ones sharing a name word), some posts
 * arriving with clicks (the roll-up trigger's insert), clicks moved after (added, taken back to
 * 0), the operators' walk (postgres-operator-clicks.ts) gives what sorting every match by (clicks
 * desc, id desc) gives, at the top, at limit 1000, deep, and past the clicked posts into the
 * unclicked ones.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type pg from "pg";
import { resolveSearchFilters } from "../../operations/search-filters.js";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { foldLanguageClauses } from "../../search/search-query.js";
import { withoutClickedWords } from "../../test-support/clicked-words.js";
import { operatorSearchReference } from "../../test-support/postgres-search-reference.js";
import { recordingSql } from "../../test-support/recorded-statements.js";
import { openTestPostgresStore, type TestPostgresStore } from "../../test-support/test-postgres-server.js";
import { createClickedFeeds } from "./postgres-clicked-feeds.js";
import { createClickedLanguages } from "./postgres-clicked-languages.js";
import { rows } from "./postgres-connection.js";
import { searchWithOperators } from "./postgres-search-operators.js";
import type { PostgresStore } from "./postgres-store.js";

const POSTS = 30_000;
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 10);
const iso = (daysAgo: number) => new Date(T0 - daysAgo * DAY).toISOString().slice(0, 10);

let db: TestPostgresStore;
let store: PostgresStore;
let pool: pg.Pool;
const feed: Record<string, number> = {};
let de = 0;

before(async () => {
  db = await openTestPostgresStore("feed_clicks");
  ({ store, pool } = db);
  de = (await store.ensureLanguage("de")).languageId;
  for (const name of ["Alpha", "Beta", "Gamma", "Delta"]) {
    feed[name] = (await store.addFeed({ feedUrl: `https://${name}.test/feed`, feedName: name })).feedId;
  }
  const tiny: number[] = [];
  for (let n = 0; n < 40; n++) {
    tiny.push((await store.addFeed({ feedUrl: `https://t${n}.test/feed`, feedName: `Tiny ${n}` })).feedId);
  }
  // Post i: Alpha when i % 2 = 0 (50 %), Beta when i % 10 = 1 (10 %), Gamma when i % 50 = 3
  // (2 %, about 90 clicked posts: fewer than the deep pages need), Delta when i % 3000 = 5 (10 posts), else one of the
  // forty Tiny feeds (about 38 %); German in one in 7; one post in eight clicked 1 to 40 times
  // (many ties); "the" in 60 % (in the title in one in seven), w0..w96 spread, "rare" in one in
  // 1,500; days scrambled over 400. The first half arrive with their clicks (the roll-up
  // trigger fills clicked_posts), the second half are clicked after.
  const insert = (from: number, to: number, clicked: boolean) =>
    pool.query(
      `INSERT INTO posts (feed_id, guid, link, title, excerpt, content, seen_at, post_date, language_id, clicks, search_vector)
        SELECT CASE WHEN i % 2 = 0 THEN $1::int WHEN i % 10 = 1 THEN $2::int WHEN i % 50 = 3 THEN $3::int
            WHEN i % 3000 = 5 THEN $4::int ELSE ($5::int[])[1 + (i * 7) % 40] END,
          'g' || i, 'https://x.test/' || i, 'Post ' || i, '', '', 0,
          $6::bigint - ((i * 7919) % 400)::bigint * ${DAY},
          CASE WHEN i % 7 = 4 THEN $7::int ELSE 1 END,
          CASE WHEN NOT $8::bool THEN 0
            WHEN i % 50 = 3 THEN (CASE WHEN i % 60 = 3 THEN 1 + (i * 31) % 40 ELSE 0 END)
            WHEN i % 8 IN (1, 2) AND i % 16 < 8 THEN 1 + (i * 31) % 40 ELSE 0 END,
          ((CASE WHEN i % 5 < 3 THEN (CASE WHEN i % 7 = 0 THEN 'the:1A ' ELSE 'the:1 ' END) ELSE '' END)
            || 'w' || (i % 97) || ':3' || CASE WHEN i % 1500 = 0 THEN ' rare:4' ELSE '' END)::tsvector
        FROM generate_series($9::int, $10::int) i`,
      [feed.Alpha, feed.Beta, feed.Gamma, feed.Delta, tiny, T0, de, clicked, from, to],
    );
  await insert(1, POSTS / 2, true);
  await insert(POSTS / 2 + 1, POSTS, false);
  // Clicks after the posts came, each through the trigger that keeps clicked_posts.
  await pool.query(
    `UPDATE posts SET clicks = CASE WHEN id % 50 = 3 THEN (CASE WHEN id % 60 = 3 THEN 1 + (id * 31) % 40 ELSE 0 END)
        WHEN id % 8 IN (1, 2) AND id % 16 < 8 THEN 1 + (id * 31) % 40 ELSE 0 END
      WHERE id > $1`,
    [POSTS / 2],
  );
  await pool.query("UPDATE posts SET clicks = clicks + 7 WHERE id % 13 = 0 AND clicks > 0");
  await pool.query("UPDATE posts SET clicks = 0 WHERE id % 17 = 0");
  await pool.query("UPDATE feeds f SET post_count = (SELECT count(*) FROM posts p WHERE p.feed_id = f.id)");
  // The walks are under test here, not the most clicked posts' own words (migration 42).
  await withoutClickedWords(pool);
  await pool.query("ANALYZE");
});
after(() => db?.close());

/** Every statement a search ran. */
const recording = () => recordingSql(pool);

const PAGES = [
  { offset: 0, limit: 20 },
  { offset: 40, limit: 20 },
  { offset: 200, limit: 20 },
  { offset: 0, limit: 1000 },
  { offset: 990, limit: 20 },
  { offset: 2500, limit: 20 },
];
/** The walks through the feed index (postgres-clicked-order.ts). */
const byFeed = (ran: string[]) => ran.some((t) => t.includes("c.feed_id = l.id"));

describe("postgres search by clicks within feeds", () => {
  it("keeps clicked_posts' feeds those of the posts, whichever writer added the row", async () => {
    const columns = "id, clicks, feed_id, language_id";
    assert.deepEqual(
      await rows(pool, `SELECT ${columns} FROM clicked_posts ORDER BY id`),
      await rows(pool, `SELECT ${columns} FROM posts WHERE clicks > 0 ORDER BY id`),
    );
    const gamma = await rows<{ n: number }>(
      pool,
      "SELECT count(*)::int AS n FROM clicked_posts WHERE feed_id = $1",
      [feed.Gamma],
    );
    assert.ok(gamma[0]!.n > 50 && gamma[0]!.n < 150, `${gamma[0]!.n} clicked Gamma posts`);
    // Migration 33's SQL run again (its click trigger names no feed), then 34's: the feed is still
    // filled on every path, and the clicks left as they were.
    const before = await rows(pool, `SELECT ${columns} FROM clicked_posts ORDER BY id`);
    for (const migration of [createClickedLanguages, createClickedFeeds]) {
      await migration(pool);
      await pool.query("UPDATE posts SET clicks = clicks + 1 WHERE id % 997 = 1");
      assert.deepEqual(
        await rows(pool, `SELECT ${columns} FROM clicked_posts ORDER BY id`),
        await rows(pool, `SELECT ${columns} FROM posts WHERE clicks > 0 ORDER BY id`),
        `after ${migration.name} ran again and posts were first clicked`,
      );
      await pool.query("UPDATE posts SET clicks = clicks - 1 WHERE id % 997 = 1");
      assert.deepEqual(await rows(pool, `SELECT ${columns} FROM clicked_posts ORDER BY id`), before);
    }
  });

  it("answers `feed:` with and without words exactly, through each feed's clicked posts when few feeds", async () => {
    const f = (name: string) => `f.id = ${feed[name]}`;
    const cases: Array<{ terms: string; where: string; walks: boolean }> = [
      { terms: "feed:alpha", where: f("Alpha"), walks: true },
      { terms: "feed:beta", where: f("Beta"), walks: true },
      { terms: "feed:gamma", where: f("Gamma"), walks: true },
      { terms: "feed:delta", where: f("Delta"), walks: false },
      { terms: "feed:alpha the", where: f("Alpha"), walks: true },
      { terms: "feed:beta the", where: f("Beta"), walks: true },
      { terms: "feed:beta w5", where: f("Beta"), walks: false },
      { terms: "feed:gamma the", where: f("Gamma"), walks: false },
      { terms: "feed:alpha title:the", where: f("Alpha"), walks: true },
      { terms: "feed:beta rare", where: f("Beta"), walks: false },
      { terms: "feed:beta lang:de the", where: `${f("Beta")} AND p.language_id = ${de}`, walks: false },
      {
        terms: `feed:alpha after:${iso(100)} the`,
        where: `${f("Alpha")} AND p.post_date >= ${T0 - 100 * DAY}`,
        walks: false,
      },
      {
        terms: "feed:alpha -the",
        where: `${f("Alpha")} AND NOT p.search_vector @@ 'the'::tsquery`,
        walks: false,
      },
      // Forty feeds: more than their own descents pay for (walkByFeed), walked in the order of
      // every clicked post, each feed checked on the clicked_posts row.
      { terms: "feed:tiny", where: "f.name LIKE 'Tiny %'", walks: false },
      { terms: "feed:tiny the", where: "f.name LIKE 'Tiny %'", walks: false },
    ];
    let walked = 0;
    for (const c of cases) {
      let feedWalks = 0;
      for (const page of PAGES) {
        const { sql, ran } = recording();
        const folded = foldLanguageClauses(
          await resolveSearchFilters(store, parseSearchQuery(c.terms)),
          null,
        );
        const got = await searchWithOperators(sql, { ...page, ...folded, sort: "clicks" });
        const want = await operatorSearchReference(pool, c, "clicks", page);
        assert.deepEqual(
          got.map((r) => r.postId),
          want.map((r) => r.id),
          `${c.terms} at ${page.offset}+${page.limit}`,
        );
        if (byFeed(ran)) feedWalks++;
      }
      if (c.walks) assert.ok(feedWalks > 0, `${c.terms} walked its feed's clicked posts`);
      walked += feedWalks;
    }
    assert.ok(walked >= 12, `${walked} pages walked by feed`);
  });

  it("reads a feed's page without probing posts, and walks past its clicked posts into the unclicked", async () => {
    const search = async (terms: string, page: { offset: number; limit: number }) => {
      const { sql, ran } = recording();
      const folded = foldLanguageClauses(await resolveSearchFilters(store, parseSearchQuery(terms)), null);
      await searchWithOperators(sql, { ...page, ...folded, sort: "clicks" });
      return ran;
    };
    const top = await search("feed:alpha", { offset: 0, limit: 1000 });
    assert.ok(byFeed(top), "feed:alpha by clicks walked the feed index");
    assert.ok(!top.some((t) => t.includes("p.id = k.id")), "feed:alpha by clicks probed no post");
    // Gamma has few clicked posts: the page past them walks on into the posts without clicks.
    const past = await search("feed:gamma", { offset: 140, limit: 20 });
    assert.ok(byFeed(past), "feed:gamma by clicks walked Gamma's clicked posts");
    assert.ok(
      past.some((t) => t.includes("p.clicks = 0")),
      "feed:gamma by clicks past its clicked posts read the unclicked ones",
    );
    // Many feeds: the feed is checked on the clicked_posts row, not through the feed index.
    const many = await search("feed:tiny the", { offset: 0, limit: 20 });
    assert.ok(!byFeed(many), "feed:tiny did not descend forty feeds");
    assert.ok(
      many.some((t) => t.includes("k.feed_id = ANY")),
      "feed:tiny checked each walked post's feed on clicked_posts",
    );
  });
});
