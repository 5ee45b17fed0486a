/**
 * The index of posts by feed and title word (postgres-feed-titles.ts, migration 37) must answer a
 * `feed:` search with `title:` words exactly as sorting every match would: the corpus of
 * postgres-feed-words.test.ts (60,000 posts stored out of date order, 2 big feeds, 20 middling
 * ones, 250 small "Tagebuch" feeds; `the` in 60 % of posts, in the title in one in seven), with
 * `new` and the long word in some titles too; `title:` words alone, with words they imply
 * (`the* title:the ... the`) and words they do not (`title:new the`, `wor* title:the`), beside
 * exclusions, OR, phrases, prefixes of the title, languages and days. Every case in every order
 * at deep pages against a brute-force reference, and the statements checked to have read the
 * feeds' title lists where the feeds' words drive, and only the title lists when every other word
 * is implied.
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
import { FEED_TITLES_EXPRESSION, feedTitleQuery } from "./postgres-feed-titles.js";
import { FEED_WORD_CHARS, FEED_WORDS_EXPRESSION } from "./postgres-feed-words.js";
import { searchWithOperators } from "./postgres-search-operators.js";
import type { PostgresStore } from "./postgres-store.js";

const POSTS = 60_000;
const DAYS = 600;
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 10);
const iso = (daysAgo: number) => new Date(T0 - daysAgo * DAY).toISOString().slice(0, 10);
/** A word longer than the index keeps (in a title). */
const LONG = `longw${"x".repeat(FEED_WORD_CHARS + 20)}`;

let db: TestPostgresStore;
let store: PostgresStore;
let pool: pg.Pool;

