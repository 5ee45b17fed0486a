/**
 * A counted word within filters that leave few of its matches (postgres-few-matches.ts): every
 * page (relevance, date and clicks; offsets 0, 1, inside, the last post, past the end; limits 20
 * and 1000) held to a full sort of every match (brute force) for a feed set and a language that
 * leave few (`feed:diario lang:de amber`: the word is common in the feeds' English posts, rare in
 * their German ones), feeds that hold the word rarely (`feed:tagebuch amber`), a language alone
 * (`lang:de amber`), a language its feeds never write the word in, the feeds' word without a
 * language (`feed:diario amber`, more matches, still few), and a prefix (`feed:tagebuch amb*`,
 * which the counts do not answer); that the counts answer those they should, and do not when they
 * disagree with the posts (a write between the two statements).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type pg from "pg";
import { resolveSearchFilters } from "../../operations/search-filters.js";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { foldLanguageClauses } from "../../search/search-query.js";
import { recordingSql } from "../../test-support/recorded-statements.js";
import { openTestPostgresStore, type TestPostgresStore } from "../../test-support/test-postgres-server.js";
import type { SearchSort } from "../store.js";
import type { Sql } from "./postgres-connection.js";
import { syncFeedBlocks } from "./postgres-counted-feed-clicks.js";
import { syncFeedMonths } from "./postgres-counted-feeds.js";
import { syncCountedWords } from "./postgres-counted-words.js";
import { FEW_MATCHES, fewMatchesPage } from "./postgres-few-matches.js";
import { planOf } from "./postgres-operator-plan.js";
import { searchWithOperators, withWritingFeeds } from "./postgres-search-operators.js";
import type { PostgresStore } from "./postgres-store.js";
import { SEARCH_SCORE } from "./postgres-text-search.js";

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 10);
const DAYS = 500;
const CHOICE = { matches: 150, most: 2 };

let db: TestPostgresStore;
let store: PostgresStore;
let pool: pg.Pool;
let german: number;
let french: number;

before(async () => {
  db = await openTestPostgresStore("few_matches");
  ({ store, pool } = db);
  german = (await store.ensureLanguage("de")).languageId;
  french = (await store.ensureLanguage("fr")).languageId;
  // Feeds 0-5 "Diario n", 6-13 "Tagebuch n", 14-19 "Other n".
  const feeds: number[] = [];
  for (let i = 0; i < 20; i++) {
    const name = i < 6 ? `Diario ${i}` : i < 14 ? `Tagebuch ${i}` : `Other ${i}`;
    feeds.push((await store.addFeed({ feedUrl: `https://f.test/${i}`, feedName: name })).feedId);
  }
  // 8,000 posts out of date order: `amber` in most English posts of every feed, in one German
  // post of 60 of the Diario feeds and none of the others', and in one post of 100 of the Tagebuch
  // feeds; `amber` in 20 French posts of the Other feeds (on few days: the days' facets; the
  // German ones fall on more days than one query holds facets of); clicks of a few counts with
  // ties; several posts a day (ties of date broken by id).
  await pool.query(
    `INSERT INTO posts (feed_id, guid, link, title, excerpt, content, seen_at, post_date, language_id, clicks, search_vector)
      SELECT ($1::int[])[i % 20 + 1], 'p' || i, 'https://f.test/p' || i, 'Post ' || i, '', '', 0,
        $2::bigint - ((i * 7919) % ${DAYS})::bigint * ${DAY} + (i % 3)::bigint * 1000000,
        CASE WHEN i % 400 = 17 THEN $4::int WHEN i % 20 < 6 AND i % 7 < 3 THEN $3::int WHEN i % 20 >= 14 AND i % 5 = 0 THEN $3::int ELSE 1 END,
        CASE WHEN i % 11 = 0 THEN (i * 13) % 5 ELSE 0 END,
        ((CASE
            WHEN i % 20 BETWEEN 6 AND 13 THEN (CASE WHEN i % 100 = 7 THEN 'amber:1' || (CASE WHEN i % 3 = 0 THEN 'A' ELSE '' END) || ' ' ELSE '' END)
            WHEN i % 20 < 6 AND i % 7 < 3 THEN (CASE WHEN i % 60 < 3 THEN 'amber:2 ' ELSE '' END)
            WHEN i % 20 >= 14 AND i % 5 = 0 THEN ''
            ELSE (CASE WHEN i % 10 < 9 THEN 'amber:' || (1 + i % 4) || ' ' ELSE '' END) END)
          || 'w' || (i % 37) || ':5 birch:6')::tsvector
      FROM generate_series(1, 8000) i`,
    [feeds, T0, german, french],
  );
  await pool.query("UPDATE feeds f SET post_count = (SELECT count(*) FROM posts p WHERE p.feed_id = f.id)");
  await pool.query("ANALYZE");
  assert.equal(await syncCountedWords(pool, CHOICE), 2);
  await syncFeedMonths(pool);
});
after(() => db?.close());

async function queryOf(terms: string) {
  return foldLanguageClauses(await resolveSearchFilters(store, parseSearchQuery(terms)), null);
}

/** Every match in `sort` order (brute force): `amber` (or a word beginning `amb`) in the feeds and language. */
async function sorted(
  like: string | null,
  language: number | null,
  sort: SearchSort,
  prefix = false,
): Promise<number[]> {
  const order = {
    relevance: "score DESC, p.id DESC",
    date: "p.post_date DESC, p.id DESC",
    clicks: "p.clicks DESC, p.id DESC",
  }[sort];
  const { rows } = await pool.query<{ id: number }>(
    `SELECT p.id, ${SEARCH_SCORE} AS score FROM posts p JOIN feeds f ON f.id = p.feed_id
      WHERE EXISTS (SELECT 1 FROM unnest(tsvector_to_array(p.search_vector)) w WHERE w = 'amber' OR ($4 AND w LIKE 'amb%'))
        AND ($2::text IS NULL OR f.name LIKE $2) AND ($3::int IS NULL OR p.language_id = $3)
      ORDER BY ${order}`,
    [prefix ? "amb:*" : "amber", like, language, prefix],
  );
  return rows.map((r) => r.id);
}

