/**
 * A relevance page of one word read from its titled matches alone (postgres-ranked-titles.ts)
 * must be the page ranking every match gives: on 8,000 posts stored out of date order, words in
 * titles (weight A), in a feed's name (weight B, every post of that feed) and in bodies, with
 * fewer and more titled matches than a page, and more matches than are ranked; each page compared
 * with the brute-force reference, and the statements checked to have taken the titled path
 * exactly where it can answer. A feed renamed to hold a word brings its posts in.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type pg from "pg";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { searchReference } from "../../test-support/postgres-search-reference.js";
import { recordingSql } from "../../test-support/recorded-statements.js";
import { openTestPostgresStore, type TestPostgresStore } from "../../test-support/test-postgres-server.js";
import { FeedNames } from "./postgres-feed-names.js";
import { matchesAtMost, singleWord } from "./postgres-ranked-titles.js";
import { searchMatch, searchPosts } from "./postgres-search-queries.js";
import type { PostgresStore } from "./postgres-store.js";

const POSTS = 8_000;
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 10);

let db: TestPostgresStore;
let store: PostgresStore;
let pool: pg.Pool;
const feeds: number[] = [];

before(async () => {
  db = await openTestPostgresStore("ranked_titles");
  ({ store, pool } = db);
  for (const name of ["Alpha News", "Misc", "Other"]) {
    feeds.push((await store.addFeed({ feedUrl: `https://t.test/${feeds.length}`, feedName: name })).feedId);
  }
  // The planner's choice for delta (a bitmap or the table, which decides the pages the titled path
  // answers) follows the table's statistics and visibility map: no autovacuum may change them
  // between one page and the next, so the table is vacuumed and analysed once, here.
  await pool.query("ALTER TABLE posts SET (autovacuum_enabled = false)");
  // Post i: one in ten in "Alpha News" (its name's words at weight B), the rest in "Misc"; its
  // day scrambled over 400 days; "alpha" in one body in seven; "beta" in the title of one in 11
  // and the body of one in 4; "gamma" in 4 titles and one body in 9; "delta" in the title of one
  // in 3 and in 7 bodies of 8; "many" in every body and one title in 50; "post" in every title.
  await pool.query(
    `INSERT INTO posts (feed_id, guid, link, title, excerpt, content, seen_at, post_date, language_id, search_vector)
      SELECT CASE WHEN i % 10 = 0 THEN $1::int ELSE $2::int END, 'g' || i, 'https://t.test/p' || i, 'Post ' || i, '', '', 0,
        $3::bigint - ((i * 7919) % 400)::bigint * ${DAY} + (i % 97)::bigint * 1000000, 1,
        ((CASE WHEN i % 10 = 0 THEN 'alpha:1B news:2B ' ELSE 'misc:1B ' END)
          || (CASE WHEN i % 11 = 0 THEN 'beta:4A ' ELSE '' END)
          || (CASE WHEN i % 1601 = 0 THEN 'gamma:5A ' ELSE '' END)
          || (CASE WHEN i % 3 = 0 THEN 'delta:6A ' ELSE '' END)
          || (CASE WHEN i % 50 = 0 THEN 'many:7A ' ELSE '' END)
          || 'post:8A ' || i || ':9A '
          || (CASE WHEN i % 7 = 0 THEN 'alpha:20 ' ELSE '' END)
          || (CASE WHEN i % 4 = 0 THEN 'beta:21 ' ELSE '' END)
          || (CASE WHEN i % 9 = 0 THEN 'gamma:22 ' ELSE '' END)
          || (CASE WHEN i % 8 < 7 THEN 'delta:23 ' ELSE '' END)
          || 'many:24 body:' || (25 + i % 40))::tsvector
      FROM generate_series(1, ${POSTS}) i`,
    [feeds[0], feeds[1], T0],
  );
  await pool.query("VACUUM (ANALYZE) posts");
  await pool.query("ANALYZE");
});
after(() => db?.close());

const PAGES = [
  { offset: 0, limit: 20 },
  { offset: 20, limit: 20 },
  { offset: 780, limit: 20 },
  { offset: 0, limit: 1000 },
];

/** The store's page against the reference; whether the titled path answered it. */
async function assertSame(terms: string, page: { offset: number; limit: number }): Promise<boolean> {
  const { sql, ran } = recordingSql(pool);
  const names = new FeedNames();
  const got = await searchPosts(
    sql,
    { ...page, languageIds: null, query: parseSearchQuery(terms), sort: "relevance" },
    (s) => names.current(s),
  );
  const want = await searchReference(pool, terms, "relevance", { ...page, languageIds: null });
  const label = `${terms} at ${page.offset}+${page.limit}`;
  assert.deepEqual(
    got.map((r) => [r.postId, r.score]),
    want.map((r) => [r.id, r.score]),
    label,
  );
  const titled = ran.some((s) => s.includes("AS titled"));
  const answered = titled && !ran.some((s) => s.includes("AS ranked"));
  return answered;
}

