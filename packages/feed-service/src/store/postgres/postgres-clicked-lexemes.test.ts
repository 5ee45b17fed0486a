/**
 * Every clicked post's lexemes (migration 67, postgres-clicked-lexemes.ts): searches by clicks
 * with prefixes (with and without languages, `feed:`, `title:`, excluded words and prefixes, many
 * ties of clicks) answer exactly from them, page for page against a sort of every match, the
 * posts without clicks after the clicked ones; and the set is every clicked post with its current
 * lexemes whichever writer moved it (posts arriving with clicks, clicks through the store and in
 * bulk, clicks taken back, words rewritten, a post deleted, clicked_posts emptied and refilled,
 * the bulk load's put-back, the migration run again).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type pg from "pg";
import { resolveSearchFilters } from "../../operations/search-filters.js";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { foldLanguageClauses } from "../../search/search-query.js";
import { withoutClickedWords } from "../../test-support/clicked-words.js";
import { type OperatorCase, operatorSearchReference } from "../../test-support/postgres-search-reference.js";
import { recordingSql } from "../../test-support/recorded-statements.js";
import { openTestPostgresStore, type TestPostgresStore } from "../../test-support/test-postgres-server.js";
import { putBack } from "./postgres-bulk-load.js";
import { fillClickedPostsWithLanguages } from "./postgres-clicked-languages.js";
import { createClickedLexemes } from "./postgres-clicked-lexemes.js";
import { rows } from "./postgres-connection.js";
import { searchWithOperators } from "./postgres-search-operators.js";
import type { PostgresStore } from "./postgres-store.js";

const POSTS = 12_000;
const T0 = Date.UTC(2026, 0, 10);
const SUFFIXES = ["gram", "ject", "blem", "cess", "duct"];

let db: TestPostgresStore;
let store: PostgresStore;
let pool: pg.Pool;
let de: number;
let feedB: number;

before(async () => {
  db = await openTestPostgresStore("clicked_lexemes");
  ({ store, pool } = db);
  de = (await store.ensureLanguage("de")).languageId;
  const a = await store.addFeed({ feedUrl: "https://a.test/feed", feedName: "Alpha" });
  feedB = (await store.addFeed({ feedUrl: "https://b.test/feed", feedName: "Beta" })).feedId;
  // Post i: "the" in 60 % (in the title in one in seven), "pro<suffix>" in two in three (in the
  // title in one in eleven), "la" in three in four, "w<n>" in 1 % each, "rare" in one in 1,500;
  // German one in five, feed Beta one in three; one in four clicked 1 to 23 times (many ties);
  // "zed<n>" in most posts without clicks and in few with (the statistics' share then promises the
  // set far more matches than it holds, and a page past them follows from the posts without clicks).
  // The first half arrive with their clicks (the roll-up trigger writes clicked_posts), the second
  // half are clicked after, in bulk.
  const insert = (from: number, to: number, clicked: boolean) =>
    pool.query(
      `INSERT INTO posts (feed_id, guid, link, title, excerpt, content, seen_at, post_date, language_id, clicks, search_vector)
        SELECT CASE WHEN i % 3 = 1 THEN $7::int ELSE $1::int END, 'g' || i, 'https://w.test/' || i, 'Post ' || i, '', '', 0,
          $2::bigint - i * 60,
          CASE WHEN i % 5 = 0 THEN $3::int ELSE 1 END,
          CASE WHEN $4::bool AND i % 4 = 1 THEN 1 + (i / 4) % 23 ELSE 0 END,
          ((CASE WHEN i % 5 < 3 THEN (CASE WHEN i % 7 = 0 THEN 'the:1A ' ELSE 'the:1 ' END) ELSE '' END)
            || CASE WHEN i % 3 <> 0 THEN 'pro' || ($8::text[])[1 + i % 5] || (CASE WHEN i % 11 = 0 THEN ':2A ' ELSE ':2 ' END) ELSE '' END
            || CASE WHEN i % 4 <> 2 THEN 'la:3 ' ELSE '' END
            || CASE WHEN i % 4 <> 1 OR i % 400 = 1 THEN 'zed' || (i % 7) || ':6 ' ELSE '' END
            || 'w' || (i % 97) || ':4' || CASE WHEN i % 1500 = 0 THEN ' rare:5' ELSE '' END)::tsvector
        FROM generate_series($5::int, $6::int) i`,
      [a.feedId, T0, de, clicked, from, to, feedB, SUFFIXES],
    );
  await insert(1, POSTS / 2, true);
  await insert(POSTS / 2 + 1, POSTS, false);
  await pool.query("UPDATE posts SET clicks = 1 + (id / 4) % 23 WHERE id > $1 AND id % 4 = 1", [POSTS / 2]);
  // One click through the store, of a post without any.
  const [unclicked] = await rows<{ id: number }>(
    pool,
    "SELECT id FROM posts WHERE clicks = 0 ORDER BY id DESC LIMIT 1",
  );
  await store.recordClick(unclicked!.id, "client-a", T0, 0);
  // The most clicked posts' own words (migration 42) would answer the shallow pages first.
  await withoutClickedWords(pool);
  await pool.query("ANALYZE");
});
after(() => db?.close());

/** The set as it should be: every clicked post with a vector, with its lexemes. */
async function assertSet(label: string): Promise<void> {
  const got = await rows(pool, "SELECT id, lexemes::text AS lexemes FROM clicked_lexemes ORDER BY id");
  const want = await rows(
    pool,
    `SELECT p.id, (strip(p.search_vector) || ts_delete(operator_facets(p.search_vector, 0), ' feed 0'))::text AS lexemes
      FROM posts p JOIN clicked_posts k ON k.id = p.id WHERE p.search_vector IS NOT NULL ORDER BY p.id`,
  );
  assert.ok(want.length > 1_000, `${label}: ${want.length} clicked posts`);
  assert.deepEqual(got, want, label);
  const [clicked] = await rows<{ n: number }>(
    pool,
    "SELECT count(*)::int AS n FROM posts p WHERE p.clicks > 0 AND p.search_vector IS NOT NULL AND NOT EXISTS (SELECT 1 FROM clicked_lexemes c WHERE c.id = p.id)",
  );
  assert.equal(clicked!.n, 0, `${label}: every clicked post in the set`);
  // A prefix through the set's GIN finds what its rows hold (the index in step with the table).
  const [viaIndex] = await rows<{ n: number }>(
    pool,
    "SELECT count(*)::int AS n FROM clicked_lexemes WHERE lexemes @@ $1::tsquery",
    ["' pfx pro' & 'la'"],
  );
  const [direct] = await rows<{ n: number }>(
    pool,
    `SELECT count(*)::int AS n FROM posts p JOIN clicked_posts k ON k.id = p.id
      WHERE p.search_vector @@ 'pro:* & la'::tsquery`,
  );
  assert.equal(viaIndex!.n, direct!.n, `${label}: the set's GIN finds every clicked 'pro* la'`);
}