/** The few-matches path's page (null: it does not answer). */
async function fewPage(
  terms: string,
  sort: SearchSort,
  page: { offset: number; limit: number },
  sql: Sql = pool,
) {
  const query = await queryOf(terms);
  const plan = await withWritingFeeds(pool, planOf(query.query, query.languageIds));
  return fewMatchesPage(sql, { ...page, ...query, sort }, plan);
}

const CASES: Array<{
  terms: string;
  like: string | null;
  language?: "de" | "fr";
  answers: boolean;
  prefix?: boolean;
  /** Matches at least (more than a page unless said). */
  least?: number;
}> = [
  { terms: "feed:diario lang:de amber", like: "Diario %", language: "de", answers: true },
  { terms: "feed:tagebuch amber", like: "Tagebuch %", answers: true },
  { terms: "lang:de amber", like: null, language: "de", answers: true },
  { terms: "feed:other lang:de amber", like: "Other %", language: "de", answers: true, least: 0 },
  { terms: "feed:tagebuch amb*", like: "Tagebuch %", answers: false, prefix: true },
  { terms: "feed:diario amber", like: "Diario %", answers: true },
  { terms: "lang:fr amber", like: null, language: "fr", answers: true, least: 20 },
  { terms: "feed:other lang:fr amber", like: "Other %", language: "fr", answers: true, least: 20 },
];

