/**
 * Search by clicks within languages, which reads each language's clicked posts through
 * clicked_posts_by_language (migration 33; postgres-clicked-order.ts), against brute force: on
 * 30,000 posts of four languages, one of them with few clicked posts, after clicks moved (added,
 * taken back to 0) and clicked posts re-filed under another language, the word walk
 * (postgres-clicked-walk.ts, a page's languages) and the operators' walk
 * (postgres-operator-clicks.ts, `lang:`) give what sorting every match by (clicks desc, id desc)
 * gives, at the top, at limit 1000, and past the clicked posts into the unclicked ones.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type pg from "pg";
import { resolveSearchFilters } from "../../operations/search-filters.js";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { foldLanguageClauses } from "../../search/search-query.js";
import { withoutClickedWords } from "../../test-support/clicked-words.js";
import { recordingSql } from "../../test-support/recorded-statements.js";
import { openTestPostgresStore, type TestPostgresStore } from "../../test-support/test-postgres-server.js";
import { rows } from "./postgres-connection.js";
import { searchWithOperators } from "./postgres-search-operators.js";
import { searchPosts } from "./postgres-search-queries.js";
import type { PostgresStore } from "./postgres-store.js";
import { toTsquery } from "./postgres-text-search.js";

const POSTS = 30_000;
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 10);
const iso = (daysAgo: number) => new Date(T0 - daysAgo * DAY).toISOString().slice(0, 10);

let db: TestPostgresStore;
let store: PostgresStore;
let pool: pg.Pool;
const lang: Record<string, number> = {};

before(async () => {
  db = await openTestPostgresStore("language_clicks");
  ({ store, pool } = db);
  lang.en = 1;
  for (const code of ["fr", "de", "ja"]) lang[code] = (await store.ensureLanguage(code)).languageId;
  const feed = await store.addFeed({ feedUrl: "https://a.test/feed", feedName: "A" });
  // Post i: Japanese when i % 33 = 0 (3 %), German when i % 14 = 1 (7 %), French when i % 5 = 2,
  // else English; one post in eight clicked 1 to 40 times (many ties), but one Japanese post in
  // 40 only; "the" in 60 % (in the title in one in seven), "work" or "world" in two thirds,
  // w0..w96 spread, "rare" in one in 1,500; days scrambled over 400.
  await pool.query(
    `INSERT INTO posts (feed_id, guid, link, title, excerpt, content, seen_at, post_date, language_id, clicks, search_vector)
      SELECT $1::int, 'g' || i, 'https://x.test/' || i, 'Post ' || i, '', '', 0,
        $6::bigint - ((i * 7919) % 400)::bigint * ${DAY},
        CASE WHEN i % 33 = 0 THEN $5::int WHEN i % 14 = 1 THEN $4::int WHEN i % 5 = 2 THEN $3::int ELSE $2::int END,
        CASE WHEN i % 33 = 0 THEN (CASE WHEN i % 40 = 0 THEN 1 + (i * 31) % 40 ELSE 0 END)
          WHEN i % 8 IN (1, 2) AND i % 16 < 8 THEN 1 + (i * 31) % 40 ELSE 0 END,
        ((CASE WHEN i % 5 < 3 THEN (CASE WHEN i % 7 = 0 THEN 'the:1A ' ELSE 'the:1 ' END) ELSE '' END)
          || (CASE i % 3 WHEN 0 THEN 'work:2 ' WHEN 1 THEN 'world:2 ' ELSE '' END)
          || 'w' || (i % 97) || ':3' || CASE WHEN i % 1500 = 0 THEN ' rare:4' ELSE '' END)::tsvector
      FROM generate_series(1, ${POSTS}) i`,
    [feed.feedId, lang.en, lang.fr, lang.de, lang.ja, T0],
  );
  // Clicks moved after the posts came: more on some, taken back on others, and clicked French
  // posts re-filed as German (each through the trigger that keeps clicked_posts).
  await pool.query("UPDATE posts SET clicks = clicks + 7 WHERE id % 13 = 0 AND clicks > 0");
  await pool.query("UPDATE posts SET clicks = 0 WHERE id % 17 = 0");
  await pool.query("UPDATE posts SET language_id = $1 WHERE language_id = $2 AND clicks > 0 AND id % 3 = 0", [
    lang.de,
    lang.fr,
  ]);
  await pool.query("UPDATE feeds f SET post_count = (SELECT count(*) FROM posts p WHERE p.feed_id = f.id)");
  // The walks are under test here, not the most clicked posts' own words (migration 42).
  await withoutClickedWords(pool);
  await pool.query("ANALYZE");
});
after(() => db?.close());

/** Every statement a search ran. */
const recording = () => recordingSql(pool);

/** The page as sorting every match by clicks gives it. */
async function reference(words: string | null, where: string, page: { offset: number; limit: number }) {
  const found = await rows<{ id: number }>(
    pool,
    `SELECT p.id FROM posts p WHERE ${words === null ? "$1 = $1" : "p.search_vector @@ $1::tsquery"} AND ${where}
      ORDER BY p.clicks DESC, p.id DESC LIMIT $2 OFFSET $3`,
    [words ?? "", page.limit, page.offset],
  );
  return found.map((r) => r.id);
}

const PAGES = [
  { offset: 0, limit: 20 },
  { offset: 40, limit: 20 },
  { offset: 200, limit: 20 },
  { offset: 0, limit: 1000 },
  { offset: 990, limit: 20 },
  { offset: 2500, limit: 20 },
];
/** The walks through the language index (postgres-clicked-order.ts). */
const byLanguage = (ran: string[]) =>
  ran.some(
    (t) =>
      !t.includes("FROM clicked_words") &&
      (t.includes("c.language_id = l.id") || t.includes("k.language_id = ANY")),
  );