const iso = (t: number) => new Date(t).toISOString().slice(0, 10);

/** The matches a case has in all (for its deepest page). */
async function total(c: OperatorCase): Promise<number> {
  return (await operatorSearchReference(pool, c, "clicks", { offset: 0, limit: POSTS * 2 })).length;
}

describe("postgres clicked lexemes (migration 67)", () => {
  it("answers prefix searches by clicks exactly, the clicked matches from the set", async () => {
    const cut = T0 - 4_000 * 60;
    const cases: Array<OperatorCase & { fromSet?: boolean }> = [
      { terms: "pro* la", where: "TRUE", fromSet: true },
      { terms: "pro*", where: "TRUE", fromSet: true },
      { terms: "prog*", where: "TRUE", fromSet: true },
      { terms: "the* the", where: "TRUE", fromSet: true },
      { terms: "pro* la -w5", where: "NOT p.search_vector @@ 'w5'::tsquery", fromSet: true },
      {
        terms: "pro* -proj* -w7",
        where: "NOT p.search_vector @@ 'proj:* | w7'::tsquery",
        fromSet: true,
      },
      { terms: "lang:de pro* la", where: `p.language_id = ${de}`, fromSet: true },
      { terms: "-lang:de pro*", where: `p.language_id <> ${de}`, fromSet: true },
      { terms: "feed:beta pro*", where: `p.feed_id = ${feedB}`, fromSet: true },
      { terms: "pro* -feed:beta", where: `p.feed_id <> ${feedB}`, fromSet: true },
      { terms: `after:${iso(cut)} pro* la`, where: `p.post_date >= ${Date.parse(iso(cut))}`, fromSet: true },
      { terms: "title:the pro*", where: "p.search_vector @@ 'the:A'::tsquery", fromSet: true },
      { terms: "title:pro* la", where: "p.search_vector @@ 'pro:*A'::tsquery", fromSet: true },
      { terms: "pro* -title:the", where: "NOT p.search_vector @@ 'the:A'::tsquery", fromSet: true },
      { terms: "pro* w5", where: "TRUE" },
      { terms: "zed*", where: "TRUE", fromSet: true },
      { terms: "zed* la -w5", where: "NOT p.search_vector @@ 'w5'::tsquery", fromSet: true },
      // A phrase needs positions: the walk or every match, as before.
      { terms: '"la w5" pro*', where: "TRUE", fromSet: false },
      { terms: 'pro* -"la w5"', where: "NOT p.search_vector @@ 'la <-> w5'::tsquery", fromSet: false },
    ];
    let fromSet = 0;
    for (const c of cases) {
      const all = await total(c);
      const pages = [
        { offset: 0, limit: 20 },
        { offset: 0, limit: 1000 },
        { offset: 990, limit: 20 },
        { offset: 2990, limit: 20 },
        { offset: 1500, limit: 1000 },
        { offset: Math.max(0, all - 15), limit: 20 },
        { offset: all + 5, limit: 20 },
      ];
      for (const page of pages) {
        const { sql, ran } = recordingSql(pool);
        const folded = foldLanguageClauses(
          await resolveSearchFilters(store, parseSearchQuery(c.terms)),
          null,
        );
        const got = await searchWithOperators(sql, { ...page, ...folded, sort: "clicks" });
        const want = await operatorSearchReference(pool, c, "clicks", page);
        const label = `${c.terms} by clicks at ${page.offset}+${page.limit} (${all} matches)`;
        assert.deepEqual(
          got.map((r) => r.postId),
          want.map((r) => r.id),
          label,
        );
        const tried = ran.some((t) => t.includes("FROM clicked_lexemes"));
        if (c.fromSet === false) assert.ok(!tried, `${label}: not from the set`);
        if (tried) fromSet++;
        if (process.env.SHOW) console.log(label, tried);
      }
    }
    assert.ok(fromSet >= 15, `${fromSet} pages from the set`);
  });

  it("answers with the page's languages and ties at a page's edge", async () => {
    // Every clicked post of the first 600 given the same clicks: the page's edges fall in a tie.
    let fromSet = 0;
    await pool.query("UPDATE posts SET clicks = 30 WHERE id <= 600 AND clicks > 0");
    try {
      for (const [terms, languageIds] of [
        ["pro* la", [de]],
        ["pro* la", [1, de]],
        ["pro* -w3", [1]],
      ] as const) {
        const where = `p.language_id = ANY('{${languageIds.join(",")}}'::int[])${terms.includes("-w3") ? " AND NOT p.search_vector @@ 'w3'::tsquery" : ""}`;
        for (const page of [
          { offset: 5, limit: 30 },
          { offset: 60, limit: 40 },
          { offset: 1000, limit: 100 },
        ]) {
          const { sql, ran } = recordingSql(pool);
          const got = await searchWithOperators(sql, {
            ...page,
            query: parseSearchQuery(terms),
            languageIds: [...languageIds],
            sort: "clicks",
          });
          const want = await operatorSearchReference(pool, { terms, where }, "clicks", page);
          const label = `${terms} in ${JSON.stringify(languageIds)} at ${page.offset}+${page.limit}`;
          assert.deepEqual(
            got.map((r) => r.postId),
            want.map((r) => r.id),
            label,
          );
          if (ran.some((t) => t.includes("FROM clicked_lexemes"))) fromSet++;
        }
      }
      assert.ok(fromSet >= 1, `${fromSet} pages from the set`);
    } finally {
      await pool.query("UPDATE posts SET clicks = 1 + (id / 4) % 23 WHERE id <= 600 AND clicks > 0");
    }
  });

  it("holds every clicked post and its lexemes, whichever writer moved them", async () => {
    await assertSet("after the load and the clicks");
    // Clicks taken back in bulk, and given again.
    await pool.query("UPDATE posts SET clicks = 0 WHERE clicks > 0 AND id % 3 = 0");
    await assertSet("after clicks were taken back");
    await pool.query("UPDATE posts SET clicks = 2 WHERE clicks = 0 AND id % 9 = 0");
    await assertSet("after clicks were given in bulk");
    // A first click through the store.
    const [unclicked] = await rows<{ id: number }>(
      pool,
      "SELECT id FROM posts WHERE clicks = 0 ORDER BY id LIMIT 1",
    );
    await store.recordClick(unclicked!.id, "client-b", T0, 0);
    await assertSet("after a first click");
    // Words rewritten: of clicked posts, of unclicked ones, of one clicked in the same statement,
    // and one's words taken away.
    await pool.query(
      "UPDATE posts SET search_vector = 'rewritten:1 prozess:2A'::tsvector WHERE id % 11 = 0 AND id < 3000",
    );
    await pool.query(
      `UPDATE posts SET search_vector = 'crossed:1 prod:2'::tsvector, clicks = 4
        WHERE id = (SELECT min(id) FROM posts WHERE clicks = 0)`,
    );
    await pool.query("UPDATE posts SET search_vector = NULL WHERE id = (SELECT max(id) FROM clicked_posts)");
    await assertSet("after words changed");
    // A clicked post deleted (its clicked_posts row goes with it).
    await pool.query("DELETE FROM posts WHERE id = (SELECT max(id) FROM clicked_lexemes)");
    await assertSet("after a post was deleted");
    // clicked_posts emptied and refilled row by row, then the bulk load's put-back, then the migration again.
    await pool.query("BEGIN");
    await pool.query("TRUNCATE clicked_posts");
    const [emptied] = await rows<{ n: number }>(pool, "SELECT count(*)::int AS n FROM clicked_lexemes");
    assert.equal(emptied!.n, 0, "TRUNCATE of clicked_posts empties the set");
    await pool.query(fillClickedPostsWithLanguages);
    await pool.query("COMMIT");
    await assertSet("after clicked_posts was refilled");
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      await putBack(client, { constraints: [], indexes: [], foreignKeys: [], triggers: [] });
      await client.query("COMMIT");
    } finally {
      client.release();
    }
    await assertSet("after the bulk load's put-back");
    const [built] = await rows<{ n: number }>(
      pool,
      `SELECT count(*)::int AS n FROM pg_indexes WHERE indexname = 'clicked_lexemes_search'`,
    );
    assert.equal(built!.n, 1, "the put-back built the set's index again");
    const [on] = await rows<{ enabled: string }>(
      pool,
      "SELECT tgenabled AS enabled FROM pg_trigger WHERE tgname = 'clicked_lexemes_insert'",
    );
    assert.equal(on!.enabled, "O", "the put-back turned the insert trigger back on");
    await store.recordClick(
      (await rows<{ id: number }>(pool, "SELECT id FROM posts WHERE clicks = 0 ORDER BY id LIMIT 1"))[0]!.id,
      "client-c",
      T0,
      0,
    );
    await assertSet("after a first click past the put-back");
    await createClickedLexemes(pool);
    await assertSet("after migration 67 ran again");
  });
});
