/**
 * The early-stopping reads of SQLite against plain full sorts, on a demo corpus large enough for
 * the walks to stop early (20 id blocks) and with dates moved out of id order; and the roll-up
 * tables of migration 8 against a recount from the rows after every kind of write.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import Database from "better-sqlite3";
import { loadDemoData } from "../../demo/load-demo-data.js";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { incoming } from "../../test-support/store-contract/contract-fixture.js";
import { toFts5Match } from "./fts5-match.js";
import { gatherClicked, walkClicked } from "./sqlite-clicked-hits.js";
import { StatementCache } from "./sqlite-connection.js";
import { migrateSqlite } from "./sqlite-migrations.js";
import { newestCut, newestHitPage } from "./sqlite-newest-hits.js";
import { heavyWindowStarts, scanWindow, walkAllTime } from "./sqlite-popular-posts.js";
import { searchPosts } from "./sqlite-search-queries.js";
import { SqliteStore } from "./sqlite-store.js";
import { rankingStats } from "./sqlite-term-sample.js";

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 0, 10, 12);

describe("SQLite bounded reads", () => {
  const db = new Database(":memory:");
  const stmts = new StatementCache(db);
  const store = new SqliteStore(db);
  before(async () => {
    migrateSqlite(db);
    await loadDemoData(store, { posts: 20_000, now: NOW });
    // Dates out of id order: old posts moved to the newest day, new ones back by 60 days.
    db.exec(`UPDATE posts SET post_date = post_date + 85 * ${DAY} WHERE id % 97 = 0 AND id < 3000;
      UPDATE posts SET post_date = post_date - 60 * ${DAY} WHERE id % 89 = 0 AND id > 17000;`);
  });
  after(() => store.close());

  const matches = ['"the"', '"data" OR "security"', '"rust"', '"the" AND "new"', '"le"', '"zzzunknown"'];

  it("finds the newest hits exactly, at any offset and with languages", () => {
    const reference = db.prepare(`SELECT t.rowid, p.post_date FROM posts_fts t JOIN posts p ON p.id = t.rowid
      WHERE posts_fts MATCH ? AND (? IS NULL OR p.language_id IN (SELECT value FROM json_each(?)))
      ORDER BY p.post_date DESC, p.id DESC LIMIT ? OFFSET ?`);
    let compared = 0;
    for (const match of matches) {
      for (const languages of [null, "[1]", "[3,4]"]) {
        for (const [offset, limit] of [
          [0, 20],
          [0, 1000],
          [37, 5],
          [2500, 20],
          [7000, 50],
        ] as const) {
          const expected = reference.raw().all(match, languages, languages, limit, offset);
          const actual = newestHitPage(stmts, { match, languages }, offset, limit);
          assert.deepEqual(actual, expected, `${match} ${languages} ${offset}+${limit}`);
          compared += expected.length;
        }
      }
    }
    assert.ok(compared > 10_000, `only ${compared} hits compared`);
  });

  it("ranks the 10,000 newest hits by relevance when more match, with ids out of date order", async () => {
    const match = '"the" OR "le" OR "der"';
    const all = db
      .prepare(`SELECT t.rowid AS id, p.post_date AS date, -bm25(posts_fts, 4.0, 1.0, 2.0) AS score
        FROM posts_fts t JOIN posts p ON p.id = t.rowid WHERE posts_fts MATCH ?`)
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

  it("cuts the newest hits from block counts exactly where sorting every hit cuts them", () => {
    const reference = db.prepare(`SELECT p.post_date, t.rowid FROM posts_fts t JOIN posts p ON p.id = t.rowid
      WHERE posts_fts MATCH ? ORDER BY p.post_date DESC, p.id DESC LIMIT 1 OFFSET ?`);
    const inside = db.prepare(`SELECT count(*) FROM posts_fts t JOIN posts p ON p.id = t.rowid
      WHERE posts_fts MATCH ? AND t.rowid BETWEEN ? AND ? AND (p.post_date, p.id) >= (?, ?)`);
    const inRange = db.prepare(`SELECT t.rowid, p.post_date FROM posts_fts t JOIN posts p ON p.id = t.rowid
      WHERE posts_fts MATCH ? AND t.rowid BETWEEN ? AND ?`);
    let cuts = 0;
    let withOlder = 0;
    for (const match of matches) {
      for (const want of [1, 20, 777, 3000, 10_000, 19_999]) {
        const expected = reference.raw().get(match, want - 1) as [number, number] | undefined;
        const cut = newestCut(stmts, { match, languages: null }, want);
        if (expected === undefined) {
          assert.equal(cut, null, `${match} ${want}`);
          continue;
        }
        assert.ok(cut !== null, `${match} ${want}`);
        assert.deepEqual([cut.date, cut.id], expected, `${match} ${want}`);
        // The range holds every hit at least as new as the cut, so the pool is exactly `want` hits.
        assert.equal(inside.pluck().get(match, cut.from, cut.to, cut.date, cut.id), want, `${match} ${want}`);
        cuts++;
        if (cut.older !== undefined) {
          // The hits of the range older than the cut, exactly: the pool is the range without them.
          const ranged = inRange.raw().all(match, cut.from, cut.to) as Array<[number, number]>;
          const older = ranged
            .filter(([id, date]) => date < cut.date || (date === cut.date && id < cut.id))
            .map(([id]) => id);
          assert.deepEqual(
            [...cut.older].sort((a, b) => a - b),
            older.sort((a, b) => a - b),
            `${match} ${want}`,
          );
          withOlder++;
        }
      }
    }
    assert.ok(cuts > 15, `only ${cuts} cuts compared`);
    assert.ok(withOlder >= 5, `only ${withOlder} cuts listed their older hits`);
  });

  it("ranks by bm25 with term statistics counted on the newest ids when the database has more", () => {
    const bounds = { termSampleIds: 4096, relevancePool: 600 };
    const newest = db.prepare("SELECT max(id) FROM posts").pluck().get() as number;
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
      const stats = rankingStats(stmts, query, bounds.termSampleIds).args;
      const counts = phrases.map(
        (phrase) =>
          (hitsOf.all(phrase) as number[]).filter((id) => id > newest - bounds.termSampleIds).length,
      );
      assert.deepEqual(stats.slice(0, 1 + phrases.length), [bounds.termSampleIds, ...counts], terms);
      // The exclusions' counts are not taken: they never occur in a matching post.
      assert.ok(
        stats.slice(1 + phrases.length).every((n) => n === 0),
        terms,
      );
      const match = toFts5Match(query)!;
      for (const languages of [null, [1], [3, 4]]) {
        const all = db
          .prepare(`SELECT t.rowid AS id, p.post_date AS date, p.language_id AS language,
              sampled_bm25(posts_fts, NULL, 4.0, 1.0, 2.0${", ?".repeat(stats.length)}) AS score
            FROM posts_fts t JOIN posts p ON p.id = t.rowid WHERE posts_fts MATCH ?`)
          .all(...stats, match) as Array<{ id: number; date: number; language: number; score: number }>;
        const hits = all.filter((hit) => languages === null || languages.includes(hit.language));
        if (hits.length > bounds.relevancePool) sizes.overPool++;
        else if (hits.length > 0) sizes.underPool++;
        const pool = hits
          .sort((a, b) => b.date - a.date || b.id - a.id)
          .slice(0, bounds.relevancePool)
          .sort((a, b) => b.score - a.score || b.id - a.id);
        for (const [offset, limit] of [
          [0, 30],
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

  it("finds the most clicked hits the same way from the clicked posts as from the hits", () => {
    for (const match of matches) {
      for (const languages of [null, "[1]", "[3,4]"]) {
        const filter = { match, languages };
        for (const want of [1, 20, 300]) {
          const gathered = gatherClicked(stmts, filter, want);
          assert.deepEqual(
            walkClicked(stmts, filter, want, Number.MAX_SAFE_INTEGER),
            gathered,
            `${match} ${want}`,
          );
        }
      }
    }
  });

  it("ranks popular posts the same way by walking all-time counts as by scanning the window", () => {
    for (const days of [0.5, 1, 3, 10, 45, 36_500]) {
      for (const categoryId of [null, 1, 2]) {
        for (const limit of [1, 20, 1000]) {
          const args = { since: NOW - days * DAY, limit, categoryId };
          const scanned = scanWindow(stmts, args);
          assert.deepEqual(
            walkAllTime(stmts, args, Number.MAX_SAFE_INTEGER),
            scanned,
            `${days}d ${categoryId} ${limit}`,
          );
        }
      }
    }
  });
});

describe("SQLite popular posts warm-up windows", () => {
  it("start at the 28,000th and the 56,001st newest click, when there are that many", async () => {
    const db = new Database(":memory:");
    migrateSqlite(db);
    const stmts = new StatementCache(db);
    const store = new SqliteStore(db);
    const { feedId } = await store.addFeed({ feedUrl: "https://a.test/", feedName: "A" });
    await store.applyFeedUpdate(feedId, { fetchState: {}, posts: [incoming("g", { publishedAt: NOW })] });
    const postId = db.prepare("SELECT id FROM posts").pluck().get() as number;
    // Clicks i = 1, 2, ... at NOW - i seconds: the n-th newest was made at NOW - n seconds.
    const addClicks = (from: number, to: number) =>
      db.exec(`WITH RECURSIVE n(i) AS (SELECT ${from} UNION ALL SELECT i + 1 FROM n WHERE i < ${to})
        INSERT INTO clicks (post_id, clicked_at, client_hash) SELECT ${postId}, ${NOW} - i * 1000, 'c' || i FROM n`);
    addClicks(1, 27_999);
    assert.deepEqual(heavyWindowStarts(stmts), []);
    addClicks(28_000, 56_000);
    assert.deepEqual(heavyWindowStarts(stmts), [NOW - 28_000_000]);
    addClicks(56_001, 56_010);
    assert.deepEqual(heavyWindowStarts(stmts), [NOW - 28_000_000, NOW - 56_001_000]);
    await store.close();
  });
});

describe("SQLite roll-ups", () => {
  it("equal a recount from the rows after inserts, edits, clicks and removals", async () => {
    const db = new Database(":memory:");
    migrateSqlite(db);
    const store = new SqliteStore(db);
    const day = (x: string) => `(${x} / 86400000 - (${x} % 86400000 < 0))`;
    const recount = () => ({
      days: db
        .prepare(`SELECT ${day("post_date")} AS day, feed_id, language_id, coalesce(category_id, 0) AS category_id,
          count(*) AS posts FROM posts GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`)
        .all(),
      kept: db
        .prepare("SELECT day, feed_id, language_id, category_id, posts FROM post_days ORDER BY 1, 2, 3, 4")
        .all(),
      clicks: db
        .prepare(`SELECT p.feed_id, ${day("k.clicked_at")} AS day, count(*) AS clicks FROM clicks k
          JOIN posts p ON p.id = k.post_id GROUP BY 1, 2 ORDER BY 1, 2`)
        .all(),
      keptClicks: db
        .prepare("SELECT feed_id, day, clicks FROM feed_click_days WHERE clicks > 0 ORDER BY 1, 2")
        .all(),
      // Block bounds must contain every post's date (they may be wider).
      outside: db
        .prepare(`SELECT count(*) AS n FROM posts p JOIN post_id_blocks b ON b.block = p.id >> 10
          WHERE p.post_date < b.min_date OR p.post_date > b.max_date`)
        .get(),
      unblocked: db
        .prepare("SELECT count(*) AS n FROM posts WHERE id >> 10 NOT IN (SELECT block FROM post_id_blocks)")
        .get(),
    });
    const check = (when: string) => {
      const r = recount();
      assert.deepEqual(r.kept, r.days, `post_days ${when}`);
      assert.deepEqual(r.keptClicks, r.clicks, `feed_click_days ${when}`);
      assert.deepEqual([r.outside, r.unblocked], [{ n: 0 }, { n: 0 }], `post_id_blocks ${when}`);
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
    await store.removeCategory(1);
    check("after a category was removed");
    await store.removeFeed(first!.feedId);
    check("after a feed was removed");
    for (const feed of await store.adminFeeds()) await store.removeFeed(feed.feedId);
    check("after every feed was removed");
    assert.deepEqual(db.prepare("SELECT count(*) AS n FROM post_days").get(), { n: 0 });
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
    assert.equal(n("SELECT sum(posts) AS n FROM post_days"), n("SELECT count(*) AS n FROM posts"));
    assert.equal(n("SELECT sum(clicks) AS n FROM feed_click_days"), n("SELECT count(*) AS n FROM clicks"));
    assert.equal(
      n("SELECT count(*) AS n FROM post_id_blocks"),
      n("SELECT count(DISTINCT id >> 10) AS n FROM posts"),
    );
    db.close();
  });
});

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
