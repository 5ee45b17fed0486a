/**
 * The walk of the clicks order (postgres-clicked-walk.ts) against brute force: on 20,000 posts, a
 * tenth of them clicked, the first matches by (clicks desc, id desc) are what sorting every match
 * gives, through the clicked posts, into the unclicked ones, past the end, in one language or
 * two; a walk over its budget gives up; and search by clicks answers a common word's limit-1000
 * page through the walk, exactly.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type pg from "pg";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { matchesByClicks, withoutClickedWords } from "../../test-support/clicked-words.js";
import { openTestPostgresStore, type TestPostgresStore } from "../../test-support/test-postgres-server.js";
import { walkClicked } from "./postgres-clicked-walk.js";
import { rows, type Sql } from "./postgres-connection.js";
import { searchMatch, searchPosts } from "./postgres-search-queries.js";
import type { PostgresStore } from "./postgres-store.js";

const POSTS = 20_000;
const T0 = Date.UTC(2026, 0, 10);

let db: TestPostgresStore;
let store: PostgresStore;
let pool: pg.Pool;
let fr: number;

before(async () => {
  db = await openTestPostgresStore("clicked_walk");
  ({ store, pool } = db);
  fr = (await store.ensureLanguage("fr")).languageId;
  const a = await store.addFeed({ feedUrl: "https://a.test/feed", feedName: "A" });
  const b = await store.addFeed({ feedUrl: "https://b.test/feed", feedName: "B", languageId: fr });
  // "the" in 80% of posts, "w<n>" in 1% each, "rare" in 12; one post in ten clicked 1 to 40
  // times (many ties), half of those holding "the"; every fourth post French; dates out of id order.
  await pool.query(
    `INSERT INTO posts (feed_id, guid, link, title, excerpt, content, seen_at, post_date, language_id, clicks, search_vector)
      SELECT CASE WHEN i % 4 = 0 THEN $2::int ELSE $1::int END, 'g' || i, 'https://x.test/' || i, 'Post ' || i, '', '', 0,
        $4::bigint - ((i * 7919) % ${POSTS})::bigint * 86400, CASE WHEN i % 4 = 0 THEN $3::int ELSE 1 END,
        CASE WHEN i % 20 IN (3, 4) THEN 1 + (i * 31) % 40 ELSE 0 END,
        ((CASE WHEN i % 5 < 4 THEN 'the:1 ' ELSE '' END) || 'w' || (i % 97) || ':2'
          || CASE WHEN i % 1667 = 0 THEN ' rare:3' ELSE '' END)::tsvector
      FROM generate_series(1, ${POSTS}) i`,
    [a.feedId, b.feedId, fr, T0],
  );
  // The walks are under test here, not the most clicked posts' own words (migration 42).
  await withoutClickedWords(pool);
  await pool.query("ANALYZE");
});
after(() => db?.close());

const reference = (terms: string, need: number, languageIds: number[] | null) =>
  matchesByClicks(pool, terms, need, languageIds);

describe("postgres clicked walk", () => {
  it("finds the first matches by clicks exactly, through the clicked posts and past them", async () => {
    const clicked = (await rows<{ n: number }>(pool, "SELECT count(*)::int AS n FROM clicked_posts"))[0]!.n;
    assert.ok(clicked > 1000 && clicked < 5000, `${clicked} clicked posts`);
    for (const [terms, languageIds] of [
      ["the", null],
      ["the", [fr]],
      ["the", [1, fr]],
      ["w5", null],
      ["rare", null],
      ["nothing", null],
    ] as const) {
      for (const need of [1, 20, 1000, 2500, 16_000, 30_000]) {
        const match = searchMatch(parseSearchQuery(terms), languageIds ? [...languageIds] : null)!;
        const got = await walkClicked(pool, match, need, Number.POSITIVE_INFINITY);
        const want = await reference(terms, need, languageIds ? [...languageIds] : null);
        assert.deepEqual(got, want, `${terms} in ${JSON.stringify(languageIds)}, first ${need}`);
      }
    }
  });

  it("gives up once the share of matches seen says the page costs more than its budget", async () => {
    const match = searchMatch(parseSearchQuery("w5"), null)!;
    assert.equal(await walkClicked(pool, match, 100, 2000), null);
    // The same page within a budget that holds it.
    assert.deepEqual(await walkClicked(pool, match, 100, 100_000), await reference("w5", 100, null));
  });

  it("answers a common word by clicks, limit 1000, through the walk, exactly", async () => {
    // No clicked French post holds "the": that walk finds nothing and gives up for the plain query.
    for (const [offset, limit, languageIds, walks] of [
      [0, 1000, null, true],
      [1000, 1000, null, true],
      [0, 20, [fr], false],
      [0, 1000, [1, fr], true],
      [990, 20, null, true],
    ] as const) {
      const texts: string[] = [];
      const recording: Sql = {
        query: ((config: string | { text: string }, values?: unknown[]) => {
          texts.push(typeof config === "string" ? config : config.text);
          return pool.query(config as string, values);
        }) as Sql["query"],
      };
      const page = { query: parseSearchQuery("the"), sort: "clicks" as const, offset, limit };
      const got = await searchPosts(recording, {
        ...page,
        languageIds: languageIds ? [...languageIds] : null,
      });
      const want = await reference("the", offset + limit, languageIds ? [...languageIds] : null);
      const label = `"the" by clicks at ${offset}, limit ${limit}, in ${JSON.stringify(languageIds)}`;
      assert.deepEqual(
        got.map((r) => r.postId),
        want.slice(offset),
        label,
      );
      if (!walks) continue;
      assert.ok(
        texts.some((t) => t.includes("FROM clicked_posts") && t.includes("AS hit")),
        `${label}: walked the clicked posts`,
      );
      // 1,000 clicked posts hold "the": the second page needs unclicked ones too.
      if (offset + limit > 1000) {
        assert.ok(
          texts.some((t) => t.includes("WHERE p.clicks = $2 AND p.id < $3")),
          `${label}: walked on into the unclicked posts`,
        );
      }
      assert.ok(
        !texts.some(
          (t) => t.includes("@@ $") && t.includes("ORDER BY clicks DESC, id DESC LIMIT $1 OFFSET $2"),
        ),
        `${label}: no plain query`,
      );
    }
  });
});

/**
 * The walk against brute force on posts whose title holds a word and whose body holds it or not:
 * negations of a body word, phrases, prefixes and OR, in one language or two of three (a walk of
 * every clicked post that drops the third's); a post re-filed in another language and one whose
 * words changed after its clicks.
 */