before(async () => {
  db = await openTestPostgresStore("feed_titles");
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
          || (CASE WHEN i % 10 > 6 OR i % 13 = 0 THEN (CASE WHEN i % 3 = 0 THEN 'new:2A ' ELSE 'new:2 ' END) ELSE '' END)
          || (CASE i % 3 WHEN 0 THEN 'work:3 ' WHEN 1 THEN 'world:3 ' ELSE '' END)
          || (CASE WHEN i % 1000 = 7 THEN '${LONG}:8A ' ELSE '' END)
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

const mid = "f.name LIKE 'Mid %'";

const CASES: Case[] = [
  { terms: `the* title:the feed:tagebuch after:${iso(500)} the`, where: `${tagebuch} AND ${since(500)}` },
  { terms: "feed:tagebuch title:the", where: tagebuch },
  { terms: "feed:tagebuch title:the the", where: tagebuch },
  { terms: "feed:tagebuch title:new the", where: tagebuch },
  { terms: "wor* title:the feed:tagebuch the", where: tagebuch },
  { terms: "feed:tagebuch title:the title:new", where: tagebuch },
  { terms: "feed:tagebuch title:the -new", where: tagebuch },
  { terms: "feed:tagebuch title:the -title:new", where: tagebuch },
  { terms: "feed:tagebuch title:the OR new", where: tagebuch },
  { terms: "feed:tagebuch title:ne* the", where: tagebuch },
  { terms: `feed:tagebuch title:"the new"`, where: tagebuch },
  { terms: `feed:tagebuch lang:de title:the`, where: `${tagebuch} AND ${german}` },
  { terms: `feed:tagebuch before:${iso(200)} title:the new`, where: `${tagebuch} AND ${until(200)}` },
  { terms: "feed:tagebuch -feed:mid title:the", where: tagebuch },
  { terms: `feed:tagebuch title:${LONG}`, where: tagebuch },
  { terms: "feed:big title:the", where: "f.name LIKE 'Big %'" },
  { terms: "feed:mid title:the new", where: mid },
  { terms: `the* title:the feed:mid after:${iso(500)} the`, where: `${mid} AND ${since(500)}` },
  { terms: "feed:mid title:the", where: mid },
  { terms: "feed:mid title:the the", where: mid },
  { terms: "feed:mid title:new the", where: mid },
  { terms: "wor* title:the feed:mid the", where: mid },
  { terms: "feed:mid title:the -new", where: mid },
  { terms: "feed:mid title:the OR new", where: mid },
  { terms: "feed:mid title:ne* the", where: mid },
  { terms: `feed:mid title:"the new"`, where: mid },
  { terms: `feed:mid title:${LONG}`, where: mid },
];

const PAGES: Record<SearchSort, Array<{ offset: number; limit: number }>> = {
  relevance: [
    { offset: 0, limit: 20 },
    { offset: 0, limit: 1000 },
    { offset: 9990, limit: 20 },
  ],
  date: [
    { offset: 0, limit: 20 },
    { offset: 1500, limit: 20 },
    { offset: 0, limit: 1000 },
  ],
  clicks: [
    { offset: 0, limit: 20 },
    { offset: 0, limit: 1000 },
    { offset: 1490, limit: 20 },
  ],
};

const byTitles = (ran: string[]) => ran.some((t) => t.includes(`${FEED_TITLES_EXPRESSION} @@ ANY(`));
const checksWords = (ran: string[]) =>
  ran.some(
    (t) => t.includes(`${FEED_TITLES_EXPRESSION} @@ ANY(`) && /p\.search_vector @@ \$\d+::tsquery/.test(t),
  );
const byFeedWords = (ran: string[]) => ran.some((t) => t.includes(`${FEED_WORDS_EXPRESSION} @@ ANY(`));

describe("postgres posts by feed and title word", () => {
  for (const sort of ["relevance", "date", "clicks"] as const) {
    it(`answers every ${sort} page of a feed: with title: words exactly as sorting every match would`, async () => {
      for (const c of CASES) {
        for (const page of PAGES[sort]) await assertExact(c, sort, page);
      }
    });
  }

  it("reads the feeds' title lists where the feeds' words drive, and their words only for words no title word implies", async () => {
    for (const [sort, page] of [
      ["relevance", { offset: 0, limit: 20 }],
      ["date", { offset: 0, limit: 1000 }],
      ["clicks", { offset: 0, limit: 1000 }],
    ] as const) {
      // 20 middling feeds (30 % of the posts): the feeds' words drive. Every other word implied
      // by `title:the`: the title lists alone.
      for (const c of [CASES[17]!, CASES[18]!, CASES[19]!]) {
        const ran = await assertExact(c, sort, page);
        assert.ok(byTitles(ran) && !byFeedWords(ran) && !checksWords(ran), `${c.terms} by ${sort}`);
      }
      // `the` and `wor*` are not in every title with `new` or `the`: checked on the row.
      for (const c of [CASES[20]!, CASES[21]!]) {
        const ran = await assertExact(c, sort, page);
        assert.ok(byTitles(ran) && !byFeedWords(ran) && checksWords(ran), `${c.terms} by ${sort}`);
      }
    }
    // The 10,000 newest of `title:the` in 20 feeds since a day: their title lists of every day
    // cost less than the feeds' posts since that day as a bitmap (withFeedTitles): one statement,
    // no tier, the days checked on the row.
    const ranked = (await assertExact(CASES[17]!, "relevance", { offset: 0, limit: 20 })).filter((t) =>
      t.includes(`${FEED_TITLES_EXPRESSION} @@ ANY(`),
    );
    assert.equal(ranked.length, 1);
    assert.ok(!/p\.post_date >= \$/.test(ranked[0]!) && /p\.post_date \+ 0 >= \$/.test(ranked[0]!));
    // An exclusion, an OR, a title prefix, a phrase and a word longer than the index keeps: not
    // through the title lists.
    for (const c of [CASES[22]!, CASES[23]!, CASES[24]!, CASES[25]!, CASES[26]!]) {
      const ran = await assertExact(c, "relevance", { offset: 0, limit: 20 });
      assert.ok(!byTitles(ran), c.terms);
    }
  });

  it("asks each feed's title keys for the title words, and says whether words they do not imply are left", () => {
    assert.deepEqual(feedTitleQuery("' pfx the' & ' ttl the' & 'the'", 12), {
      titles: "'12 the'",
      rest: false,
    });
    assert.deepEqual(feedTitleQuery("' ttl the' & 'the':* & 'th':*", 3), { titles: "'3 the'", rest: false });
    assert.deepEqual(feedTitleQuery("(' pfx pro' & 'prog':*) & ' ttl new' & 'la'", 7), {
      titles: "'7 new'",
      rest: true,
    });
    assert.deepEqual(feedTitleQuery("' ttl it''s' & 'it''s' & ' ttl a' & ' ttl a'", 5), {
      titles: "'5 it''s' & '5 a'",
      rest: false,
    });
    assert.deepEqual(feedTitleQuery("' ttl the' & ' pfx new'", 5), { titles: "'5 the'", rest: true });
    assert.deepEqual(feedTitleQuery("' ttl the' & 'they'", 5), { titles: "'5 the'", rest: true });
    // An OR stays one conjunct; a NOT, no title word or a word too long: null.
    assert.deepEqual(feedTitleQuery("' ttl the' & (' ttl new' | 'x')", 2), { titles: "'2 the'", rest: true });
    assert.equal(feedTitleQuery("(' ttl the' | 'new')", 2), null);
    assert.equal(feedTitleQuery("' ttl the' & !'new'", 2), null);
    assert.equal(feedTitleQuery("'the' & 'new'", 2), null);
    assert.equal(feedTitleQuery(`' ttl ${LONG}'`, 2), null);
    // A quote inside a lexeme is not the end of it, an `&` or `!` inside one not an operator.
    assert.deepEqual(feedTitleQuery("' ttl a''&b' & 'x!y'", 4), { titles: "'4 a''&b'", rest: true });
  });
});
