/**
 * The index of posts by feed and word (postgres-feed-words.ts) must answer a `feed:` search
 * exactly as sorting every match would: on 60,000 posts stored out of date order, in two big
 * feeds, 20 middling ones and 250 small "Tagebuch" feeds of very different sizes (one `feed:`
 * matching 250 feeds), with common words (`the` in 60 % of posts, in the title in one in seven),
 * prefixes, phrases, exclusions, `title:`, `lang:`, `after:`/`before:` and a word longer than
 * the index keeps, each case is compared in every order and at deep pages with a brute-force
 * reference, and the statements are checked to have taken the feeds' words where the statistics
 * say they hold fewer posts than the word's candidates, and the operators' index where not.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type pg from "pg";
import { resolveSearchFilters } from "../../operations/search-filters.js";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { foldLanguageClauses } from "../../search/search-query.js";
import { type OperatorCase, operatorSearchReference } from "../../test-support/postgres-search-reference.js";
import { recordingSql } from "../../test-support/recorded-statements.js";
import { openTestPostgresStore, type TestPostgresStore } from "../../test-support/test-postgres-server.js";
import type { SearchSort } from "../store.js";
import type { Sql } from "./postgres-connection.js";
import { FEED_WORD_CHARS, FEED_WORDS_EXPRESSION, feedWordQuery } from "./postgres-feed-words.js";
import { OPERATOR_EXPRESSION } from "./postgres-operator-plan.js";
import { searchWithOperators } from "./postgres-search-operators.js";
import type { PostgresStore } from "./postgres-store.js";

const POSTS = 60_000;
const DAYS = 600;
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 10);
const iso = (daysAgo: number) => new Date(T0 - daysAgo * DAY).toISOString().slice(0, 10);
/** A word longer than the index keeps, and one of its prefixes. */
const LONG = `longw${"x".repeat(FEED_WORD_CHARS + 20)}`;

let db: TestPostgresStore;
let store: PostgresStore;
let pool: pg.Pool;

before(async () => {
  db = await openTestPostgresStore("feed_words");
  ({ store, pool } = db);
  const de = (await store.ensureLanguage("de")).languageId;
  // Feeds 0-1 "Big n", 2-21 "Mid n", 22-271 "Tagebuch n".
  const feeds: number[] = [];
  for (let i = 0; i < 272; i++) {
    const name = i < 2 ? `Big ${i}` : i < 22 ? `Mid ${i}` : `Tagebuch ${i}`;
    feeds.push((await store.addFeed({ feedUrl: `https://w.test/${i}`, feedName: name })).feedId);
  }
  // Post i: half in the big feeds, 30 % in the middling ones, 20 % in the small ones, skewed (the
  // first small feeds hold hundreds of posts, the last a few); German when i % 5 = 1; its day
  // scrambled over 600 days; "the" in 60 % (in the title in one in seven), "new" in 30 %, "work"
  // or "world" in two thirds, w0..w96 spread, r0..r1499 rare, and the long word in one in 1,000.
  await pool.query(
    `INSERT INTO posts (feed_id, guid, link, title, excerpt, content, seen_at, post_date, language_id, clicks, search_vector)
      SELECT ($1::int[])[CASE WHEN i % 100 < 50 THEN i % 2 + 1 WHEN i % 100 < 80 THEN i % 20 + 3
          ELSE 23 + floor(250 * power(((i * 7919) % 1000) / 1000.0, 2))::int END],
        'g' || i, 'https://y.test/' || i, 'Post ' || i, '', '', 0,
        $3::bigint - ((i * 7919) % ${DAYS})::bigint * ${DAY} + (i % 86)::bigint * 1000000,
        CASE i % 5 WHEN 1 THEN $2::int ELSE 1 END,
        CASE WHEN i % 10 = 0 THEN (i * 7919) % 50 ELSE 0 END,
        ((CASE WHEN i % 10 < 6 THEN (CASE WHEN i % 7 = 0 THEN 'the:1A ' ELSE 'the:1 ' END) ELSE '' END)
          || (CASE WHEN i % 10 > 6 OR i % 13 = 0 THEN 'new:2 ' ELSE '' END)
          || (CASE i % 3 WHEN 0 THEN 'work:3 ' WHEN 1 THEN 'world:3 ' ELSE '' END)
          || (CASE WHEN i % 1000 = 7 THEN '${LONG}:8 ' ELSE '' END)
          || 'w' || (i % 97) || ':4 r' || (i % 1500) || ':5')::tsvector
      FROM generate_series(1, ${POSTS}) i`,
    [feeds, de, T0],
  );
  await pool.query("UPDATE feeds f SET post_count = (SELECT count(*) FROM posts p WHERE p.feed_id = f.id)");
  await pool.query("ANALYZE");
});
after(() => db?.close());

