/**
 * The early-stopping reads of SQLite against plain full sorts, on a demo corpus with posts stored
 * out of date order through the store (re-dated posts, a feed's archive stored after newer posts
 * in shuffled order, many small feeds, several languages, ties to the millisecond); and the
 * roll-up tables of migration 8 against a recount from the rows after every kind of write.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import Database from "better-sqlite3";
import { loadDemoData } from "../../demo/load-demo-data.js";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { isFilter, type SearchAtom } from "../../search/search-query.js";
import { lcgDraws } from "../../test-support/seeded-draws.js";
import { incoming } from "../../test-support/store-contract/contract-fixture.js";
import type { IncomingPost } from "../store.js";
import { findingQuery } from "./fts5-implied-terms.js";
import { toFts5Match } from "./fts5-match.js";
import { CONSECUTIVE_LEVELS } from "./sqlite-click-levels.js";
import {
  gatherClicked,
  mostClickedHitPage,
  sampleIn,
  sortedByClicks,
  walkClicked,
} from "./sqlite-clicked-hits.js";
import { StatementCache } from "./sqlite-connection.js";
import { seekDay } from "./sqlite-day-seek.js";
import { mostPopularFeeds, mostProlificFeeds } from "./sqlite-feed-rankings.js";
import { migrateSqlite } from "./sqlite-migrations.js";
import { mostPopularPosts, rankByLevels } from "./sqlite-popular-posts.js";
import { postsByCategory, postsByFeed, recentPosts } from "./sqlite-post-queries.js";
import { searchMatch, searchPosts } from "./sqlite-search-queries.js";
import { SqliteStore } from "./sqlite-store.js";
import { newestKeyRange, rankingStats, scoreSql, WEIGHTS } from "./sqlite-term-sample.js";

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 0, 10, 12);

const WORDS = ["the", "data", "rust", "le", "der", "new", "security", "open", "source", "code", "news"];

/** Re-dates posts through the store (a feed that edits its dates), keeping their text. */
async function redate(
  store: SqliteStore,
  db: Database.Database,
  where: string,
  shift: number,
): Promise<void> {
  const rows = db
    .prepare(`SELECT feed_id, guid, link, title, excerpt, content, post_date, seen_at, language_id
      FROM posts WHERE ${where}`)
    .all() as Array<{
    feed_id: number;
    guid: string;
    link: string;
    title: string;
    excerpt: string;
    content: string;
    post_date: number;
    seen_at: number;
    language_id: number;
  }>;
  const byFeed = new Map<number, IncomingPost[]>();
  for (const r of rows) {
    const post: IncomingPost = {
      guid: r.guid,
      link: r.link,
      title: r.title,
      excerpt: r.excerpt,
      content: r.content,
      publishedAt: r.post_date + shift,
      updatedAt: null,
      seenAt: r.seen_at,
      languageId: r.language_id,
    };
    byFeed.set(r.feed_id, [...(byFeed.get(r.feed_id) ?? []), post]);
  }
  for (const [feedId, posts] of byFeed) await store.applyFeedUpdate(feedId, { fetchState: {}, posts });
}

/**
 * Stores posts out of date order: an archive of 1,500 posts over two years, shuffled, after the
 * demo's newer posts; 150 small feeds of 1 to 5 posts; posts in three languages; dates that
 * repeat to the millisecond across feeds and several posts within one second stored newest first.
 */
async function storeOutOfOrder(store: SqliteStore, db: Database.Database): Promise<void> {
  const next = lcgDraws(7);
  const de = (await store.ensureLanguage("de")).languageId;
  const fr = (await store.ensureLanguage("fr")).languageId;
  const languages = [1, 1, de, fr];
  const text = (n: number) =>
    Array.from({ length: n }, () => WORDS[Math.floor(next() * WORDS.length)]).join(" ");
  const demoDates = db.prepare("SELECT post_date FROM posts ORDER BY id").pluck().all() as number[];
  const post = (guid: string, date: number): IncomingPost =>
    incoming(guid, {
      title: text(3),
      excerpt: text(8),
      content: `<p>${text(12)}</p>`,
      publishedAt: date,
      languageId: languages[Math.floor(next() * languages.length)]!,
    });
  const archive = await store.addFeed({ feedUrl: "https://archive.test/feed", feedName: "Archive" });
  const old: IncomingPost[] = [];
  for (let i = 0; i < 1500; i++) {
    // A third share a demo post's exact date; the rest spread over two years before now.
    const date =
      i % 3 === 0 ? demoDates[Math.floor(next() * demoDates.length)]! : NOW - Math.floor(next() * 730 * DAY);
    old.push(post(`archive-${i}`, date));
  }
  await store.applyFeedUpdate(archive.feedId, { fetchState: {}, posts: old.slice(0, 700) });
  await store.applyFeedUpdate(archive.feedId, { fetchState: {}, posts: old.slice(700) });
  // One second's posts stored newest first, each landing before the last: slots run out.
  const second = NOW - 3 * DAY;
  const crowded = Array.from({ length: 40 }, (_, i) => post(`crowded-${i}`, second + 999 - i * 20));
  for (const p of crowded) await store.applyFeedUpdate(archive.feedId, { fetchState: {}, posts: [p] });
  for (let f = 0; f < 150; f++) {
    const feed = await store.addFeed({ feedUrl: `https://small-${f}.test/feed`, feedName: `Small ${f}` });
    const count = 1 + Math.floor(next() * 5);
    const posts = Array.from({ length: count }, (_, i) =>
      post(`small-${f}-${i}`, NOW - Math.floor(next() * 400 * DAY)),
    );
    await store.applyFeedUpdate(feed.feedId, { fetchState: {}, posts });
  }
}

