/**
 * A relevance page of one counted word with more matches than are ranked, read from its titled
 * matches among the ranked ones (postgres-ranked-newest.ts), must be the page ranking the newest
 * RANKED_NEWEST matches gives: on 14,000 posts stored out of date order with posts sharing a date
 * to the millisecond (ties broken by id at the cut), words in titles (weight A), in a feed's name
 * (weight B) and in bodies, in one language, the other, both and all; each page compared with the
 * brute-force reference, and the statements checked to have taken the titled path exactly where
 * it can answer. A write between the counts the cut was placed by and the page's statement makes
 * the path give up.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type pg from "pg";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { searchReference } from "../../test-support/postgres-search-reference.js";
import { recordingSql } from "../../test-support/recorded-statements.js";
import { openTestPostgresStore, type TestPostgresStore } from "../../test-support/test-postgres-server.js";
import type { Sql } from "./postgres-connection.js";
import { syncCountedWords } from "./postgres-counted-words.js";
import { FeedNames } from "./postgres-feed-names.js";
import { titledNewestPage } from "./postgres-ranked-newest.js";
import { searchKey } from "./postgres-search-key.js";
import { RANKED_NEWEST, searchMatch, searchPosts } from "./postgres-search-queries.js";
import type { PostgresStore } from "./postgres-store.js";

const POSTS = 14_000;
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 10);

let db: TestPostgresStore;
let store: PostgresStore;
let pool: pg.Pool;
let german: number;
const feeds: number[] = [];

before(async () => {
  db = await openTestPostgresStore("ranked_newest");
  ({ store, pool } = db);
  german = (await store.ensureLanguage("de")).languageId;
  for (const name of ["Alpha News", "Misc"]) {
    feeds.push((await store.addFeed({ feedUrl: `https://t.test/${feeds.length}`, feedName: name })).feedId);
  }
  // Post i: one in ten in "Alpha News" (its name's words at weight B), the rest in "Misc"; one in
  // five German; its day scrambled over 400 days, 97 instants a day (so posts share a date);
  // "delta" in the title of one in 3 and in 7 bodies of 8 (12,800 matches); "many" in every body
  // and one title in 50; "news" in one body in 4 besides its feed's name (10,850); "beta" in the
  // title of one in 11 and the body of one in 4 (fewer than are ranked); "post" in every title.
  await pool.query(
    `INSERT INTO posts (feed_id, guid, link, title, excerpt, content, seen_at, post_date, language_id, search_vector)
      SELECT CASE WHEN i % 10 = 0 THEN $1::int ELSE $2::int END, 'g' || i, 'https://t.test/p' || i, 'Post ' || i, '', '', 0,
        $3::bigint - ((i * 7919) % 400)::bigint * ${DAY} + (i % 97)::bigint * 1000000,
        CASE WHEN i % 5 = 0 THEN $4::int ELSE 1 END,
        ((CASE WHEN i % 10 = 0 THEN 'alpha:1B news:2B ' ELSE 'misc:1B ' END)
          || (CASE WHEN i % 11 = 0 THEN 'beta:4A ' ELSE '' END)
          || (CASE WHEN i % 3 = 0 THEN 'delta:6A ' ELSE '' END)
          || (CASE WHEN i % 50 = 0 THEN 'many:7A ' ELSE '' END)
          || 'post:8A ' || i || ':9A '
          || (CASE WHEN i % 4 = 0 THEN 'beta:21 ' ELSE '' END)
          || (CASE WHEN i % 8 < 7 THEN 'delta:23 ' ELSE '' END)
          || (CASE WHEN i % 4 <> 0 THEN 'news:22 ' ELSE '' END)
          || 'many:24 body:' || (25 + i % 40))::tsvector
      FROM generate_series(1, ${POSTS}) i`,
    [feeds[0], feeds[1], T0, german],
  );
  await pool.query("ANALYZE");
  await syncCountedWords(pool, { matches: 2_000, most: 10 });
});
after(() => db?.close());

const PAGES = [
  { offset: 0, limit: 20 },
  { offset: 20, limit: 20 },
  { offset: 780, limit: 20 },
  { offset: 0, limit: 1000 },
  { offset: 3000, limit: 1000 },
  { offset: 6000, limit: 20 },
];

/** The store's page against the reference; whether the titled path among the newest answered it. */
async function assertSame(
  terms: string,
  page: { offset: number; limit: number },
  languageIds: number[] | null,
): Promise<boolean> {
  const { sql, ran } = recordingSql(pool);
  const names = new FeedNames();
  const got = await searchPosts(
    sql,
    { ...page, languageIds, query: parseSearchQuery(terms), sort: "relevance" },
    (s) => names.current(s),
  );
  const want = await searchReference(pool, terms, "relevance", { ...page, languageIds });
  const label = `${terms} in ${JSON.stringify(languageIds)} at ${page.offset}+${page.limit}`;
  assert.equal(got.length, want.length, label);
  assert.deepEqual(
    got.map((r) => [r.postId, r.score]),
    want.map((r) => [r.id, r.score]),
    label,
  );
  return ran.some((s) => s.includes("day_matches")) && !ran.some((s) => s.includes("AS ranked"));
}