/** Every statement a search ran. */
const recording = () => recordingSql(pool);

type Case = OperatorCase;

/** The page as sorting every match gives it (relevance: the 10,000 newest matches ranked). */
function reference(
  c: Case,
  sort: SearchSort,
  page: { offset: number; limit: number },
): Promise<Array<{ id: number; score?: number }>> {
  return operatorSearchReference(pool, c, sort, page);
}

/** Searches `c`, checks the page (and relevance's scores) against the reference, returns what ran. */
async function assertExact(
  c: Case,
  sort: SearchSort,
  page: { offset: number; limit: number },
): Promise<string[]> {
  const { sql, ran } = recording();
  const folded = foldLanguageClauses(await resolveSearchFilters(store, parseSearchQuery(c.terms)), null);
  const got = await searchWithOperators(sql, { ...page, ...folded, sort });
  const want = await reference(c, sort, page);
  const label = `${c.terms} by ${sort} at ${page.offset}+${page.limit}`;
  assert.deepEqual(
    got.map((r) => r.postId),
    want.map((r) => r.id),
    label,
  );
  if (sort === "relevance" && want[0]?.score !== undefined) {
    assert.deepEqual(
      got.map((r) => r.score),
      want.map((r) => r.score),
      `scores of ${label}`,
    );
  }
  return ran;
}

const tagebuch = "f.name LIKE 'Tagebuch %'";
const german = "p.language_id = (SELECT id FROM languages WHERE code = 'de')";
const since = (daysAgo: number) => `p.post_date >= ${T0 - daysAgo * DAY}`;
const until = (daysAgo: number) => `p.post_date < ${T0 - (daysAgo - 1) * DAY}`;

const CASES: Case[] = [
  { terms: "feed:tagebuch the", where: tagebuch },
  { terms: "feed:tagebuch the new", where: tagebuch },
  { terms: "feed:tagebuch wor*", where: tagebuch },
  { terms: "feed:tagebuch title:the", where: tagebuch },
  { terms: "feed:tagebuch the -new", where: tagebuch },
  { terms: "feed:tagebuch the -title:the", where: tagebuch },
  { terms: "feed:tagebuch new OR title:the", where: tagebuch },
  { terms: `the* title:the feed:tagebuch after:${iso(500)} the`, where: `${tagebuch} AND ${since(500)}` },
  { terms: `feed:tagebuch wor* "the work"`, where: tagebuch },
  { terms: `feed:tagebuch lang:de the`, where: `${tagebuch} AND ${german}` },
  { terms: `feed:tagebuch before:${iso(200)} the`, where: `${tagebuch} AND ${until(200)}` },
  { terms: "feed:tagebuch -feed:mid the", where: tagebuch },
  { terms: "feed:tagebuch longw*", where: tagebuch },
  { terms: `feed:tagebuch ${LONG}`, where: tagebuch },
  { terms: "feed:tagebuch r77", where: tagebuch },
  { terms: "feed:big the", where: "f.name LIKE 'Big %'" },
  { terms: "feed:mid the new", where: "f.name LIKE 'Mid %'" },
  { terms: "feed:big r77", where: "f.name LIKE 'Big %'" },
];

const PAGES: Record<SearchSort, Array<{ offset: number; limit: number }>> = {
  relevance: [
    { offset: 0, limit: 20 },
    { offset: 0, limit: 1000 },
    { offset: 9990, limit: 20 },
  ],
  date: [
    { offset: 0, limit: 20 },
    { offset: 5000, limit: 20 },
    { offset: 0, limit: 1000 },
  ],
  clicks: [
    { offset: 0, limit: 20 },
    { offset: 0, limit: 1000 },
    { offset: 5990, limit: 20 },
  ],
};

const byFeedWords = (ran: string[]) => ran.some((t) => t.includes(`${FEED_WORDS_EXPRESSION} @@ ANY(`));
const byOperators = (ran: string[]) =>
  ran.some((t) => t.includes(`${OPERATOR_EXPRESSION} @@ $`) && !t.startsWith("EXPLAIN"));