describe("postgres clicked walk: title and body words, languages, posts changed after their clicks", () => {
  let titles: TestPostgresStore;
  let de: number;
  before(async () => {
    titles = await openTestPostgresStore("clicked_walk_titles");
    de = (await titles.store.ensureLanguage("de")).languageId;
    const it_ = (await titles.store.ensureLanguage("it")).languageId;
    const feed = await titles.store.addFeed({ feedUrl: "https://t.test/feed", feedName: "T" });
    // Title words weigh A ("the" in a third of titles, "x" in a seventh), body words D ("the" in
    // three fifths, "y" in half, "w<n>" in 1% each); a third of the posts clicked 1 to 30 times;
    // a fifth of the posts German, a fifth Italian (English and German together: a walk of every
    // clicked post that drops the Italian ones).
    await titles.pool.query(
      `INSERT INTO posts (feed_id, guid, link, title, excerpt, content, seen_at, post_date, language_id, clicks, search_vector)
        SELECT $1::int, 'g' || i, 'https://t.test/' || i, 'Post ' || i, '', '', 0, $3::bigint - i * 60,
          CASE WHEN i % 5 = 0 THEN $2::int WHEN i % 5 = 1 THEN $4::int ELSE 1 END,
          CASE WHEN i % 3 = 0 THEN 1 + (i * 17) % 30 ELSE 0 END,
          ((CASE WHEN i % 3 = 0 THEN 'the:1A ' ELSE '' END) || (CASE WHEN i % 7 = 0 THEN 'x:2A ' ELSE '' END)
            || (CASE WHEN i % 5 < 3 THEN 'the:5 ' ELSE '' END) || (CASE WHEN i % 2 = 0 THEN 'y:6 ' ELSE '' END)
            || 'w' || (i % 97) || ':7')::tsvector
        FROM generate_series(1, 6000) i`,
      [feed.feedId, de, T0, it_],
    );
    // After the clicks: one clicked post re-filed in German, one whose title lost "the".
    await titles.pool.query(
      `UPDATE posts SET language_id = $1 WHERE id = (SELECT min(id) FROM posts WHERE clicks > 20 AND language_id = 1)`,
      [de],
    );
    await titles.pool.query(
      `UPDATE posts SET search_vector = 'w1:7'::tsvector WHERE id = (SELECT max(id) FROM posts WHERE clicks > 25 AND rank_vector @@ 'the'::tsquery)`,
    );
    await titles.pool.query("ANALYZE");
  });
  after(() => titles?.close());

  it("finds the first matches by clicks exactly", async () => {
    const reference = async (match: { words: string }, need: number, languageIds: number[] | null) =>
      (
        await rows<{ id: number }>(
          titles.pool,
          `SELECT p.id FROM posts p WHERE p.search_vector @@ $1::tsquery ${languageIds ? "AND p.language_id = ANY($3::int[])" : ""}
            ORDER BY p.clicks DESC, p.id DESC LIMIT $2`,
          [match.words, need, ...(languageIds ? [languageIds] : [])],
        )
      ).map((r) => r.id);
    for (const terms of ["the", "x", "the x", "x OR w3", "the -y", "x -the", "-y x", '"the x"', "th*"]) {
      for (const languageIds of [null, [de], [1, de]]) {
        const match = searchMatch(parseSearchQuery(terms), languageIds)!;
        for (const need of [1, 50, 1500, 7000]) {
          assert.deepEqual(
            await walkClicked(titles.pool, match, need, Number.POSITIVE_INFINITY),
            await reference(match, need, languageIds),
            `${terms} in ${JSON.stringify(languageIds)}, first ${need}`,
          );
        }
      }
    }
  });
});
