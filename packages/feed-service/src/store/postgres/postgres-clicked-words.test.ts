/**
 * The most clicked posts' words (migration 42, postgres-clicked-words.ts): the set is every post
 * with CLICKED_WORDS_LEAST clicks or more and its current `search_vector`, whichever writer moved
 * the clicks or the words (posts arriving with clicks, clicks one at a time and in bulk, up and
 * down across the bound, a post's words rewritten, a post deleted, clicked_posts emptied and
 * refilled as the bulk load's put-back does, the migration run again); and search by clicks
 * answers from it exactly, against brute force, or walks when the set holds too few matches.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type pg from "pg";
import { resolveSearchFilters } from "../../operations/search-filters.js";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { foldLanguageClauses } from "../../search/search-query.js";
import { matchesByClicks } from "../../test-support/clicked-words.js";
import { operatorSearchReference } from "../../test-support/postgres-search-reference.js";
import { recordingSql } from "../../test-support/recorded-statements.js";
import { openTestPostgresStore, type TestPostgresStore } from "../../test-support/test-postgres-server.js";
import { fillClickedPostsWithLanguages } from "./postgres-clicked-languages.js";
import { CLICKED_WORDS_LEAST, clickedWordsPage, createClickedWords } from "./postgres-clicked-words.js";
import { rows, type Sql } from "./postgres-connection.js";
import { searchWithOperators } from "./postgres-search-operators.js";
import { searchMatch, searchPosts } from "./postgres-search-queries.js";
import type { PostgresStore } from "./postgres-store.js";

const POSTS = 12_000;
const T0 = Date.UTC(2026, 0, 10);

let db: TestPostgresStore;
let store: PostgresStore;
let pool: pg.Pool;
let de: number;

before(async () => {
  db = await openTestPostgresStore("clicked_words");
  ({ store, pool } = db);
  de = (await store.ensureLanguage("de")).languageId;
  const feed = await store.addFeed({ feedUrl: "https://w.test/feed", feedName: "W" });
  // Post i: "the" in 60 % (in the title in one in seven), "w<n>" in 1 % each, "rare" in one in
  // 1,500; German one in five; one in four clicked 1 to 23 times (many ties, about a third of
  // them at the bound or over). The first half arrive with their clicks (the roll-up trigger
  // writes clicked_posts), the second half are clicked after.
  const insert = (from: number, to: number, clicked: boolean) =>
    pool.query(
      `INSERT INTO posts (feed_id, guid, link, title, excerpt, content, seen_at, post_date, language_id, clicks, search_vector)
        SELECT $1::int, 'g' || i, 'https://w.test/' || i, 'Post ' || i, '', '', 0, $2::bigint - i * 60,
          CASE WHEN i % 5 = 0 THEN $3::int ELSE 1 END,
          CASE WHEN $4::bool AND i % 4 = 1 THEN 1 + (i / 4) % 23 ELSE 0 END,
          ((CASE WHEN i % 5 < 3 THEN (CASE WHEN i % 7 = 0 THEN 'the:1A ' ELSE 'the:1 ' END) ELSE '' END)
            || 'w' || (i % 97) || ':3' || CASE WHEN i % 1500 = 0 THEN ' rare:4' ELSE '' END)::tsvector
        FROM generate_series($5::int, $6::int) i`,
      [feed.feedId, T0, de, clicked, from, to],
    );
  await insert(1, POSTS / 2, true);
  await insert(POSTS / 2 + 1, POSTS, false);
  await pool.query(`UPDATE posts SET clicks = 1 + (id / 4) % 23 WHERE id > $1 AND id % 4 = 1`, [POSTS / 2]);
  // One click at a time, through the store, across the bound.
  const [below] = await rows<{ id: number }>(
    pool,
    "SELECT id FROM posts WHERE clicks = $1 - 1 ORDER BY id LIMIT 1",
    [CLICKED_WORDS_LEAST],
  );
  await store.recordClick(below!.id, "client-a", T0, 0);
  await pool.query("ANALYZE");
});
after(() => db?.close());

/** The set as it should be: every post with enough clicks, with its words. */
async function assertSet(label: string): Promise<void> {
  const got = await rows(pool, "SELECT id, words::text AS words FROM clicked_words ORDER BY id");
  const want = await rows(
    pool,
    `SELECT p.id, p.search_vector::text AS words FROM posts p JOIN clicked_posts k ON k.id = p.id
      WHERE k.clicks >= $1 AND p.search_vector IS NOT NULL ORDER BY p.id`,
    [CLICKED_WORDS_LEAST],
  );
  assert.ok(want.length > 500, `${label}: ${want.length} posts at the bound or over`);
  assert.deepEqual(got, want, label);
  const [stale] = await rows<{ n: number }>(
    pool,
    "SELECT count(*)::int AS n FROM posts p JOIN clicked_posts k ON k.id = p.id WHERE k.clicks <> p.clicks",
  );
  assert.equal(stale!.n, 0, `${label}: clicked_posts in step with posts`);
}