describe("postgres relevance from the titled matches among the newest", () => {
  it("answers as ranking the newest matches does, from their titled ones where they fill the page", async () => {
    const answered: string[] = [];
    for (const languageIds of [null, [1], [german], [1, german]]) {
      for (const terms of ["delta", "many", "news", "beta", "post"]) {
        for (const page of PAGES) {
          if (await assertSame(terms, page, languageIds)) {
            const scope = languageIds?.map((l) => (l === german ? "de" : "en")).join("+") ?? "all";
            answered.push(`${terms} ${scope} ${page.offset}+${page.limit}`);
          }
        }
      }
    }
    // Titled among the newest 10,000 matches: delta about 3,600, many 200, news 1,300 (its
    // feed's name), post all. None of many's titled posts or news's feed is English (both are in
    // posts whose number ends in 0, all German); beta, and every word in German alone, have
    // fewer matches than are ranked. A page past half the ranked ones is never tried.
    assert.deepEqual(answered.sort(), [
      "delta all 0+1000",
      "delta all 0+20",
      "delta all 20+20",
      "delta all 780+20",
      "delta en 0+1000",
      "delta en 0+20",
      "delta en 20+20",
      "delta en 780+20",
      "delta en+de 0+1000",
      "delta en+de 0+20",
      "delta en+de 20+20",
      "delta en+de 780+20",
      "many all 0+20",
      "many all 20+20",
      "many en+de 0+20",
      "many en+de 20+20",
      "news all 0+1000",
      "news all 0+20",
      "news all 20+20",
      "news all 780+20",
      "news en+de 0+1000",
      "news en+de 0+20",
      "news en+de 20+20",
      "news en+de 780+20",
      "post all 0+1000",
      "post all 0+20",
      "post all 20+20",
      "post all 3000+1000",
      "post all 780+20",
      "post en 0+1000",
      "post en 0+20",
      "post en 20+20",
      "post en 3000+1000",
      "post en 780+20",
      "post en+de 0+1000",
      "post en+de 0+20",
      "post en+de 20+20",
      "post en+de 3000+1000",
      "post en+de 780+20",
    ]);
  });

  it("gives up when a post is written between the counts and the page", async () => {
    const match = searchMatch(parseSearchQuery("delta"), null)!;
    const key = searchKey(parseSearchQuery("delta"))!;
    const feedNames = new FeedNames();
    const names = (s: Sql) => feedNames.current(s);
    const page = { offset: 0, limit: 20 };
    assert.ok(await titledNewestPage(pool, match, "delta", key, page, names, RANKED_NEWEST));
    // A newer post holding the word lands before the page's statement runs: the cut it was
    // placed by is no longer the last ranked match.
    let written = false;
    const writing: Sql = {
      query: (async (text: string | pg.QueryConfig, values?: unknown[]) => {
        if (!written && (typeof text === "string" ? text : text.text).includes("day_matches")) {
          written = true;
          await pool.query(
            `INSERT INTO posts (feed_id, guid, link, title, excerpt, content, seen_at, post_date, language_id, search_vector)
              VALUES ($1, 'late', 'https://t.test/late', 'Late', '', '', 0, $2, 1, 'delta:3 late:1A'::tsvector)`,
            [feeds[1], T0 + DAY],
          );
        }
        return typeof text === "string" ? pool.query(text, values) : pool.query(text);
      }) as Sql["query"],
    };
    try {
      assert.equal(await titledNewestPage(writing, match, "delta", key, page, names, RANKED_NEWEST), null);
      assert.ok(written);
    } finally {
      await pool.query("DELETE FROM posts WHERE guid = 'late'");
    }
  });
});