describe("postgres search by clicks within languages", () => {
  it("keeps clicked_posts' languages and title vectors those of the posts after clicks moved and posts were re-filed", async () => {
    const columns = "id, clicks, language_id, rank_vector::text";
    assert.deepEqual(
      await rows(pool, `SELECT ${columns} FROM clicked_posts ORDER BY id`),
      await rows(pool, `SELECT ${columns} FROM posts WHERE clicks > 0 ORDER BY id`),
    );
    const ja = await rows<{ n: number }>(
      pool,
      "SELECT count(*)::int AS n FROM clicked_posts WHERE language_id = $1",
      [lang.ja],
    );
    assert.ok(ja[0]!.n > 5 && ja[0]!.n < 40, `${ja[0]!.n} clicked Japanese posts`);
  });

  it("answers `lang:` with and without words exactly, through each language's clicked posts", async () => {
    const cases: Array<{ terms: string; where: string }> = [
      { terms: "lang:de", where: `p.language_id = ${lang.de}` },
      { terms: "lang:ja", where: `p.language_id = ${lang.ja}` },
      { terms: "lang:de the", where: `p.language_id = ${lang.de}` },
      { terms: "lang:ja the", where: `p.language_id = ${lang.ja}` },
      { terms: "lang:ja w5", where: `p.language_id = ${lang.ja}` },
      { terms: "lang:de title:the", where: `p.language_id = ${lang.de}` },
      { terms: "lang:fr wor*", where: `p.language_id = ${lang.fr}` },
      { terms: "lang:de rare", where: `p.language_id = ${lang.de}` },
      {
        terms: `lang:de after:${iso(100)} the`,
        where: `p.language_id = ${lang.de} AND p.post_date >= ${T0 - 100 * DAY}`,
      },
      // `title:` words alone: checked on the clicked_posts row (its title vector), or on the post
      // when a filter reads a column clicked_posts lacks (feed:).
      { terms: "title:the", where: "TRUE" },
      { terms: `title:the after:${iso(100)}`, where: `p.post_date >= ${T0 - 100 * DAY}` },
      { terms: "title:the -lang:fr", where: `p.language_id <> ${lang.fr}` },
      { terms: "lang:ja title:the", where: `p.language_id = ${lang.ja}` },
      { terms: "feed:a title:the", where: "TRUE" },
    ];
    let walked = 0;
    for (const c of cases) {
      const words = toTsquery(parseSearchQuery(c.terms.replace(/(^|\s)-?(after|lang|feed):\S+/g, " ")));
      for (const page of PAGES) {
        const { sql, ran } = recording();
        const folded = foldLanguageClauses(
          await resolveSearchFilters(store, parseSearchQuery(c.terms)),
          null,
        );
        const got = await searchWithOperators(sql, { ...page, ...folded, sort: "clicks" });
        assert.deepEqual(
          got.map((r) => r.postId),
          await reference(words, c.where, page),
          `${c.terms} at ${page.offset}+${page.limit}`,
        );
        if (byLanguage(ran)) walked++;
      }
    }
    // The walk's cases (no words, common words) went through the language index.
    assert.ok(walked >= 8, `${walked} pages walked by language`);
    // `title:the` by clicks: each walked post checked on its clicked_posts row, `posts` not probed.
    const titled = recording();
    await searchWithOperators(titled.sql, {
      offset: 0,
      limit: 20,
      ...foldLanguageClauses(await resolveSearchFilters(store, parseSearchQuery("title:the")), null),
      sort: "clicks",
    });
    assert.ok(
      titled.ran.some((t) => t.includes("FROM clicked_posts k WHERE")),
      "title:the walked clicked_posts",
    );
    assert.ok(!titled.ran.some((t) => t.includes("p.id = k.id")), "title:the probed no post");
    // Japanese has few clicked posts: the page past them walks on into the posts without clicks.
    const { sql, ran } = recording();
    const folded = foldLanguageClauses(await resolveSearchFilters(store, parseSearchQuery("lang:ja")), null);
    await searchWithOperators(sql, { offset: 40, limit: 20, ...folded, sort: "clicks" });
    assert.ok(byLanguage(ran), "lang:ja by clicks walked the Japanese clicked posts");
    assert.ok(
      ran.some((t) => t.includes("p.clicks = 0")),
      "lang:ja by clicks past its clicked posts read the unclicked ones",
    );
  });

  it("answers a word in a page's languages exactly, through those languages' clicked posts when few", async () => {
    let walked = 0;
    // English and French hold 9 posts in 10: two descents of the language index would read more
    // than the walk of every clicked post (walkByLanguage), so that walk is taken, and is exact too.
    let common = 0;
    for (const languages of [[lang.ja!], [lang.de!], [lang.de!, lang.ja!], [lang.en!, lang.fr!]]) {
      for (const terms of ["the", "work", "w5"]) {
        for (const page of PAGES) {
          const { sql, ran } = recording();
          const got = await searchPosts(sql, {
            query: parseSearchQuery(terms),
            sort: "clicks",
            ...page,
            languageIds: languages,
          });
          const words = toTsquery(parseSearchQuery(terms));
          assert.deepEqual(
            got.map((r) => r.postId),
            await reference(words, `p.language_id = ANY('{${languages.join(",")}}'::int[])`, page),
            `${terms} in ${languages} at ${page.offset}+${page.limit}`,
          );
          if (byLanguage(ran)) walked++;
          if (languages.includes(lang.en!) && byLanguage(ran)) common++;
        }
      }
    }
    // The small pages of German and Japanese (the rest read every match: a small corpus).
    assert.ok(walked >= 4, `${walked} pages walked by language`);
    assert.equal(common, 0, "English and French walked every clicked post");
  });
});