describe("postgres relevance from titled matches", () => {
  it("counts at least the matches, from the index alone", async () => {
    const count = async (terms: string) => matchesAtMost(pool, searchMatch(parseSearchQuery(terms), null)!);
    const [{ n }] = (await pool.query("SELECT count(*)::int AS n FROM posts WHERE search_vector @@ 'beta'"))
      .rows;
    assert.equal(await count("beta"), n);
    // A word in every post: the planner reads the table instead of a bitmap, so no bound.
    assert.equal(await count("many"), null);
    assert.equal(await count("nothing"), 0);
  });

  it("takes only a query of one plain word in every language", () => {
    const word = (terms: string, languages: number[] | null = null) =>
      singleWord(searchMatch(parseSearchQuery(terms), languages)!);
    assert.equal(word("beta"), "beta");
    assert.equal(word("beta", [1]), null);
    assert.equal(word("beta gamma"), null);
    assert.equal(word("beta OR gamma"), null);
    assert.equal(word('"beta gamma"'), null);
    assert.equal(word("bet*"), null);
    assert.equal(word("beta -gamma"), null);
  });

  it("answers as ranking every match does, from the titles where they fill the page", async () => {
    const answered: string[] = [];
    for (const terms of ["alpha", "beta", "gamma", "delta", "many", "news", "post"]) {
      for (const page of PAGES) {
        if (await assertSame(terms, page)) answered.push(`${terms} ${page.offset}+${page.limit}`);
      }
    }
    // Titled matches: alpha 800 (one feed's name), beta 727, gamma 4 (never a page), news 800
    // (the feed's name); a page is theirs when they reach its end. many and post are in every
    // post: the planner reads the table, not a bitmap, so no bound and the usual plans. delta
    // (in 92 % of the posts) is read so on PostgreSQL 17; 18 plans it through a bitmap, and
    // then its 2,667 titled matches reach the end of every page.
    const bounded = async (terms: string) =>
      (await matchesAtMost(pool, searchMatch(parseSearchQuery(terms), null)!)) !== null;
    assert.equal(await bounded("many"), false);
    assert.equal(await bounded("post"), false);
    const delta = (await bounded("delta"))
      ? ["delta 0+1000", "delta 0+20", "delta 20+20", "delta 780+20"]
      : [];
    assert.deepEqual(
      answered.sort(),
      [
        "alpha 0+20",
        "alpha 20+20",
        "alpha 780+20",
        "beta 0+20",
        "beta 20+20",
        ...delta,
        "news 0+20",
        "news 20+20",
        "news 780+20",
      ].sort(),
    );
  });

  it("brings in a feed renamed to hold the word", async () => {
    await store.applyFeedUpdate(feeds[2]!, { posts: [], fetchState: {}, feed: { feedName: "Gamma Weekly" } });
    await pool.query(
      `INSERT INTO posts (feed_id, guid, link, title, excerpt, content, seen_at, post_date, language_id, search_vector)
        SELECT $1::int, 'h' || i, 'https://t.test/q' || i, 'Note ' || i, '', '', 0, $2::bigint - i::bigint * ${DAY}, 1,
          ('gamma:1B weekly:2B note:4A ' || i || ':5A')::tsvector
        FROM generate_series(1, 50) i`,
      [feeds[2], T0],
    );
    for (const page of PAGES.slice(0, 2)) assert.equal(await assertSame("gamma", page), true);
  });
});