describe("postgres posts by feed and word", () => {
  for (const sort of ["relevance", "date", "clicks"] as const) {
    it(`answers every ${sort} page of a feed: of many feeds exactly as sorting every match would`, async () => {
      for (const c of CASES) {
        for (const page of PAGES[sort]) await assertExact(c, sort, page);
      }
    });
  }

  it("reads the feeds' words where they hold fewer posts than the word's candidates, the word's where not", async () => {
    // 250 small feeds (12,000 posts) and `the` (60 % of all): the feeds' words, in every order
    // that reads many matches.
    for (const [sort, page] of [
      ["relevance", { offset: 0, limit: 20 }],
      ["date", { offset: 5000, limit: 20 }],
      ["clicks", { offset: 0, limit: 1000 }],
    ] as const) {
      for (const c of [CASES[0]!, CASES[1]!, CASES[2]!]) {
        const ran = await assertExact(c, sort, page);
        // By clicks, the walk of the clicked posts that checks the feeds on each clicked_posts row
        // (migration 34, postgres-operator-clicks.ts) reads fewer than either index's matches.
        const walked = sort === "clicks" && ran.some((t) => t.includes("k.feed_id = ANY"));
        assert.ok(byFeedWords(ran) || walked, `${c.terms} by ${sort}`);
      }
    }
    // The newest 20 by date: a tier of a few days holds them, fewer candidates than the feeds' matches.
    const newest = await assertExact(CASES[0]!, "date", { offset: 0, limit: 20 });
    assert.ok(byOperators(newest) && !byFeedWords(newest));
    // A rare word: its few candidates, fewer than the big feeds' matches of it plus their scans.
    const rare = await assertExact(CASES[17]!, "relevance", { offset: 0, limit: 20 });
    assert.ok(byOperators(rare) && !byFeedWords(rare), "feed:big r77");
    // A word longer than the index keeps: the operators' index.
    const long = await assertExact(CASES[13]!, "relevance", { offset: 0, limit: 20 });
    assert.ok(!byFeedWords(long), "the long word");
  });

  it("checks a clicks walk's posts through their feeds' keys, exactly as probing each", async () => {
    // The walk of the feeds' clicked posts (postgres-operator-clicks.ts, checkedByFeed): the posts
    // of the feeds whose keys cost less than their probes are checked through the index.
    let keyed = 0;
    for (const c of CASES) {
      for (const page of PAGES.clicks) {
        const ran = await assertExact(c, "clicks", page);
        if (ran.some((t) => t.includes("p.id = ANY(") && t.includes(FEED_WORDS_EXPRESSION))) keyed++;
      }
    }
    assert.ok(keyed > 0, "a walk checked through the feeds' keys");
  });

  it("scans the feeds' words through their index, never computing them row by row", async () => {
    // The feeds' queries reach the planner as a run-time array (FEED_QUERIES in
    // postgres-operator-plan.ts), estimated at its default share: the plan must still read them
    // from the index (the function costs a post's vector out of TOAST, unnested, on each row).
    const statements: Array<{ text: string; values: unknown[] }> = [];
    const sql: Sql = {
      query: ((config: string | { text: string; values?: unknown[] }, values?: unknown[]) => {
        const text = typeof config === "string" ? config : config.text;
        const args = values ?? (typeof config === "string" ? [] : (config.values ?? []));
        if (text.includes(FEED_WORDS_EXPRESSION)) statements.push({ text, values: args });
        return pool.query(config as string, values);
      }) as Sql["query"],
    };
    for (const [terms, sort, page] of [
      ["feed:tagebuch the", "relevance", { offset: 0, limit: 20 }],
      ["feed:tagebuch the new", "date", { offset: 5000, limit: 20 }],
      ["feed:tagebuch wor*", "clicks", { offset: 0, limit: 1000 }],
    ] as const) {
      const folded = foldLanguageClauses(await resolveSearchFilters(store, parseSearchQuery(terms)), null);
      await searchWithOperators(sql, { ...page, ...folded, sort });
    }
    assert.ok(statements.length > 0, "a statement through the feeds' words");
    for (const { text, values } of statements) {
      const { rows } = await pool.query(`EXPLAIN (FORMAT JSON) ${text}`, values);
      const plan = JSON.stringify(rows[0]["QUERY PLAN"]);
      assert.ok(plan.includes('"Index Name":"posts_feed_words"'), text);
      assert.ok(!/"Filter":"[^"]*feed_words\(/.test(plan), `feed_words() on the rows: ${plan}`);
    }
  });

  it("asks each feed's keys for the words, without weights, prefixes as prefixes", () => {
    assert.equal(feedWordQuery("'the' & ' ttl new'", 12), "'12 the' & '12 new'");
    assert.equal(feedWordQuery("' pfx pro' & 'prog':* & !'x'", 7), "'7 pro':* & '7 prog':* & !'7 x'");
    assert.equal(feedWordQuery("('it''s' | 'a')", 3), "('3 it''s' | '3 a')");
    assert.equal(feedWordQuery(`'${LONG}'`, 3), null);
    assert.equal(
      feedWordQuery(`'${LONG.slice(0, FEED_WORD_CHARS - 1)}':*`, 3),
      `'3 ${LONG.slice(0, FEED_WORD_CHARS - 1)}':*`,
    );
  });
});