describe("postgres counted words within filters that leave few matches", () => {
  it("pages every order of the few matches as a full sort does", async () => {
    for (const c of CASES) {
      for (const sort of ["relevance", "date", "clicks"] as const) {
        const language = c.language === "de" ? german : c.language === "fr" ? french : null;
        const ids = await sorted(c.like, language, sort, c.prefix);
        if (c.answers) assert.ok(ids.length <= FEW_MATCHES, `${c.terms}: ${ids.length} matches`);
        assert.ok(ids.length >= (c.least ?? 21), `${c.terms}: ${ids.length} matches`);
        const mid = Math.floor(ids.length / 2);
        for (const [offset, limit] of [
          [0, 20],
          [1, 20],
          [mid, 20],
          [0, 1000],
          [ids.length - 1, 20],
          [ids.length, 20],
          [ids.length + 30, 20],
        ] as const) {
          if (offset < 0) continue;
          const at = `'${c.terms}' ${sort} at ${offset}+${limit} of ${ids.length}`;
          const expected = ids.slice(offset, offset + limit);
          const few = await fewPage(c.terms, sort, { offset, limit });
          if (c.answers) assert.deepEqual(few, expected, `${at}: few`);
          else if (c.prefix) assert.equal(few, null, `${at}: few`);
          const query = await queryOf(c.terms);
          const found = await searchWithOperators(pool, { ...query, sort, offset, limit });
          assert.deepEqual(
            found.map((p) => p.postId),
            expected,
            `${at}: search`,
          );
        }
      }
    }
  });

  it("answers nothing from counts that disagree with the posts", async () => {
    const ids = await sorted("Diario %", german, "date");
    await pool.query(
      `UPDATE search_days SET posts = posts + 1 WHERE language_id = $1
        AND search_id = (SELECT id FROM counted_searches WHERE lexeme = 'amber')
        AND day = (SELECT post_day(post_date) FROM posts WHERE id = $2)`,
      [german, ids[0]],
    );
    assert.equal(await fewPage("feed:diario lang:de amber", "date", { offset: 0, limit: 20 }), null);
    const found = await searchWithOperators(pool, {
      ...(await queryOf("feed:diario lang:de amber")),
      sort: "date",
      offset: 0,
      limit: 20,
    });
    assert.deepEqual(
      found.map((p) => p.postId),
      ids.slice(0, 20),
    );
  });

  it("sums the feeds' matches from their blocks (months where those are not counted), and falls through only past FEW_MATCHES", async () => {
    // Feeds "Bulk n" whose posts hold `amber` FEW_MATCHES times, over ids of several blocks and
    // many months; then one more.
    const bulk: number[] = [];
    for (let i = 0; i < 3; i++)
      bulk.push((await store.addFeed({ feedUrl: `https://f.test/bulk${i}`, feedName: `Bulk ${i}` })).feedId);
    const insert = (from: number, to: number) =>
      pool.query(
        `INSERT INTO posts (id, feed_id, guid, link, title, excerpt, content, seen_at, post_date, language_id, clicks, search_vector)
          SELECT 40000 + i * 29, ($1::int[])[i % 3 + 1], 'b' || i, 'https://f.test/b' || i, 'Post ' || i, '', '', 0,
            $2::bigint - ((i * 7919) % ${DAYS})::bigint * ${DAY}, 1, i % 4,
            ((CASE WHEN i % 8 = 0 THEN '' ELSE 'amber:1 ' END) || 'w' || (i % 37) || ':5')::tsvector
          FROM generate_series($3::int, $4::int) i`,
        [bulk, T0, from, to],
      );
    // Posts 1..2285 hold amber 2000 times (every one but each 8th).
    await insert(1, 2285);
    const ids = await sorted("Bulk %", null, "date");
    assert.equal(ids.length, FEW_MATCHES);
    const page = { offset: 1990, limit: 20 };
    const read = async () => {
      const { sql, ran } = recordingSql(pool);
      const few = await fewPage("feed:bulk amber", "date", page, sql);
      const from = (table: string) => ran.some((text) => text.includes(`JOIN ${table} m`));
      return { few, blocks: from("counted_feed_blocks"), months: from("counted_feed_months") };
    };
    const searched = async () =>
      (await searchWithOperators(pool, { ...(await queryOf("feed:bulk amber")), sort: "date", ...page })).map(
        (p) => p.postId,
      );
    // At FEW_MATCHES: answered from the blocks alone.
    assert.deepEqual(await read(), { few: ids.slice(1990), blocks: true, months: false });
    // One more: more than FEW_MATCHES (the brute force says so), found from the blocks alone, and
    // the page left to the other plans, exact.
    await insert(2289, 2289);
    const more = await sorted("Bulk %", null, "date");
    assert.equal(more.length, FEW_MATCHES + 1);
    assert.deepEqual(await read(), { few: null, blocks: true, months: false });
    assert.deepEqual(await searched(), more.slice(1990, 2010));
    // The blocks not counted (a build without them counted the word): the months decide, the same way.
    await pool.query("DELETE FROM counted_feed_block_searches");
    assert.deepEqual(await read(), { few: null, blocks: true, months: true });
    await pool.query("DELETE FROM posts WHERE id = 40000 + 2289 * 29");
    assert.deepEqual(await read(), { few: ids.slice(1990), blocks: true, months: true });
    // Counted again: the blocks decide again.
    assert.equal(await syncFeedBlocks(pool), 2);
    assert.deepEqual(await read(), { few: ids.slice(1990), blocks: true, months: false });
    assert.deepEqual(await searched(), ids.slice(1990));
  });
});