const reference = (terms: string, need: number, languageIds: number[] | null) =>
  matchesByClicks(pool, terms, need, languageIds);

describe("postgres clicked words (migration 42)", () => {
  it("holds every post with enough clicks and its words, whichever writer moved them", async () => {
    await assertSet("after the load and the clicks");
    // Clicks down across the bound and back up, in bulk.
    await pool.query("UPDATE posts SET clicks = 1 WHERE clicks >= $1 AND id % 3 = 0", [CLICKED_WORDS_LEAST]);
    await assertSet("after clicks moved below the bound");
    await pool.query("UPDATE posts SET clicks = $1 + 5 WHERE clicks = 1 AND id % 3 = 0", [
      CLICKED_WORDS_LEAST,
    ]);
    await assertSet("after clicks moved back over it");
    // Words rewritten: of posts in the set, and of one crossing the bound in the same statement.
    await pool.query(
      "UPDATE posts SET search_vector = 'rewritten:1 w5:2'::tsvector WHERE clicks >= $1 AND id % 11 = 0",
      [CLICKED_WORDS_LEAST],
    );
    await pool.query(
      `UPDATE posts SET search_vector = 'crossed:1'::tsvector, clicks = $1
        WHERE id = (SELECT min(id) FROM posts WHERE clicks = 2)`,
      [CLICKED_WORDS_LEAST],
    );
    await assertSet("after words changed");
    // A clicked post deleted (its clicked_posts row goes with it).
    await pool.query("DELETE FROM posts WHERE id = (SELECT max(id) FROM clicked_words)");
    await assertSet("after a post was deleted");
    // clicked_posts emptied and refilled as the bulk load's put-back does, then the migration again.
    await pool.query("BEGIN");
    await pool.query("TRUNCATE clicked_posts");
    const [emptied] = await rows<{ n: number }>(pool, "SELECT count(*)::int AS n FROM clicked_words");
    assert.equal(emptied!.n, 0, "TRUNCATE of clicked_posts empties the set");
    await pool.query(fillClickedPostsWithLanguages);
    await pool.query("COMMIT");
    await assertSet("after clicked_posts was refilled");
    await createClickedWords(pool);
    await assertSet("after migration 42 ran again");
  });

  it("answers search by clicks exactly, from the set when it holds the page, else by the walk", async () => {
    const inSet = (await rows<{ n: number }>(pool, "SELECT count(*)::int AS n FROM clicked_words"))[0]!.n;
    let tried = 0;
    let answered = 0;
    for (const [terms, languageIds] of [
      ["the", null],
      ["the", [de]],
      ["the", [1, de]],
      ["w5", null],
      ["rare", null],
      ["the w5", null],
      ["w5 OR w6", null],
      ["the -w5", null],
      ['"the w5"', null],
      ["nothing", null],
    ] as const) {
      for (const { offset, limit } of [
        { offset: 0, limit: 20 },
        { offset: 40, limit: 20 },
        { offset: 0, limit: 1000 },
        { offset: 990, limit: 20 },
        { offset: 3000, limit: 20 },
      ]) {
        const ran: string[] = [];
        const recording: Sql = {
          query: ((config: string | { text: string }, values?: unknown[]) => {
            ran.push(typeof config === "string" ? config : config.text);
            return pool.query(config as string, values);
          }) as Sql["query"],
        };
        const languages = languageIds ? [...languageIds] : null;
        const got = await searchPosts(recording, {
          query: parseSearchQuery(terms),
          sort: "clicks",
          offset,
          limit,
          languageIds: languages,
        });
        const want = await reference(terms, offset + limit, languages);
        const label = `${terms} in ${JSON.stringify(languageIds)} by clicks at ${offset}, limit ${limit}`;
        assert.deepEqual(
          got.map((r) => r.postId),
          want.slice(offset),
          label,
        );
        const fromSet = ran.some((t) => t.includes("FROM clicked_words"));
        const match = searchMatch(parseSearchQuery(terms), languages)!;
        const setMatches = (
          await rows<{ n: number }>(
            pool,
            `SELECT count(*)::int AS n FROM clicked_words w JOIN posts p ON p.id = w.id
              WHERE p.search_vector @@ $1::tsquery ${languages ? "AND p.language_id = ANY($2::int[])" : ""}`,
            [match.words, ...(languages ? [languages] : [])],
          )
        )[0]!.n;
        if (match.verify !== null || terms.includes("-")) {
          assert.ok(!fromSet, `${label}: a query GIN does not settle, or one that excludes, skips the set`);
          continue;
        }
        if (fromSet) tried++;
        // Tried and holding the page: the set answers alone, no walk, no other statement on posts.
        const walked = ran.some((t) => t.includes("AS hit") || t.includes("ORDER BY clicks DESC, id DESC"));
        if (fromSet && setMatches >= offset + limit) {
          assert.ok(!walked, `${label}: answered from the set (${setMatches} of ${inSet})`);
          answered++;
        }
      }
    }
    assert.ok(tried >= 5 && answered >= 5, `${tried} pages tried the set, ${answered} answered from it`);
  });

  it("says null, never a short page, when the set holds fewer matches than the page", async () => {
    const match = searchMatch(parseSearchQuery("rare"), null)!;
    assert.equal(await clickedWordsPage(pool, match, 1000), null);
    const common = searchMatch(parseSearchQuery("the"), null)!;
    assert.deepEqual(await clickedWordsPage(pool, common, 100), await reference("the", 100, null));
  });

  it("answers searches with operators by clicks exactly, from the set when the checks are on clicked_posts' row", async () => {
    const iso = (t: number) => new Date(t).toISOString().slice(0, 10);
    const cut = T0 - 200 * 60;
    const cases: Array<{ terms: string; where: string; fromSet: boolean }> = [
      { terms: "th*", where: "TRUE", fromSet: true },
      { terms: "th* w5", where: "TRUE", fromSet: true },
      { terms: "title:the", where: "TRUE", fromSet: true },
      { terms: "title:the w5", where: "TRUE", fromSet: true },
      { terms: "lang:de the", where: `p.language_id = ${de}`, fromSet: true },
      { terms: "feed:w the", where: "TRUE", fromSet: true },
      { terms: `after:${iso(cut)} the`, where: `p.post_date >= ${Date.parse(iso(cut))}`, fromSet: true },
      { terms: "th* -w5", where: "NOT p.search_vector @@ 'w5'::tsquery", fromSet: false },
      { terms: "lang:de", where: `p.language_id = ${de}`, fromSet: false },
    ];
    let triedPages = 0;
    for (const c of cases) {
      for (const page of [
        { offset: 0, limit: 20 },
        { offset: 0, limit: 1000 },
        { offset: 990, limit: 20 },
        { offset: 3000, limit: 20 },
      ]) {
        const { sql, ran } = recordingSql(pool);
        const folded = foldLanguageClauses(
          await resolveSearchFilters(store, parseSearchQuery(c.terms)),
          null,
        );
        const got = await searchWithOperators(sql, { ...page, ...folded, sort: "clicks" });
        const want = await operatorSearchReference(pool, c, "clicks", page);
        const label = `${c.terms} by clicks at ${page.offset}, limit ${page.limit}`;
        assert.deepEqual(
          got.map((r) => r.postId),
          want.map((r) => r.id),
          label,
        );
        const tried = ran.some((t) => t.includes("FROM clicked_words"));
        if (!c.fromSet) assert.ok(!tried, `${label}: skipped the set`);
        if (tried) triedPages++;
      }
    }
    assert.ok(triedPages >= 5, `${triedPages} pages tried the set`);
  });
});