describe("SQLite bounded reads", () => {
  const db = new Database(":memory:");
  const stmts = new StatementCache(db);
  const store = new SqliteStore(db);
  before(async () => {
    migrateSqlite(db);
    await loadDemoData(store, { posts: 20_000, now: NOW });
    // Dates out of id order: old posts moved to the newest day, new ones back by 60 days.
    await redate(store, db, "id % 97 = 0 AND id < 3000", 85 * DAY);
    await redate(store, db, "id % 89 = 0 AND id > 17000", -60 * DAY);
    await storeOutOfOrder(store, db);
  });
  after(() => store.close());

  const queries = [
    "the",
    "data OR security",
    "rust",
    "the new",
    "le",
    "zzzunknown",
    "rust -the",
    '"open source"',
    "title:data data",
  ];
  const languageSets: Array<number[] | null> = [null, [1], [3, 4], [4, 1, 3]];

  it("keys every post and index row in (post_date, id) order", () => {
    const byKey = db.prepare("SELECT id FROM posts ORDER BY date_key").pluck().all();
    const byDate = db.prepare("SELECT id FROM posts ORDER BY post_date, id").pluck().all();
    assert.deepEqual(byKey, byDate);
    assert.equal(db.prepare("SELECT count(*) FROM posts WHERE date_key IS NULL").pluck().get(), 0);
    const indexed = db
      .prepare(
        'SELECT rowid FROM posts_fts WHERE posts_fts MATCH \'"the" OR "le" OR "der" OR "data"\' ORDER BY rowid',
      )
      .pluck()
      .all() as number[];
    const keyed = new Set(db.prepare("SELECT date_key FROM posts").pluck().all() as number[]);
    assert.ok(
      indexed.length > 10_000 && indexed.every((key) => keyed.has(key)),
      "every index row is a post's key",
    );
  });

  it("finds the newest hits exactly, at any offset and with languages", () => {
    const reference = db.prepare(`SELECT p.id FROM posts p
      WHERE p.date_key IN (SELECT rowid FROM posts_fts WHERE posts_fts MATCH ?)
      AND (? IS NULL OR p.language_id IN (SELECT value FROM json_each(?)))
      ORDER BY p.post_date DESC, p.id DESC LIMIT ? OFFSET ?`);
    const total = db.prepare(`SELECT count(*) FROM posts p
      WHERE p.date_key IN (SELECT rowid FROM posts_fts WHERE posts_fts MATCH ?)
      AND (? IS NULL OR p.language_id IN (SELECT value FROM json_each(?)))`);
    let compared = 0;
    for (const terms of queries) {
      const match = toFts5Match(parseSearchQuery(terms))!;
      for (const languageIds of languageSets) {
        const languages = languageIds === null ? null : JSON.stringify(languageIds);
        const hits = total.pluck().get(match, languages, languages) as number;
        for (const [offset, limit] of [
          [0, 20],
          [0, 1000],
          [37, 5],
          [2500, 20],
          [7000, 50],
          // The last page, and one that starts inside it.
          [Math.max(0, hits - 20), 20],
          [Math.max(0, hits - 7), 20],
        ] as const) {
          const expected = reference.pluck().all(match, languages, languages, limit, offset);
          const page = searchPosts(stmts, {
            limit,
            offset,
            languageIds,
            query: parseSearchQuery(terms),
            sort: "date",
          });
          assert.deepEqual(
            page.map((p) => p.postId),
            expected,
            `${terms} ${languages} ${offset}+${limit}`,
          );
          compared += expected.length;
        }
      }
    }
    assert.ok(compared > 10_000, `only ${compared} hits compared`);
  });

  it("sorts hits by clicks exactly, unclicked ones by id, with languages", () => {
    const reference = db.prepare(`SELECT p.id FROM posts p
      WHERE p.date_key IN (SELECT rowid FROM posts_fts WHERE posts_fts MATCH ?)
      AND (? IS NULL OR p.language_id IN (SELECT value FROM json_each(?)))
      ORDER BY p.clicks DESC, p.id DESC LIMIT ? OFFSET ?`);
    const clicked = db.prepare("SELECT count(*) FROM posts WHERE clicks > 0").pluck().get() as number;
    // The last three are found with fewer terms than they score with (fts5-implied-terms.ts).
    for (const terms of [
      "the",
      "rust",
      "data OR security",
      "the* the",
      "title:the the",
      '"open source" open',
    ]) {
      const match = toFts5Match(parseSearchQuery(terms))!;
      for (const languageIds of languageSets) {
        const languages = languageIds === null ? null : JSON.stringify(languageIds);
        // Every hit's score as a page by date gives it (its hits scored in one walk).
        const everyHit = searchPosts(stmts, {
          limit: 1_000_000,
          offset: 0,
          languageIds,
          query: parseSearchQuery(terms),
          sort: "date",
        });
        const scoreOf = new Map(everyHit.map((p) => [p.postId, p.score]));
        for (const [offset, limit] of [
          [0, 50],
          [0, 1000],
          [Math.floor(clicked / 4), 30],
          [clicked, 30],
        ] as const) {
          const page = searchPosts(stmts, {
            limit,
            offset,
            languageIds,
            query: parseSearchQuery(terms),
            sort: "clicks",
          });
          assert.deepEqual(
            page.map((p) => p.postId),
            reference.pluck().all(match, languages, languages, limit, offset),
            `${terms} ${languages} ${offset}`,
          );
          assert.deepEqual(
            page.map((p) => p.score),
            page.map((p) => scoreOf.get(p.postId)),
            `scores ${terms} ${languages} ${offset}+${limit}`,
          );
        }
      }
    }
  });

  it("lists recent posts and a category's posts exactly, with languages, at any depth", async () => {
    const recent =
      db.prepare(`SELECT id FROM posts WHERE (? IS NULL OR language_id IN (SELECT value FROM json_each(?)))
      ORDER BY post_date DESC, id DESC LIMIT ? OFFSET ?`);
    const inCategory = db.prepare(`SELECT id FROM posts WHERE category_id = ?
      AND (? IS NULL OR language_id IN (SELECT value FROM json_each(?)))
      ORDER BY post_date DESC, id DESC LIMIT ? OFFSET ?`);
    for (const languageIds of languageSets) {
      const languages = languageIds === null ? null : JSON.stringify(languageIds);
      for (const [offset, limit] of [
        [0, 20],
        [777, 100],
        [12_000, 50],
        [21_000, 1000],
      ] as const) {
        const page = await store.recentPosts({ limit, offset, languageIds });
        assert.deepEqual(
          page.map((p) => p.postId),
          recent.pluck().all(languages, languages, limit, offset),
          `recent ${languages} ${offset}`,
        );
        const byCategory = await store.postsByCategory({
          limit,
          offset: Math.floor(offset / 4),
          categoryId: 1,
          languageIds,
          sincePostId: null,
          sinceDate: null,
        });
        assert.deepEqual(
          byCategory.map((p) => p.postId),
          inCategory.pluck().all(1, languages, languages, limit, Math.floor(offset / 4)),
          `category ${languages} ${offset}`,
        );
      }
    }
  });

  it("lists every post and the largest feeds' posts exactly at pages of their older half, last pages included", () => {
    // Those pages count days from the oldest on, with the list's length from the running sums.
    const all = db.prepare("SELECT id FROM posts ORDER BY post_date DESC, id DESC LIMIT ? OFFSET ?");
    const ofFeed = db.prepare(
      "SELECT id FROM posts WHERE feed_id = ? ORDER BY post_date DESC, id DESC LIMIT ? OFFSET ?",
    );
    const total = db.prepare("SELECT count(*) FROM posts").pluck().get() as number;
    const feeds = db
      .prepare("SELECT feed_id, count(*) FROM posts GROUP BY feed_id ORDER BY count(*) DESC, feed_id LIMIT 3")
      .raw()
      .all() as Array<[number, number]>;
    assert.ok(feeds[0]![1] > 1000, `largest feed ${feeds[0]![1]} posts`);
    const offsets = (n: number) =>
      [Math.floor(n / 2) - 1, Math.floor(n / 2), n - 1000, n - 21, n - 20, n - 7, n - 1, n, n + 5].filter(
        (o) => o >= 0,
      );
    for (const offset of offsets(total)) {
      for (const limit of [1, 20, 1000]) {
        assert.deepEqual(
          recentPosts(stmts, { limit, offset, languageIds: null }).map((p) => p.postId),
          all.pluck().all(limit, offset),
          `recent ${offset}+${limit} of ${total}`,
        );
      }
    }
    for (const [feedId, n] of feeds) {
      for (const offset of offsets(n)) {
        for (const limit of [1, 20, 1000]) {
          assert.deepEqual(
            postsByFeed(stmts, { feedId, limit, offset }).map((p) => p.postId),
            ofFeed.pluck().all(feedId, limit, offset),
            `feed ${feedId} ${offset}+${limit} of ${n}`,
          );
        }
      }
    }
  });

  it("lists a category's posts since a post id exactly at any depth, few or many ids below it", async () => {
    const reference = db.prepare(`SELECT id FROM posts WHERE category_id = ? AND id > ?
      AND (? IS NULL OR language_id IN (SELECT value FROM json_each(?)))
      ORDER BY post_date DESC, id DESC LIMIT ? OFFSET ?`);
    const maxId = db.prepare("SELECT max(id) FROM posts").pluck().get() as number;
    // Few and many ids below and above the id: day counts' bounds settle some rows, ranks the rest.
    for (const sincePostId of [0, 1, 37, 2_500, 9_000, maxId - 800]) {
      for (const languageIds of languageSets) {
        const languages = languageIds === null ? null : JSON.stringify(languageIds);
        const total = (reference.pluck().all(1, sincePostId, languages, languages, -1, 0) as number[]).length;
        for (const [offset, limit] of [
          [0, 20],
          [600, 50],
          [Math.floor(total / 2), 30],
          [Math.max(0, total - 7), 20],
        ] as const) {
          const page = await store.postsByCategory({
            limit,
            offset,
            categoryId: 1,
            languageIds,
            sincePostId,
            sinceDate: null,
          });
          assert.deepEqual(
            page.map((p) => p.postId),
            reference.pluck().all(1, sincePostId, languages, languages, limit, offset),
            `since ${sincePostId} ${languages} ${offset} of ${total}`,
          );
        }
      }
    }
  });

  it("ranks the 10,000 newest hits by relevance when more match, stored out of date order", async () => {
    const match = '"the" OR "le" OR "der"';
    const all = db
      // bm25() counted on the whole index, of the text's columns (sqlite-sampled-bm25.test.ts).
      .prepare(`SELECT p.id AS id, p.post_date AS date, sampled_bm25(posts_fts, NULL, ${WEIGHTS}, NULL, NULL, NULL, NULL) AS score
        FROM posts_fts t JOIN posts p ON p.date_key = t.rowid WHERE posts_fts MATCH ?`)
      .all(match) as Array<{ id: number; date: number; score: number }>;
    assert.ok(all.length > 10_000, `${all.length} hits`);
    const pool = all
      .sort((a, b) => b.date - a.date || b.id - a.id)
      .slice(0, 10_000)
      .sort((a, b) => b.score - a.score || b.id - a.id);
    for (const [offset, limit] of [
      [0, 50],
      [4321, 7],
      [9990, 20],
    ] as const) {
      const page = await store.searchPosts({
        limit,
        offset,
        languageIds: null,
        query: parseSearchQuery("the OR le OR der"),
        sort: "relevance",
      });
      const expected = pool.slice(offset, offset + limit);
      assert.deepEqual(
        page.map((p) => p.postId),
        expected.map((p) => p.id),
        `offset ${offset}`,
      );
      assert.deepEqual(
        page.map((p) => p.score),
        expected.map((p) => p.score),
      );
    }
  });

  it("excludes terms one NOT at a time: the same posts as one NOT of their OR", () => {
    const hitsOf = db.prepare("SELECT rowid FROM posts_fts WHERE posts_fts MATCH ? ORDER BY rowid").pluck();
    const cases: Array<[string, string]> = [
      ["data -code -rust", '("data") NOT ("code" OR "rust")'],
      ["the new -data -security -rust", '("the" AND "new") NOT ("data" OR "security" OR "rust")'],
      ['rust OR go -"open source" -the', '(("rust" OR "go")) NOT ("open source" OR "the")'],
    ];
    for (const [terms, reference] of cases) {
      const match = toFts5Match(parseSearchQuery(terms))!;
      assert.notEqual(match, reference, terms);
      const expected = hitsOf.all(reference);
      // The exclusions remove some posts and leave some.
      const positive = hitsOf.all(match.slice(0, match.indexOf(") NOT") + 1));
      assert.ok(expected.length > 0 && expected.length < positive.length, terms);
      assert.deepEqual(hitsOf.all(match), expected, terms);
    }
  });

  it("ranks by bm25 with term statistics counted on the newest posts when the database has more", () => {
    const bounds = { termSamplePosts: 4096, relevancePool: 600 };
    const sampled = new Set(
      db
        .prepare("SELECT date_key FROM posts ORDER BY post_date DESC, id DESC LIMIT ?")
        .pluck()
        .all(bounds.termSamplePosts) as number[],
    );
    const hitsOf = db.prepare("SELECT rowid FROM posts_fts WHERE posts_fts MATCH ?").pluck();
    // Queries for each way of deciding whether more than the pool match: many among the sampled
    // ids alone ("the"), many expected from them (a count decides), few expected (ranked in one
    // walk) with more or fewer than the pool in the end, exclusions, phrases, nothing at all.
    const queries: Array<[string, string[]]> = [
      ["the OR le OR der", ['"the"', '"le"', '"der"']],
      ["data -security", ['"data"']],
      ['"open source" OR rust', ['"open source"', '"rust"']],
      ["rust", ['"rust"']],
      ["typescript", ['"typescript"']],
      ["data -code -the", ['"data"']],
      ["zzzunknown", ['"zzzunknown"']],
    ];
    let compared = 0;
    const sizes = { overPool: 0, underPool: 0 };
    for (const [terms, phrases] of queries) {
      const query = parseSearchQuery(terms);
      const stats = rankingStats(stmts, query, bounds.termSamplePosts).args;
      const counts = phrases.map(
        (phrase) => (hitsOf.all(phrase) as number[]).filter((key) => sampled.has(key)).length,
      );
      assert.deepEqual(stats.slice(0, 1 + phrases.length), [bounds.termSamplePosts, ...counts], terms);
      // The exclusions' counts are not taken: they never occur in a matching post.
      assert.ok(
        stats.slice(1 + phrases.length).every((n) => n === 0),
        terms,
      );
      const match = toFts5Match(query)!;
      for (const languages of [null, [1], [3, 4]]) {
        const all = db
          .prepare(`SELECT p.id AS id, p.post_date AS date, p.language_id AS language,
              sampled_bm25(posts_fts, NULL, ${WEIGHTS}${", ?".repeat(stats.length)}) AS score
            FROM posts_fts t JOIN posts p ON p.date_key = t.rowid WHERE posts_fts MATCH ?`)
          .all(...stats, match) as Array<{ id: number; date: number; language: number; score: number }>;
        const hits = all.filter((hit) => languages === null || languages.includes(hit.language));
        if (hits.length > bounds.relevancePool) sizes.overPool++;
        else if (hits.length > 0) sizes.underPool++;
        const pool = hits
          .sort((a, b) => b.date - a.date || b.id - a.id)
          .slice(0, bounds.relevancePool)
          .sort((a, b) => b.score - a.score || b.id - a.id);
        // A shallow page past the first hits (the bounded sort, the hits above it skipped by
        // count) and a deep one (the whole pool sorted).
        for (const [offset, limit] of [
          [0, 30],
          [100, 30],
          [590, 20],
        ] as const) {
          const page = searchPosts(
            stmts,
            { limit, offset, languageIds: languages, query, sort: "relevance" },
            bounds,
          );
          assert.deepEqual(
            page.map((p) => [p.postId, p.score]),
            pool.slice(offset, offset + limit).map((p) => [p.id, p.score]),
            `${terms} ${languages} ${offset}`,
          );
          compared += page.length;
        }
        // Sorted by date, a post has the score it has when ranked.
        const ranked = new Map(all.map((hit) => [hit.id, hit.score]));
        const byDate = searchPosts(
          stmts,
          { limit: 200, offset: 0, languageIds: languages, query, sort: "date" },
          bounds,
        );
        for (const p of byDate) assert.equal(p.score, ranked.get(p.postId), `${terms} post ${p.postId}`);
      }
    }
    assert.ok(compared > 400, `only ${compared} hits compared`);
    assert.ok(sizes.overPool >= 5 && sizes.underPool >= 5, JSON.stringify(sizes));
  });

  it("pages hits by clicks exactly at deep offsets: across the last clicked hits, into the unclicked ones from either end", () => {
    const reference = db.prepare(`SELECT p.id, p.clicks FROM posts p
      WHERE p.date_key IN (SELECT rowid FROM posts_fts WHERE posts_fts MATCH ?)
      AND (? IS NULL OR p.language_id IN (SELECT value FROM json_each(?)))
      ORDER BY p.clicks DESC, p.id DESC`);
    let compared = 0;
    let ends = 0;
    for (const terms of ["the", "rust", "data OR security", "the* the", '"open source" open']) {
      const match = toFts5Match(parseSearchQuery(terms))!;
      for (const languageIds of languageSets) {
        const languages = languageIds === null ? null : JSON.stringify(languageIds);
        const every = reference.raw().all(match, languages, languages) as Array<[number, number]>;
        const clickedHits = every.filter(([, clicks]) => clicks > 0).length;
        const unclicked = every.length - clickedHits;
        const limit = 25;
        // Within the clicked hits, straddling their end, just past it, either side of the
        // unclicked hits' middle (where the sort turns to the oldest end), the last pages, beyond.
        const offsets = [
          Math.floor(clickedHits / 2),
          clickedHits - limit,
          clickedHits - 7,
          clickedHits,
          clickedHits + 3,
          clickedHits + Math.floor(unclicked / 2) - limit,
          clickedHits + Math.floor(unclicked / 2) - 5,
          clickedHits + Math.floor(unclicked / 2) + 1,
          every.length - limit - 1,
          every.length - 9,
          every.length,
        ].filter((offset) => offset > 0);
        for (const offset of offsets) {
          const page = searchPosts(stmts, {
            limit,
            offset,
            languageIds,
            query: parseSearchQuery(terms),
            sort: "clicks",
          });
          const expected = every.slice(offset, offset + limit).map(([id]) => id);
          assert.deepEqual(
            page.map((p) => p.postId),
            expected,
            `${terms} ${languages} ${offset} (${clickedHits} clicked of ${every.length})`,
          );
          compared += expected.length;
        }
        // A page from just inside the clicked hits to past the last hit: the unclicked hits'
        // number, taken from the clicked ones' end, decides how many rows the page gets.
        if (clickedHits > 3 && unclicked > 0 && unclicked <= 990) {
          const page = searchPosts(stmts, {
            limit: unclicked + 8,
            offset: clickedHits - 3,
            languageIds,
            query: parseSearchQuery(terms),
            sort: "clicks",
          });
          const expected = every.slice(clickedHits - 3).map(([id]) => id);
          assert.deepEqual(
            page.map((p) => p.postId),
            expected,
            `${terms} ${languages} to the end`,
          );
          ends += 1;
        }
      }
    }
    assert.ok(compared > 2000, `only ${compared} rows compared`);
    assert.ok(ends >= 3, `only ${ends} pages reached the last hit`);
  });

  it("finds the most clicked hits the same way from the clicked posts as from the hits", () => {
    for (const terms of queries) {
      for (const languageIds of languageSets) {
        const match = searchMatch(parseSearchQuery(terms), languageIds)!;
        const filter = { match, languages: languageIds === null ? null : JSON.stringify(languageIds) };
        for (const want of [1, 20, 300]) {
          const gathered = gatherClicked(stmts, filter, want);
          assert.deepEqual(
            walkClicked(stmts, filter, want, Number.MAX_SAFE_INTEGER),
            gathered,
            `${match} ${want}`,
          );
          // Scored on the way: each score is the hit's own, as one seek computes it.
          const sample = rankingStats(stmts, parseSearchQuery(terms), 2048, languageIds?.length ?? 0);
          const sql = scoreSql(sample.args.length - 1);
          const scored = { sql, args: sample.args, scores: new Map<number, number>() };
          assert.deepEqual(walkClicked(stmts, filter, want, Number.MAX_SAFE_INTEGER, scored), gathered);
          const one = db
            .prepare(`SELECT ${sql} FROM posts_fts WHERE posts_fts MATCH ? AND rowid = CAST(? AS INTEGER)`)
            .pluck();
          assert.deepEqual(
            gathered.map((key) => scored.scores.get(key)),
            gathered.map((key) => one.get(...sample.args, match, key)),
            `${match} ${want} scores`,
          );
          // The same from the hits' keys when a count has read them all already.
          const hitKeys = db
            .prepare("SELECT rowid FROM posts_fts WHERE posts_fts MATCH ?")
            .pluck()
            .all(match);
          assert.deepEqual(
            gatherClicked(stmts, filter, want, hitKeys as number[]),
            gathered,
            `${match} ${want} keys`,
          );
        }
      }
    }
  });

  it("finds the most clicked hits within a range of date keys, scored on the way, as a full sort does", () => {
    const allKeys = db.prepare("SELECT date_key FROM posts ORDER BY date_key").pluck().all() as number[];
    const at = (share: number) => allKeys[Math.floor(share * (allKeys.length - 1))]!;
    // Every key; the newest posts (the sample's own range); a slice in the middle, below the
    // newest posts; a range of one post; and a range between two keys that holds none.
    const ranges = [
      { low: allKeys[0]!, high: allKeys.at(-1)! },
      { low: at(0.9), high: allKeys.at(-1)! },
      { low: at(0.2), high: at(0.6) },
      { low: at(0.5), high: at(0.5) },
      { low: at(0.5) + 1, high: at(0.5) + 1 },
    ];
    const reference = db.prepare(`SELECT p.date_key FROM posts p
      WHERE p.date_key IN (SELECT rowid FROM posts_fts WHERE posts_fts MATCH ?)
      AND p.date_key BETWEEN ? AND ? ORDER BY p.clicks DESC, p.id DESC`);
    const clicks = db.prepare("SELECT clicks FROM posts WHERE date_key = ?").pluck();
    const idOf = db.prepare("SELECT id FROM posts WHERE date_key = ?").pluck();
    let compared = 0;
    let idsRead = 0;
    for (const terms of queries) {
      for (const languageIds of languageSets) {
        const match = searchMatch(parseSearchQuery(terms), languageIds)!;
        const languages = languageIds === null ? null : JSON.stringify(languageIds);
        const sample = rankingStats(stmts, parseSearchQuery(terms), 2048, languageIds?.length ?? 0);
        const sql = scoreSql(sample.args.length - 1);
        const one = db
          .prepare(`SELECT ${sql} FROM posts_fts WHERE posts_fts MATCH ? AND rowid = CAST(? AS INTEGER)`)
          .pluck();
        for (const keys of ranges) {
          const filter = { match, languages, keys };
          const expected = reference.pluck().all(match, keys.low, keys.high) as number[];
          const clicked = expected.filter((key) => (clicks.get(key) as number) > 0);
          for (const want of [1, 20, 300]) {
            assert.deepEqual(
              walkClicked(stmts, filter, want, Number.MAX_SAFE_INTEGER),
              clicked.slice(0, want),
              `${match} ${JSON.stringify(keys)} ${want} walk`,
            );
            assert.deepEqual(
              gatherClicked(stmts, filter, want),
              clicked.slice(0, want),
              `${match} ${JSON.stringify(keys)} ${want} gather`,
            );
          }
          // Every hit's post sorted by clicks (the way in when every key is known and few).
          const shuffled = [...expected].sort((x, y) => ((x * 7919) % 1009) - ((y * 7919) % 1009) || x - y);
          for (const [offset, limit] of [
            [0, 20],
            [5, 1000],
            [Math.max(0, clicked.length - 3), 10],
          ] as const) {
            assert.deepEqual(
              sortedByClicks(stmts, shuffled, offset, limit),
              expected.slice(offset, offset + limit),
              `${match} ${JSON.stringify(keys)} sorted ${offset}`,
            );
          }
          // Pages past the clicked hits too; 1,000 posts scores every hit on the read that counts
          // them, 20 does not (the seeks after cost less): either way each score is the hit's own.
          for (const [offset, limit] of [
            [0, 20],
            [0, 1000],
            [Math.max(0, clicked.length - 5), 20],
          ] as const) {
            const scored = { sql, args: sample.args, scores: new Map<number, number>() };
            const page = mostClickedHitPage(stmts, filter, offset, limit, scored);
            assert.deepEqual(
              page.keys,
              expected.slice(offset, offset + limit),
              `${match} ${JSON.stringify(keys)} ${offset} ${limit}`,
            );
            for (const [key, score] of scored.scores) {
              assert.equal(score, one.get(...sample.args, match, key), `${match} ${key} score`);
            }
            // The post ids read with the keys are the keys' own.
            for (const [key, id] of page.ids) assert.equal(id, idOf.get(key), `${match} ${key} id`);
            idsRead += page.ids.size;
            compared += page.keys.length;
          }
        }
      }
    }
    assert.ok(compared > 5_000, `only ${compared} hits compared`);
    assert.ok(idsRead > 1_000, `only ${idsRead} ids read with their keys`);
  });

  it("finds the most clicked hits from a small sample's estimate, and scores a finding query's page with the whole one", () => {
    // A sample of 2,048 of the ~22,000 posts estimates the hits: common words then skip the exact
    // read of every hit (gathering from the index instead), and pages of 1,000 score every hit on
    // the read with the whole MATCH even when a smaller one finds the posts (`find`).
    const reference = db.prepare(`SELECT p.date_key, p.clicks FROM posts p
      WHERE p.date_key IN (SELECT rowid FROM posts_fts WHERE posts_fts MATCH ?)
      ORDER BY p.clicks DESC, p.id DESC`);
    let estimated = 0;
    let scoredOnRead = 0;
    let readWhole = 0;
    for (const terms of [...queries, "the data", "title:the the", '"open source" open source']) {
      const parsed = parseSearchQuery(terms);
      const find = findingQuery(parsed);
      for (const languageIds of languageSets) {
        const match = searchMatch(parsed, languageIds)!;
        const filter = {
          match,
          find: find === parsed ? match : searchMatch(find, languageIds)!,
          languages: languageIds === null ? null : JSON.stringify(languageIds),
        };
        const expected = reference.raw().all(match) as Array<[number, number]>;
        const exact = expected.length;
        const sample = rankingStats(stmts, parsed, 2048, languageIds?.length ?? 0);
        const sql = scoreSql(sample.args.length - 1);
        const one = db
          .prepare(`SELECT ${sql} FROM posts_fts WHERE posts_fts MATCH ? AND rowid = CAST(? AS INTEGER)`)
          .pluck();
        const clicked = expected.filter(([, clicks]) => clicks > 0).length;
        for (const [offset, limit] of [
          [0, 20],
          [0, 1000],
          [Math.max(0, clicked - 7), 20],
          [500, 1000],
        ] as const) {
          const scored = { sql, args: sample.args, scores: new Map<number, number>() };
          const page = mostClickedHitPage(stmts, filter, offset, limit, scored, 2048);
          const keys = expected.slice(offset, offset + limit).map(([key]) => key);
          assert.deepEqual(page.keys, keys, `${match} ${offset} ${limit}`);
          for (const [key, score] of scored.scores) {
            assert.equal(score, one.get(...sample.args, match, key), `${match} ${key} score`);
          }
          if (page.hits !== exact) estimated++;
          // A page past the clicked hits that scores every hit on one read knows their number.
          if (offset + limit > clicked && page.hits === exact) readWhole++;
          if (keys.length > 0 && keys.every((key) => scored.scores.has(key))) scoredOnRead++;
        }
      }
    }
    assert.ok(estimated > 10, `only ${estimated} pages took the sample's estimate`);
    assert.ok(readWhole > 10, `only ${readWhole} pages past the clicked hits read every hit`);
    assert.ok(scoredOnRead > 10, `only ${scoredOnRead} pages scored on a read`);
  });

  it("searches by clicks and by date with operators as a full sort does: dates, one language, feeds, with words or none, at any depth", async () => {
    // Dates as ranges of keys on the clicked posts' indexes, one language's clicked posts from
    // its own index, the post ids of the clicked hits read with their keys: each page the
    // reference's, across the clicked posts' end into the unclicked ones (ties by id), and the
    // middle, last and past-the-end pages (the skips of the hits before a deep page) in both orders.
    const days = db.prepare("SELECT min(post_date), max(post_date) FROM posts").raw().get() as [
      number,
      number,
    ];
    const day = (share: number) => new Date(days[0] + share * (days[1] - days[0])).toISOString().slice(0, 10);
    const codes = db.prepare("SELECT id, code FROM languages").raw().all() as Array<[number, string]>;
    const codeOf = new Map(codes);
    const feedWord = "archive";
    const archiveId = db.prepare("SELECT id FROM feeds WHERE name = 'Archive'").pluck().get() as number;
    const resolve = (terms: string) => {
      const parsed = parseSearchQuery(terms);
      const atom = (a: SearchAtom): SearchAtom =>
        isFilter(a) && a.kind === "lang"
          ? { ...a, languageIds: codes.filter(([, code]) => a.codes.includes(code)).map(([id]) => id) }
          : isFilter(a) && a.kind === "feed"
            ? { ...a, feedIds: [archiveId] }
            : a;
      return { ...parsed, filterClauses: parsed.filterClauses?.map((clause) => clause.map(atom)) };
    };
    const all = db
      .prepare(
        `SELECT id, post_date, language_id, feed_id, date_key FROM posts ORDER BY clicks DESC, id DESC`,
      )
      .raw()
      .all() as Array<[number, number, number, number, number]>;
    const byDate = [...all].sort((a, b) => b[1] - a[1] || b[0] - a[0]);
    const hitsOf = db.prepare("SELECT rowid FROM posts_fts WHERE posts_fts MATCH ?").pluck();
    const clickedCount = db.prepare("SELECT count(*) FROM posts WHERE clicks > 0").pluck().get() as number;
    const cases: Array<
      [terms: string, languageIds: number[] | null, pass: (row: (typeof all)[0]) => boolean]
    > = [];
    for (const share of [0.1, 0.5, 0.95]) {
      const from = Date.parse(`${day(share)}T00:00:00Z`);
      cases.push([`after:${day(share)}`, null, (r) => r[1] >= from]);
      // `before:` takes in its own day (search-operators.ts).
      cases.push([`before:${day(share)}`, null, (r) => r[1] < from + DAY]);
      cases.push([`after:${day(share)}`, [3], (r) => r[1] >= from && r[2] === 3]);
      cases.push([`lang:${codeOf.get(4)} after:${day(share)}`, null, (r) => r[1] >= from && r[2] === 4]);
    }
    cases.push([`lang:${codeOf.get(3)}`, null, (r) => r[2] === 3]);
    cases.push([`lang:${codeOf.get(3)} lang:${codeOf.get(4)}`, null, () => false]);
    cases.push([`feed:${feedWord}`, [4], (r) => r[3] === archiveId && r[2] === 4]);
    const mid = Date.parse(`${day(0.5)}T00:00:00Z`);
    const the = new Set(hitsOf.all('"the"') as number[]);
    const data = new Set(hitsOf.all('"data"') as number[]);
    cases.push([`the after:${day(0.5)}`, null, (r) => r[1] >= mid && the.has(r[4])]);
    cases.push([`the feed:${feedWord}`, null, (r) => r[3] === archiveId && the.has(r[4])]);
    // Filters the index does not answer (an OR of them): each hit read is checked, none skipped.
    cases.push([
      `the feed:${feedWord} OR after:${day(0.5)}`,
      null,
      (r) => (r[3] === archiveId || r[1] >= mid) && the.has(r[4]),
    ]);
    cases.push([
      `data feed:${feedWord} after:${day(0.5)}`,
      [1],
      (r) => r[3] === archiveId && r[2] === 1 && r[1] >= mid && data.has(r[4]),
    ]);
    let compared = 0;
    for (const sort of ["clicks", "date"] as const) {
      for (const [terms, languageIds, pass] of cases) {
        const expected = (sort === "clicks" ? all : byDate).filter(pass).map(([id]) => id);
        const n = expected.length;
        for (const [offset, limit] of [
          [0, 20],
          [0, 1000],
          [Math.max(0, Math.min(clickedCount, n) - 7), 20],
          [Math.floor(n / 2), 20],
          [Math.max(0, n - 1), 20],
          [n, 20],
        ] as const) {
          const page = await store.searchPosts({ query: resolve(terms), sort, languageIds, limit, offset });
          assert.deepEqual(
            page.map((p) => p.postId),
            expected.slice(offset, offset + limit),
            `${sort} ${terms} ${JSON.stringify(languageIds)} ${offset} ${limit}`,
          );
          compared += page.length;
        }
      }
    }
    assert.ok(compared > 10_000, `only ${compared} posts compared`);
  });

  it("samples the newest posts of a range of date keys", () => {
    const allKeys = db.prepare("SELECT date_key FROM posts ORDER BY date_key DESC").pluck().all() as number[];
    const size = 500;
    // The newest posts of all (the range reaches them), of a range below them, and none when the
    // range holds fewer than the sample.
    assert.deepEqual(sampleIn(stmts, { low: allKeys.at(-1)!, high: allKeys[0]! }, size), {
      from: allKeys[size - 1],
      to: allKeys[0],
    });
    assert.deepEqual(sampleIn(stmts, { low: allKeys.at(-1)!, high: allKeys[3000]! }, size), {
      from: allKeys[3000 + size - 1],
      to: allKeys[3000],
    });
    assert.equal(sampleIn(stmts, { low: allKeys[3000 + size - 2]!, high: allKeys[3000]! }, size), null);
    assert.equal(sampleIn(stmts, { low: allKeys[size - 2]!, high: allKeys[0]! }, size), null);
    // Ranges of several sizes asked in turn (a search by clicks asks for two) are each their own.
    for (const each of [size, 2048, size, 2048, allKeys.length, allKeys.length - 1]) {
      const expected = each < allKeys.length ? { from: allKeys[each - 1], to: allKeys[0] } : null;
      assert.deepEqual(newestKeyRange(stmts, each), expected, `${each}`);
    }
  });

  it("ranks prolific feeds from the running sums as counting the posts does", () => {
    const reference = db.prepare(`SELECT feed_id, count(*) AS n FROM posts WHERE post_date >= ?
      GROUP BY feed_id ORDER BY n DESC, feed_id LIMIT ?`);
    for (const days of [0.5, 1, 45, 400, 36_500]) {
      for (const limit of [1, 20, 1000]) {
        const args = { since: NOW - days * DAY, limit };
        const expected = reference.raw().all(args.since, limit);
        assert.deepEqual(
          mostProlificFeeds(stmts, args).map((f) => [f.feedId, f.periodPosts]),
          expected,
          `${days}d ${limit}`,
        );
      }
    }
  });

  it("ranks popular feeds from the running sums as counting the clicks does", () => {
    const reference =
      db.prepare(`SELECT p.feed_id, count(*) AS n FROM clicks k JOIN posts p ON p.id = k.post_id
      WHERE k.clicked_at >= ? GROUP BY p.feed_id ORDER BY n DESC, p.feed_id LIMIT ?`);
    for (const days of [0.5, 1, 10, 45, 36_500]) {
      for (const limit of [1, 20, 1000]) {
        const args = { since: NOW - days * DAY, limit };
        const expected = reference.raw().all(args.since, limit);
        assert.deepEqual(
          mostPopularFeeds(stmts, args).map((f) => [f.feedId, f.periodClicks]),
          expected,
          `${days}d ${limit}`,
        );
      }
    }
  });

  it("ranks popular posts as a plain count of the window's clicks does, old clicks of the most clicked posts included", async () => {
    // Posts whose all-time counts lead by far but whose clicks are mostly months old (the bound
    // a walk by all-time clicks stops on is weak there), and posts clicked 16 to 70 times within
    // days (counted past the consecutive levels); the clicks are stored out of time order.
    const next = lcgDraws(11);
    const ids = db.prepare("SELECT id FROM posts ORDER BY id").pluck().all() as number[];
    const pick = () => ids[Math.floor(next() * ids.length)]!;
    const heavy: Array<{ postId: number; clientHash: string; at: number }> = [];
    for (let i = 0; i < 40; i++) {
      const postId = pick();
      const old = 30 + Math.floor(next() * 60);
      for (let k = 0; k < old; k++) {
        heavy.push({ postId, clientHash: `old-${i}-${k}`, at: NOW - Math.floor((200 + next() * 300) * DAY) });
      }
      for (let k = 0; k < i % 4; k++) {
        heavy.push({ postId, clientHash: `new-${i}-${k}`, at: NOW - Math.floor(next() * 40 * DAY) });
      }
    }
    for (let i = 0; i < 30; i++) {
      const postId = pick();
      const n = 16 + Math.floor(next() * 55);
      for (let k = 0; k < n; k++) {
        heavy.push({ postId, clientHash: `recent-${i}-${k}`, at: NOW - Math.floor(next() * 8 * DAY) });
      }
    }
    heavy.sort(() => next() - 0.5);
    await store.insertClicks(heavy);
    const reference = db.prepare(`SELECT p.id, count(*) AS n, p.post_date FROM clicks k
      JOIN posts p ON p.id = k.post_id WHERE k.clicked_at >= ? AND (? IS NULL OR p.category_id = ?)
      GROUP BY p.id ORDER BY n DESC, p.post_date DESC, p.id DESC LIMIT ?`);
    const clicks = db.prepare("SELECT count(*) FROM clicks").pluck().get() as number;
    const allTimeTop = db
      .prepare("SELECT id FROM posts ORDER BY clicks DESC, post_date DESC, id DESC LIMIT 20")
      .pluck()
      .all() as number[];
    let compared = 0;
    let weak = 0;
    // Windows from a few hours to all time, and one from the oldest click on; no category, the
    // demo's, none held.
    const oldest = db.prepare("SELECT min(clicked_at) FROM clicks").pluck().get() as number;
    const sinces = [0.2, 1, 3, 10, 30, 45, 60, 89, 150, 400, 36_500].map((days) => NOW - days * DAY);
    for (const since of [...sinces, oldest, oldest + 1]) {
      for (const categoryId of [null, 1, 2, 3, 999]) {
        for (const limit of [1, 20, 1000]) {
          const args = { since, limit, categoryId };
          const label = `${(NOW - since) / DAY}d ${categoryId} ${limit}`;
          const expected = reference.raw().all(since, categoryId, categoryId, limit) as Array<
            [number, number, number]
          >;
          assert.deepEqual(rankByLevels(stmts, args), expected, `levels ${label}`);
          assert.deepEqual(
            mostPopularPosts(stmts, args).map((p) => [p.postId, p.periodClicks, p.postDate]),
            expected,
            `store ${label}`,
          );
          compared += expected.length;
          // The all-time leaders out of a window's first 20: the case the old walk read far for.
          if (categoryId === null && limit === 20) {
            const top = new Set(expected.map(([id]) => id));
            if (allTimeTop.filter((id) => !top.has(id)).length >= 10) weak++;
          }
        }
      }
    }
    assert.ok(weak >= 3, `only ${weak} windows where the all-time leaders are not the window's`);
    assert.ok(clicks > 1000 && compared > 10_000, `only ${compared} rows compared of ${clicks} clicks`);
  });

  it("counts the window clicks of posts past the consecutive levels from ordinals kept through deletes and moves", () => {
    // Clicks deleted between others (nearer the oldest, nearer the newest) and at both ends of the
    // most clicked posts, then a click moved to another post and time (a copy over an existing
    // row): the ordinals stay consecutive in click order, and the ranking stays a plain count.
    const heavy = db
      .prepare(`SELECT post_id FROM clicks GROUP BY post_id HAVING count(*) >= ${2 * CONSECUTIVE_LEVELS}
        ORDER BY count(*) DESC, post_id LIMIT 3`)
      .pluck()
      .all() as number[];
    assert.equal(heavy.length, 3);
    const clicksOf = (postId: number) =>
      db
        .prepare("SELECT id FROM clicks WHERE post_id = ? ORDER BY clicked_at, id")
        .pluck()
        .all(postId) as number[];
    const remove = db.prepare("DELETE FROM clicks WHERE id = ?");
    for (const postId of heavy) {
      const ids = clicksOf(postId);
      const n = ids.length;
      for (const at of [1, n - 2, Math.floor(n / 3), Math.floor((2 * n) / 3), 0, n - 1]) remove.run(ids[at]);
      assert.deepEqual(brokenOrdinals(db), [], `after deletes on post ${postId}`);
    }
    const reference = db.prepare(`SELECT p.id, count(*) AS n, p.post_date FROM clicks k
      JOIN posts p ON p.id = k.post_id WHERE k.clicked_at >= ? GROUP BY p.id
      ORDER BY n DESC, p.post_date DESC, p.id DESC LIMIT ?`);
    for (const days of [1, 5, 45, 300, 36_500]) {
      for (const limit of [1, 20, 1000]) {
        const since = NOW - days * DAY;
        assert.deepEqual(
          rankByLevels(stmts, { since, limit, categoryId: null }),
          reference.raw().all(since, limit),
          `${days}d ${limit} after deletes`,
        );
      }
    }
    const [from, to] = heavy as [number, number];
    const moved = db.prepare("SELECT id, clicked_at FROM clicks WHERE id = ?").get(clicksOf(from)[5]) as {
      id: number;
      clicked_at: number;
    };
    const move = db.prepare("UPDATE clicks SET post_id = ?, clicked_at = ? WHERE id = ?");
    move.run(to, NOW - 3 * DAY, moved.id);
    assert.deepEqual(brokenOrdinals(db), [], "after a click moved");
    // Moved back: the levels (which follow inserts and deletes only) are right again.
    move.run(from, moved.clicked_at, moved.id);
    assert.deepEqual(brokenOrdinals(db), [], "after the click moved back");
  });

  it("keeps the newest keys while only other tables are written, and reads them again when the index changes", async () => {
    const keys = () =>
      db.prepare("SELECT date_key FROM posts ORDER BY date_key DESC").pluck().all() as number[];
    const size = 500;
    const kept = newestKeyRange(stmts, size)!;
    assert.deepEqual(kept, { from: keys()[size - 1], to: keys()[0] });
    // The newest key moved behind the index's back, then a search recorded (every search writes
    // the history): the index is unchanged, so the range is the one kept, not read again.
    const move = db.prepare("UPDATE posts SET date_key = date_key + ? WHERE date_key = ?");
    move.run(1, kept.to);
    await store.recordSearch("rust data", NOW);
    assert.deepEqual(newestKeyRange(stmts, size), kept);
    // A post stored writes its index row: the range is read again, and holds the moved key.
    const feed = await store.addFeed({ feedUrl: "https://newest.test/feed", feedName: "Newest" });
    await store.applyFeedUpdate(feed.feedId, {
      fetchState: {},
      posts: [incoming("newest-0", { publishedAt: NOW, title: "rust news" })],
    });
    const now = keys();
    assert.ok(now[0]! > kept.to);
    assert.deepEqual(newestKeyRange(stmts, size), { from: now[size - 1], to: now[0] });
    move.run(-1, kept.to + 1);
  });

  it("keeps each phrase's count among the newest posts until the index changes, and counts it again then", async () => {
    const size = 500;
    // A connection's statements, each run of the sample's count statement counted.
    let counted = 0;
    const own = new StatementCache(db);
    const get = own.get.bind(own);
    own.get = (sql: string) => {
      const stmt = get(sql);
      if (!/^SELECT count\(\*\) FROM posts_fts WHERE posts_fts MATCH/.test(sql)) return stmt;
      const counting: Database.Statement = new Proxy(stmt, {
        get(target, prop) {
          if (prop === "pluck") {
            return () => {
              target.pluck();
              return counting;
            };
          }
          if (prop === "get") {
            return (...args: unknown[]) => {
              counted++;
              return target.get(...args);
            };
          }
          const value = Reflect.get(target, prop);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      return counting;
    };
    // Counted afresh on a connection's statements of their own.
    const fresh = (terms: string) => rankingStats(new StatementCache(db), parseSearchQuery(terms), size).args;
    const stats = (terms: string) => rankingStats(own, parseSearchQuery(terms), size).args;
    assert.deepEqual(stats("rust data"), fresh("rust data"));
    assert.equal(counted, 2);
    // `data` is kept: only `news` is counted.
    assert.deepEqual(stats("data news"), fresh("data news"));
    assert.equal(counted, 3);
    // Other tables written (every search records its history): the index is the same, so are the counts.
    await store.recordSearch("rust data", NOW);
    assert.deepEqual(stats("news rust data"), fresh("news rust data"));
    assert.equal(counted, 3);
    // A post stored writes its index row: the sample moves, and each phrase is counted again.
    const feed = await store.addFeed({ feedUrl: "https://newer.test/feed", feedName: "Newer" });
    await store.applyFeedUpdate(feed.feedId, {
      fetchState: {},
      posts: [incoming("newer-0", { publishedAt: NOW + 1000, title: "rust data news" })],
    });
    const after = fresh("news rust data");
    assert.deepEqual(stats("news rust data"), after);
    assert.equal(counted, 6);
  });
});

describe("SQLite roll-ups", () => {
  it("equal a recount from the rows after inserts, edits, clicks and removals", async () => {
    const db = new Database(":memory:");
    migrateSqlite(db);
    const store = new SqliteStore(db);
    const day = (x: string) => `(${x} / 86400000 - (${x} % 86400000 < 0))`;
    // The running sums of schema 21 against a recount: sqlite-running-sums.test.ts.
    const recount = () => ({
      dayCounts: db
        .prepare(`SELECT ${day("post_date")} AS day, language_id, coalesce(category_id, 0) AS category_id,
          count(*) AS posts FROM posts GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`)
        .all(),
      keptDayCounts: db
        .prepare("SELECT day, language_id, category_id, posts FROM post_day_counts ORDER BY 1, 2, 3")
        .all(),
      byKey: db.prepare("SELECT id FROM posts ORDER BY date_key").pluck().all(),
      byDate: db.prepare("SELECT id FROM posts ORDER BY post_date, id").pluck().all(),
    });
    // Each post's n-th newest clicks (schema 26) against the same read from the clicks.
    const levels = () => ({
      kept: db
        .prepare(`SELECT post_id, level, category_key, post_date, clicked_at, click_id FROM post_click_levels
          ORDER BY post_id, level`)
        .all(),
      counted: db
        .prepare(`SELECT r.post_id, r.n AS level, coalesce(p.category_id, 0) AS category_key,
            p.post_date, r.clicked_at, r.id AS click_id
          FROM (SELECT post_id, clicked_at, id,
              row_number() OVER (PARTITION BY post_id ORDER BY clicked_at DESC, id DESC) AS n FROM clicks) r
          JOIN posts p ON p.id = r.post_id
          WHERE r.n <= ${CONSECUTIVE_LEVELS} OR (r.n % ${CONSECUTIVE_LEVELS} = 0
            AND ((r.n / ${CONSECUTIVE_LEVELS}) & (r.n / ${CONSECUTIVE_LEVELS} - 1)) = 0)
          ORDER BY r.post_id, r.n`)
        .all(),
    });
    const check = (when: string) => {
      const r = recount();
      assert.deepEqual(r.byKey, r.byDate, `date keys ${when}`);
      assert.deepEqual(r.keptDayCounts, r.dayCounts, `post_day_counts ${when}`);
      const l = levels();
      assert.deepEqual(l.kept, l.counted, `post_click_levels ${when}`);
      assert.deepEqual(brokenOrdinals(db), [], `click ordinals ${when}`);
    };
    await loadDemoData(store, { posts: 3000, now: NOW });
    check("after loading");
    const fr = (await store.ensureLanguage("fr")).languageId;
    const [first] = await store.recentPosts({ limit: 1, offset: 0, languageIds: null });
    const guid = (db.prepare("SELECT guid FROM posts WHERE id = ?").get(first!.postId) as { guid: string })
      .guid;
    await store.applyFeedUpdate(first!.feedId, {
      fetchState: {},
      posts: [incoming(guid, { publishedAt: Date.UTC(1969, 11, 31, 23), languageId: fr })],
    });
    check("after a post moved before 1970 and to another language");
    await store.insertClick(first!.postId, "x", Date.UTC(1969, 5, 1));
    check("after a click before 1970");
    // One post past the consecutive levels and two doublings, its clicks out of time order, some
    // at the same instant; then clicks at one instant on another post.
    const many = Array.from({ length: 70 }, (_, k) => ({
      postId: first!.postId,
      clientHash: `many-${k}`,
      at: NOW - ((k * 7919) % 50) * 3_600_000,
    }));
    await store.insertClicks(many);
    check("after 70 clicks on one post out of order");
    await store.applyFeedUpdate(first!.feedId, {
      fetchState: {},
      posts: [incoming(guid, { publishedAt: NOW - 2 * DAY, languageId: fr })],
    });
    check("after a clicked post moved to another date");
    // Clicks written as several at once, the counter moved once by all of them, as a story takes
    // its copies' clicks: past several levels in one step.
    const insertRaw = db.prepare("INSERT INTO clicks (post_id, clicked_at, client_hash) VALUES (?, ?, ?)");
    for (let k = 0; k < 40; k++) insertRaw.run(first!.postId, NOW - ((k * 31) % 90) * DAY, `raw-${k}`);
    db.prepare("UPDATE posts SET clicks = clicks + 40 WHERE id = ?").run(first!.postId);
    check("after 40 clicks counted at once");
    const second = db
      .prepare("SELECT id AS postId, feed_id AS feedId FROM posts WHERE feed_id <> ? AND clicks > 0 LIMIT 1")
      .get(first!.feedId) as { postId: number; feedId: number };
    for (let k = 0; k < 20; k++) await store.insertClick(second.postId, `same-${k}`, NOW - DAY);
    check("after clicks at one instant");
    // A database put back to schema 25 (its migration rows deleted) takes migration 26 again:
    // the levels are built afresh from the clicks, and the triggers still follow new clicks.
    const keptLevels = levels().kept;
    const keptOrdinals = db.prepare("SELECT id, ordinal FROM clicks ORDER BY id").raw().all();
    db.exec("DELETE FROM schema_migrations WHERE version >= 26");
    migrateSqlite(db);
    assert.deepEqual(levels().kept, keptLevels, "post_click_levels after migration 26 ran again");
    // Numbered afresh from 1: the same differences, not necessarily the same values.
    assert.deepEqual(brokenOrdinals(db), [], "click ordinals after migration 27 ran again");
    assert.equal(db.prepare("SELECT count(*) FROM clicks").pluck().get(), keptOrdinals.length);
    await store.insertClick(second.postId, "after-rerun", NOW);
    check("after migration 26 ran again and a click");
    await store.removeFeed(second.feedId);
    check("after a clicked post's feed was removed");
    await store.removeCategory(1);
    check("after a category was removed");
    await store.removeFeed(first!.feedId);
    check("after a feed was removed");
    for (const feed of await store.adminFeeds()) await store.removeFeed(feed.feedId);
    check("after every feed was removed");
    assert.deepEqual(db.prepare("SELECT count(*) AS n FROM post_day_counts").get(), { n: 0 });
    await store.close();
  });

  it("are filled when an older database is upgraded", async () => {
    // The rows come from a database of today's schema (the store writes today's columns), copied
    // column by column into one at version 7, before the roll-ups; then the upgrade must fill them.
    const current = new Database(":memory:");
    migrateSqlite(current);
    const source = new SqliteStore(current);
    await loadDemoData(source, { posts: 500, now: NOW });
    const db = new Database(":memory:");
    migrateSqlite(db, 7);
    copyCommonColumns(current, db);
    await source.close();
    migrateSqlite(db);
    const n = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    assert.equal(n("SELECT count(*) AS n FROM posts"), 500, "the copy brought every post");
    assert.ok(n("SELECT count(*) AS n FROM clicks") > 0, "and clicks");
    assert.equal(n("SELECT sum(posts) AS n FROM post_day_counts"), n("SELECT count(*) AS n FROM posts"));
    assert.equal(
      n("SELECT sum(n) AS n FROM feed_post_sums WHERE level = 2"),
      n("SELECT count(*) AS n FROM posts"),
    );
    assert.equal(
      n("SELECT sum(n) AS n FROM feed_click_sums WHERE level = 2"),
      n("SELECT count(*) AS n FROM clicks"),
    );
    // Schema 21 took the per-feed day roll-ups away, tables and triggers.
    assert.equal(
      n(
        "SELECT count(*) AS n FROM sqlite_master WHERE sql LIKE '%post_days%' OR sql LIKE '%feed_click_days%'",
      ),
      0,
    );
    // Schema 19 took the id blocks away, table and triggers.
    assert.equal(n("SELECT count(*) AS n FROM sqlite_master WHERE sql LIKE '%post_id_blocks%'"), 0);
    db.close();
  });

  it("answer the same after schema 19 on an upgraded database as on a fresh one, writes after it included", async () => {
    // The same corpus written at schema 18 (id blocks kept by the triggers) and at today's schema;
    // the first is then upgraded and both take the same writes: every roll-up and every read agree.
    const fresh = new Database(":memory:");
    migrateSqlite(fresh);
    const upgraded = new Database(":memory:");
    migrateSqlite(upgraded, 18);
    const stores = [new SqliteStore(fresh), new SqliteStore(upgraded)] as const;
    for (const store of stores) await loadDemoData(store, { posts: 1500, now: NOW, seed: 3 });
    assert.ok(
      (upgraded.prepare("SELECT count(*) FROM post_id_blocks").pluck().get() as number) > 0,
      "schema 17 kept the id blocks",
    );
    migrateSqlite(upgraded);
    assert.equal(
      upgraded.prepare("SELECT count(*) FROM sqlite_master WHERE sql LIKE '%post_id_blocks%'").pluck().get(),
      0,
      "schema 19 leaves no table or trigger of the id blocks",
    );
    const schema = (db: Database.Database) =>
      db
        .prepare("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite%' ORDER BY 1, 2")
        .all();
    assert.deepEqual(schema(upgraded), schema(fresh), "the upgraded schema is the fresh one");
    for (const store of stores) {
      const feed = await store.addFeed({ feedUrl: "https://after-19.test/feed", feedName: "After" });
      const posts = Array.from({ length: 30 }, (_, i) =>
        incoming(`after-${i}`, { title: `after nineteen ${i}`, publishedAt: NOW - i * 3 * DAY }),
      );
      await store.applyFeedUpdate(feed.feedId, { fetchState: {}, posts });
      await store.applyFeedUpdate(feed.feedId, {
        fetchState: {},
        posts: [incoming("after-3", { title: "after nineteen moved", publishedAt: NOW - 400 * DAY })],
      });
      const [top] = await store.recentPosts({ limit: 1, offset: 0, languageIds: null });
      await store.insertClick(top!.postId, "h", NOW - DAY);
    }
    const rollups = (db: Database.Database) =>
      [
        "post_day_counts ORDER BY 1, 2, 3",
        "feed_post_sums ORDER BY 1, 2, 3",
        "feed_click_sums ORDER BY 1, 2, 3",
      ].map((t) => db.prepare(`SELECT * FROM ${t}`).raw().all());
    assert.deepEqual(rollups(upgraded), rollups(fresh));
    const answers = async (store: SqliteStore) => {
      const search = (sort: "date" | "clicks" | "relevance") =>
        store.searchPosts({
          query: parseSearchQuery("after"),
          sort,
          offset: 0,
          limit: 50,
          languageIds: null,
        });
      return [
        await store.recentPosts({ limit: 40, offset: 700, languageIds: null }),
        await search("date"),
        await search("clicks"),
        await search("relevance"),
        await store.mostProlificFeeds({ since: NOW - 365 * DAY, limit: 10 }),
        await store.mostPopularFeeds({ since: NOW - 30 * DAY, limit: 10 }),
      ];
    };
    assert.deepEqual(await answers(stores[1]), await answers(stores[0]));
    for (const store of stores) await store.close();
  });
});

/**
 * Posts whose clicks' ordinals (schema 27) are not consecutive in click order (clicked_at, id),
 * with the ordinals they have: empty when every post's are.
 */
function brokenOrdinals(db: Database.Database): unknown[] {
  return db
    .prepare(`SELECT post_id, group_concat(ordinal) FROM (SELECT post_id, ordinal,
        ordinal - row_number() OVER (PARTITION BY post_id ORDER BY clicked_at, id) AS shift FROM clicks
        ORDER BY post_id, clicked_at, id)
      GROUP BY post_id HAVING count(DISTINCT shift) <> 1 OR count(shift) <> count(*)`)
    .raw()
    .all();
}

/** Columns a later migration renamed: the older name, as `to` has it, to today's. */
const renamedSince: Record<string, string> = { "languages.subtag": "filing_key" };

/** Copies every row of each ordinary table `to` has, in the columns both databases have. */
function copyCommonColumns(from: Database.Database, to: Database.Database): void {
  const columns = (db: Database.Database, table: string) =>
    (db.pragma(`table_info(${table})`) as Array<{ name: string }>).map((c) => c.name);
  const tables = to
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%' AND name NOT LIKE '%fts%' AND name <> 'schema_migrations' AND sql NOT LIKE 'CREATE VIRTUAL%'",
    )
    .pluck()
    .all() as string[];
  to.pragma("foreign_keys = OFF");
  to.transaction(() => {
    for (const table of tables) {
      const source = (c: string) => renamedSince[`${table}.${c}`] ?? c;
      const shared = columns(to, table).filter((c) => columns(from, table).includes(source(c)));
      if (shared.length === 0) continue;
      const list = shared.map((c) => `"${c}"`).join(", ");
      const insert = to.prepare(
        `INSERT OR REPLACE INTO "${table}" (${list}) VALUES (${shared.map(() => "?").join(", ")})`,
      );
      const read = shared.map((c) => `"${source(c)}"`).join(", ");
      for (const row of from.prepare(`SELECT ${read} FROM "${table}"`).raw().iterate()) {
        insert.run(...(row as unknown[]));
      }
    }
  })();
  to.pragma("foreign_keys = ON");
}

describe("SQLite day seek where the day counts hold few posts a row", () => {
  // 3,000 posts of 40 feeds in two categories, each on a day of its own over eight years, in three
  // languages, stored in random order: rows of one post, where the seek skips in the list's index;
  // and 2,000 posts of a third category on two days: rows of hundreds, where it counts the days.
  const db = new Database(":memory:");
  const stmts = new StatementCache(db);
  const store = new SqliteStore(db);
  const categories: number[] = [];
  const feeds: number[] = [];
  before(async () => {
    migrateSqlite(db);
    const next = lcgDraws(11);
    const de = (await store.ensureLanguage("de")).languageId;
    const fr = (await store.ensureLanguage("fr")).languageId;
    const languages = [1, de, fr];
    for (const name of ["Sparse A", "Sparse B", "Dense"])
      categories.push((await store.addCategory(name)).categoryId);
    for (let f = 0; f < 41; f++) {
      const categoryId = f === 40 ? categories[2]! : categories[f % 2]!;
      feeds.push(
        (await store.addFeed({ feedUrl: `https://f${f}.test/feed`, feedName: `F${f}`, categoryId })).feedId,
      );
    }
    const days = Array.from({ length: 3000 }, (_, i) => i);
    for (let i = days.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [days[i], days[j]] = [days[j]!, days[i]!];
    }
    const byFeed = new Map<number, IncomingPost[]>();
    for (const [i, day] of days.entries()) {
      const feedId = feeds[Math.floor(next() * 40)]!;
      const post = incoming(`sparse-${i}`, {
        publishedAt: NOW - day * DAY - Math.floor(next() * DAY),
        languageId: languages[Math.floor(next() * 3)]!,
      });
      byFeed.set(feedId, [...(byFeed.get(feedId) ?? []), post]);
    }
    for (const [feedId, posts] of byFeed) await store.applyFeedUpdate(feedId, { fetchState: {}, posts });
    const dense = Array.from({ length: 2000 }, (_, i) =>
      incoming(`dense-${i}`, { publishedAt: NOW - (i % 2) * DAY - i * 1000, languageId: languages[i % 3]! }),
    );
    await store.applyFeedUpdate(feeds[40]!, { fetchState: {}, posts: dense });
  });
  after(() => store.close());

  it("skips in the list's own index on sparse rows and counts days on dense ones, exactly either way", () => {
    const reference = db.prepare(`SELECT id FROM posts WHERE (? IS NULL OR category_id = ?) AND id > ?
      AND (? IS NULL OR language_id IN (SELECT value FROM json_each(?)))
      ORDER BY post_date DESC, id DESC LIMIT ? OFFSET ?`);
    const maxId = db.prepare("SELECT max(id) FROM posts").pluck().get() as number;
    // A sparse category's deep page skips most of its offset in the index; the dense one's lands
    // in a day counted, skipping within that day only.
    assert.ok(seekDay(stmts, { categoryId: categories[0]!, languageIds: null }, 1000)!.skip > 900);
    assert.ok(seekDay(stmts, { categoryId: categories[2]!, languageIds: null }, 1500)!.skip <= 1000);
    assert.ok(seekDay(stmts, { categoryId: categories[1]!, languageIds: [1] }, 300)!.skip > 250);
    // Several languages merge each language's ids in the process: the seek counts days for them.
    assert.ok(seekDay(stmts, { categoryId: categories[0]!, languageIds: [3, 1] }, 600)!.skip <= 1);
    for (const languageIds of [null, [1], [3, 1]] as Array<number[] | null>) {
      const languages = languageIds === null ? null : JSON.stringify(languageIds);
      for (const categoryId of [null, ...categories]) {
        for (const sincePostId of categoryId === null ? [0] : [0, 1, 1500, maxId - 700]) {
          const all = reference.pluck().all(categoryId, categoryId, sincePostId, languages, languages, -1, 0);
          for (const offset of [500, 777, Math.floor(all.length / 2), all.length - 20, all.length - 1]) {
            if (offset < 0) continue;
            for (const limit of [1, 20, 1000]) {
              const page =
                categoryId === null
                  ? recentPosts(stmts, { limit, offset, languageIds })
                  : postsByCategory(stmts, {
                      limit,
                      offset,
                      languageIds,
                      categoryId,
                      sincePostId: sincePostId === 0 ? null : sincePostId,
                      sinceDate: null,
                    });
              assert.deepEqual(
                page.map((p) => p.postId),
                all.slice(offset, offset + limit),
                `category ${categoryId} since ${sincePostId} ${languages} ${offset}+${limit} of ${all.length}`,
              );
            }
          }
        }
      }
    }
    for (const feedId of feeds.slice(0, 3)) {
      const all = db
        .prepare("SELECT id FROM posts WHERE feed_id = ? ORDER BY post_date DESC, id DESC")
        .pluck()
        .all(feedId);
      for (const offset of [0, 10, Math.floor(all.length / 2), all.length - 1]) {
        assert.deepEqual(
          postsByFeed(stmts, { feedId, limit: 20, offset }).map((p) => p.postId),
          all.slice(offset, offset + 20),
          `feed ${feedId} ${offset}`,
        );
      }
    }
  });
});
