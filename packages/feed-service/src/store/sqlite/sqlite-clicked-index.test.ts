/**
 * The clicked posts' index (schema 23, every post since schema 31: sqlite-clicked-index.ts)
 * against a rebuild from the posts after every kind of write (new posts, clicks on unclicked and
 * on clicked posts, a post's text, date and language changed by a refresh, a feed renamed, a feed
 * removed with its posts, migrate-data's copy, schema 31 over a clicked-only index), and searches
 * by clicks through it against brute force: every hit of the query (a page by date of all of
 * them) sorted by (clicks desc, id desc), at several offsets and limits (to the last hit and past
 * it), with words, phrases, prefixes, title:, feed:, lang:, after:/before:, OR and exclusions.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import Database from "better-sqlite3";
import { loadDemoData } from "../../demo/load-demo-data.js";
import { resolveSearchFilters } from "../../operations/search-filters.js";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { foldLanguageClauses, hasFilters, type SearchQuery } from "../../search/search-query.js";
import { incoming } from "../../test-support/store-contract/contract-fixture.js";
import { copiedTables } from "../copied-tables.js";
import type { IncomingPost, PostPage, SearchSort } from "../store.js";
import { fts5IndexRow } from "./fts5-index-row.js";
import { searchWithOperators } from "./fts5-operators.js";
import { streamClicked } from "./sqlite-clicked-hits.js";
import {
  CLICKED_FTS,
  CLICKED_INSERT,
  clickedKey,
  clickedRow,
  searchIndexTotals,
} from "./sqlite-clicked-index.js";
import { StatementCache } from "./sqlite-connection.js";
import { SqliteEndpoint } from "./sqlite-copy-endpoint.js";
import { migrateSqlite } from "./sqlite-migrations.js";
import { searchMatch, searchPosts } from "./sqlite-search-queries.js";
import { SqliteStore } from "./sqlite-store.js";

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 0, 10, 12);

/** A small deterministic generator (a linear congruential one): the same corpus every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

const WORDS = ["the", "data", "rust", "le", "der", "new", "security", "open", "source", "code", "news"];

/**
 * How the clicked posts' index differs from one built anew from the posts (empty: not at all):
 * its rows (rowid and column lengths) and every token instance (term, row, column, offset).
 */
function differences(db: Database.Database): string[] {
  const declaration = (
    db.prepare("SELECT sql FROM sqlite_master WHERE name = 'posts_fts'").pluck().get() as string
  ).replace("posts_fts", "ref_clicked");
  db.exec(`DROP TABLE IF EXISTS ref_clicked; ${declaration}`);
  const insert = db.prepare(CLICKED_INSERT.replace(CLICKED_FTS, "ref_clicked"));
  const rows = db
    .prepare(`SELECT p.id, p.clicks, p.date_key, p.title, p.excerpt, p.content, p.language_id, f.name
      FROM posts p JOIN feeds f ON f.id = p.feed_id`)
    .raw()
    .all() as Array<[number, number, number, string, string, string, number, string]>;
  for (const [id, clicks, key, title, excerpt, content, language, feed] of rows) {
    const row = fts5IndexRow(key, title, excerpt, content, feed, language);
    insert.run(...clickedRow(clickedKey(clicks, id), row));
  }
  const found: string[] = [];
  const sizes = (table: string) =>
    db.prepare(`SELECT id, hex(sz) FROM ${table}_docsize ORDER BY id`).raw().safeIntegers(true).all();
  const same = (what: string, a: unknown[], b: unknown[]) => {
    if (
      JSON.stringify(a, (_, v) => (typeof v === "bigint" ? v.toString() : v)) !==
      JSON.stringify(b, (_, v) => (typeof v === "bigint" ? v.toString() : v))
    ) {
      found.push(`${what}: ${a.length} rows against ${b.length} rebuilt`);
    }
  };
  same("rows", sizes(CLICKED_FTS), sizes("ref_clicked"));
  for (const [name, table] of [
    ["v_clicked", CLICKED_FTS],
    ["v_ref", "ref_clicked"],
  ]) {
    db.exec(
      `DROP TABLE IF EXISTS temp.${name}; CREATE VIRTUAL TABLE temp.${name} USING fts5vocab(main, ${table}, instance)`,
    );
  }
  const instances = (name: string) =>
    db
      .prepare(`SELECT term, doc, col, offset FROM temp.${name} ORDER BY term, doc, col, offset`)
      .raw()
      .safeIntegers(true)
      .all();
  same("token instances", instances("v_clicked"), instances("v_ref"));
  for (const match of ['"the"', '"data" "rust"', "the*", '{title} : "new"', '"\uE002new"', '"open source"']) {
    const hits = (table: string) =>
      db
        .prepare(`SELECT rowid FROM ${table} WHERE ${table} MATCH ? ORDER BY rowid DESC`)
        .raw()
        .safeIntegers(true)
        .all(match);
    same(`MATCH ${match}`, hits(CLICKED_FTS), hits("ref_clicked"));
  }
  db.exec("DROP TABLE temp.v_clicked; DROP TABLE temp.v_ref; DROP TABLE ref_clicked");
  return found;
}

describe("SQLite clicked posts' index", () => {
  const db = new Database(":memory:");
  const stmts = new StatementCache(db);
  const store = new SqliteStore(db);
  const next = random(11);
  let de = 0;
  let fr = 0;
  const text = (n: number) =>
    Array.from({ length: n }, () => WORDS[Math.floor(next() * WORDS.length)]).join(" ");
  const clickSome = async (count: number, among: string) => {
    const ids = db.prepare(`SELECT id FROM posts WHERE ${among}`).pluck().all() as number[];
    for (let i = 0; i < count; i++) {
      const id = ids[Math.floor(next() * ids.length)]!;
      await store.insertClick(id, `client-${i}`, NOW - Math.floor(next() * 30 * DAY));
    }
  };

  before(async () => {
    migrateSqlite(db);
    await loadDemoData(store, { posts: 4_000, now: NOW });
    de = (await store.ensureLanguage("de")).languageId;
    fr = (await store.ensureLanguage("fr")).languageId;
    // An archive stored after the newer posts, shuffled, in three languages.
    const archive = await store.addFeed({ feedUrl: "https://archive.test/feed", feedName: "Archive" });
    const languages = [1, 1, de, fr];
    const old: IncomingPost[] = [];
    for (let i = 0; i < 1_200; i++) {
      old.push(
        incoming(`archive-${i}`, {
          title: text(3),
          excerpt: text(8),
          content: `<p>${text(12)}</p>`,
          publishedAt: NOW - Math.floor(next() * 730 * DAY),
          languageId: languages[Math.floor(next() * languages.length)]!,
        }),
      );
    }
    await store.applyFeedUpdate(archive.feedId, { fetchState: {}, posts: old });
  });
  after(() => store.close());

  it("equals a rebuild after the demo's posts and clicks", () => {
    assert.ok((db.prepare("SELECT count(*) FROM posts WHERE clicks > 0").pluck().get() as number) > 500);
    assert.ok((db.prepare("SELECT count(*) FROM posts WHERE clicks = 0").pluck().get() as number) > 500);
    assert.deepEqual(differences(db), []);
  });

  it("holds every post after schema 31 over an index of the clicked posts only, period tokens after 32", async () => {
    const old = new Database(":memory:");
    const oldStore = new SqliteStore(old);
    try {
      migrateSqlite(old);
      await loadDemoData(oldStore, { posts: 1_500, now: NOW });
      // The index as schema 30 left it: the clicked posts only (their keys above 2^32).
      old.exec(`DELETE FROM ${CLICKED_FTS} WHERE rowid < ${2 ** 32}`);
      old.exec("DELETE FROM schema_migrations WHERE version >= 31");
      assert.notDeepEqual(differences(old), []);
      migrateSqlite(old, 31, () => {});
      assert.equal(
        searchIndexTotals(new StatementCache(old), CLICKED_FTS).rows,
        old.prepare("SELECT count(*) FROM posts").pluck().get(),
      );
      // Schema 31's rows, without period tokens: schema 32 writes them anew with them.
      old.exec(`INSERT INTO ${CLICKED_FTS} (${CLICKED_FTS}) VALUES ('delete-all')`);
      const insert = old.prepare(CLICKED_INSERT);
      const rows = old
        .prepare(`SELECT p.id, p.clicks, p.title, p.excerpt, p.content, p.language_id, f.name
          FROM posts p JOIN feeds f ON f.id = p.feed_id`)
        .raw()
        .all() as Array<[number, number, string, string, string, number, string]>;
      for (const [id, clicks, title, excerpt, content, language, feed] of rows) {
        insert.run(...fts5IndexRow(clickedKey(clicks, id), title, excerpt, content, feed, language));
      }
      assert.notDeepEqual(differences(old), []);
      migrateSqlite(old, 32, () => {});
      assert.deepEqual(differences(old), []);
    } finally {
      oldStore.close();
    }
  });

  it("equals a rebuild after clicks on unclicked and on clicked posts (re-keyed)", async () => {
    await clickSome(300, "clicks = 0");
    await clickSome(600, "clicks > 0");
    const recorded = await store.recordClick(
      db.prepare("SELECT id FROM posts WHERE clicks > 0 LIMIT 1").pluck().get() as number,
      "someone",
      NOW,
      60_000,
    );
    assert.ok(recorded);
    assert.deepEqual(differences(db), []);
  });

  it("equals a rebuild after a refresh changes clicked posts' text, date and language", async () => {
    const rows = db
      .prepare(`SELECT p.feed_id, p.guid, p.link, p.seen_at FROM posts p WHERE p.clicks > 0
        AND p.feed_id IN (SELECT feed_id FROM posts WHERE clicks > 0 GROUP BY feed_id ORDER BY feed_id LIMIT 3)`)
      .all() as Array<{ feed_id: number; guid: string; link: string; seen_at: number }>;
    assert.ok(rows.length > 5);
    const byFeed = new Map<number, IncomingPost[]>();
    for (const r of rows) {
      const post: IncomingPost = {
        guid: r.guid,
        link: r.link,
        title: `${text(2)} refreshed`,
        excerpt: text(5),
        content: `<p>${text(6)}</p>`,
        publishedAt: NOW - Math.floor(next() * 100 * DAY),
        updatedAt: null,
        seenAt: r.seen_at,
        languageId: [1, de, fr][Math.floor(next() * 3)]!,
      };
      byFeed.set(r.feed_id, [...(byFeed.get(r.feed_id) ?? []), post]);
    }
    // Several feeds in one transaction: the held index writes of both indexes.
    await store.applyFeedUpdates!(
      [...byFeed].map(([feedId, posts]) => ({ feedId, update: { fetchState: {}, posts } })),
    );
    assert.deepEqual(differences(db), []);
  });

  it("equals a rebuild after a feed with clicked posts is renamed, and after one is removed", async () => {
    const [renamed, removed] = db
      .prepare("SELECT feed_id FROM posts WHERE clicks > 0 GROUP BY feed_id ORDER BY count(*) DESC LIMIT 2")
      .pluck()
      .all() as number[];
    await store.applyFeedUpdate(renamed!, {
      fetchState: {},
      posts: [],
      feed: { feedName: "Renamed Weekly Security" },
    });
    assert.deepEqual(differences(db), []);
    assert.equal(await store.removeFeed(removed!), true);
    assert.deepEqual(differences(db), []);
  });

  it("is copied whole by migrate-data's SQLite endpoint", async () => {
    const dir = mkdtempSync(join(tmpdir(), "clicked-index-"));
    try {
      const target = new SqliteEndpoint(join(dir, "copy.db"));
      const feedNames = new Map(
        (db.prepare("SELECT id, name FROM feeds").raw().all() as Array<[number, string]>).map(
          ([id, name]) => [id, name],
        ),
      );
      for (const table of copiedTables.filter((t) =>
        ["languages", "categories", "feeds", "posts"].includes(t.name),
      )) {
        const rows = db
          .prepare(`SELECT ${table.columns.join(", ")} FROM ${table.name} ORDER BY ${table.key}`)
          .raw()
          .all() as unknown[][];
        await target.write(table, rows, feedNames);
      }
      // --force over the copied posts: each post's old rows go first.
      const posts = copiedTables.find((t) => t.name === "posts")!;
      const again = db
        .prepare(`SELECT ${posts.columns.join(", ")} FROM posts WHERE clicks > 0 ORDER BY id LIMIT 50`)
        .raw()
        .all() as unknown[][];
      await target.write(
        posts,
        again.map((row) => row.map((cell, i) => (posts.columns[i] === "clicks" ? Number(cell) + 1 : cell))),
        feedNames,
      );
      await target.close();
      const copy = new Database(join(dir, "copy.db"));
      try {
        assert.ok(
          (copy.prepare("SELECT count(*) FROM posts WHERE clicks > 0").pluck().get() as number) > 500,
        );
        assert.deepEqual(differences(copy), []);
      } finally {
        copy.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("streams the hits by clicks within a range of dates exactly, unclicked ones after, or gives up at its budget", () => {
    const keys = db.prepare("SELECT date_key FROM posts ORDER BY date_key").pluck().all() as number[];
    const at = (share: number) => keys[Math.floor(share * (keys.length - 1))]!;
    const reference = db.prepare(`SELECT p.date_key FROM posts p
      WHERE p.date_key IN (SELECT rowid FROM posts_fts WHERE posts_fts MATCH ?)
      AND p.date_key BETWEEN ? AND ? ORDER BY p.clicks DESC, p.id DESC`);
    for (const terms of ["the", "rust -the", '"open source"', "title:data data", "sec*"]) {
      for (const languageIds of [null, [1], [de, fr]]) {
        const match = searchMatch(parseSearchQuery(terms), languageIds)!;
        for (const range of [undefined, { low: at(0.1), high: at(0.9) }, { low: at(0.5), high: at(0.52) }]) {
          const bounds = range ?? { low: keys[0]!, high: keys.at(-1)! };
          const expected = reference.pluck().all(match, bounds.low, bounds.high) as number[];
          const filter = { match, languages: null, ...(range ? { keys: range } : {}) };
          for (const want of [1, 20, 1000]) {
            assert.deepEqual(streamClicked(stmts, filter, want), expected.slice(0, want), `${match} ${want}`);
          }
          const capped = streamClicked(stmts, filter, 1000, 10);
          assert.ok(capped === null || capped.length === Math.min(1000, expected.length), `${match} budget`);
        }
      }
    }
  });

  /**
   * A search as the store routes it, with term statistics from the newest 1,024 posts when
   * `sampled` (the store's own sample is larger than this corpus: it counts on the whole index),
   * which the clicked posts' index scores itself (`sampled_bm25_over`).
   */
  const search = (page: PostPage & { query: SearchQuery; sort: SearchSort }, sampled: boolean) => {
    const folded = { ...page, ...foldLanguageClauses(page.query, page.languageIds) };
    const bounds = { relevancePool: 10_000, termSamplePosts: 1_024 };
    if (hasFilters(folded.query)) {
      return sampled ? searchWithOperators(stmts, folded, bounds) : searchWithOperators(stmts, folded);
    }
    return sampled ? searchPosts(stmts, folded, bounds) : searchPosts(stmts, folded);
  };

  it("pages searches by clicks as the sorted hits, with each hit's own score", async () => {
    const queries = [
      "the",
      "rust",
      "data OR security",
      '"open source"',
      "the*",
      "sec* data",
      "title:the",
      "title:data data",
      "rust -the",
      "the -new -data",
      "lang:de the",
      "feed:archive the",
      "-feed:archive data",
      "feed:renamed security",
      "after:2025-09-01 the",
      "before:2025-06-01 data",
      "after:2025-03-01 before:2025-11-20 news",
      "sec* title:the feed:archive after:2024-06-01 the",
      "title:new OR rust",
      // Feeds of one word in several names, alone (their clicked posts from the feeds' own
      // index, or the walk of every clicked post) and with a filter that reads the post's row.
      "feed:digest",
      "feed:journal",
      "feed:dev -feed:journal",
      "feed:digest after:2025-09-01",
      "feed:digest OR feed:journal",
    ];
    const clicked = db.prepare("SELECT count(*) FROM posts WHERE clicks > 0").pluck().get() as number;
    let compared = 0;
    for (const terms of queries) {
      const query = await resolveSearchFilters(store, parseSearchQuery(terms));
      for (const [languageIds, sampled] of [
        [null, false],
        [null, true],
        [[1], false],
        [[1], true],
        [[de, fr], true],
      ] as const) {
        const every = search(
          {
            query,
            sort: "date",
            limit: 1_000_000,
            offset: 0,
            languageIds,
          },
          sampled,
        );
        const sorted = [...every].sort((a, b) => b.clicks - a.clicks || b.postId - a.postId);
        const withClicks = sorted.filter((p) => p.clicks > 0).length;
        for (const [offset, limit] of [
          [0, 20],
          [0, 1000],
          [13, 7],
          [Math.max(0, withClicks - 5), 20],
          [Math.floor(clicked / 3), 30],
          // Past the clicked hits: the unclicked ones' middle, the last page, past the last hit.
          [withClicks + Math.floor((sorted.length - withClicks) / 2), 20],
          [Math.max(0, sorted.length - 7), 20],
          [sorted.length + 3, 20],
        ] as const) {
          const page = search({ query, sort: "clicks", limit, offset, languageIds }, sampled);
          const expected = sorted.slice(offset, offset + limit);
          assert.deepEqual(
            page.map((p) => p.postId),
            expected.map((p) => p.postId),
            `${terms} ${JSON.stringify(languageIds)} ${sampled} ${offset}+${limit}`,
          );
          assert.deepEqual(
            page.map((p) => p.score),
            expected.map((p) => p.score),
            `scores ${terms} ${JSON.stringify(languageIds)} ${sampled} ${offset}+${limit}`,
          );
          compared += page.length;
        }
      }
    }
    assert.ok(compared > 20_000, `only ${compared} hits compared`);
  });

  it("pages by clicks within date ranges through the period tokens, posts on the range's first and last days", async () => {
    // Days of posts at several shares of the date order: ranges whose ends hold posts, narrow
    // (the range's tokens ANDed) and wide (a NOT of the days outside).
    const dates = db.prepare("SELECT post_date FROM posts ORDER BY date_key").pluck().all() as number[];
    const day = (share: number) =>
      new Date(dates[Math.floor(share * (dates.length - 1))]!).toISOString().slice(0, 10);
    const queries = [
      `after:${day(0.3)} the`,
      `before:${day(0.3)} the`,
      `after:${day(0.97)} data`,
      `after:${day(0.5)} before:${day(0.5)} the`,
      `after:${day(0.2)} before:${day(0.8)} sec*`,
      `after:${day(0.1)} before:${day(0.6)} "open source"`,
      `after:${day(0.4)} title:data data`,
      `before:${day(0.9)} rust -the`,
      `after:${day(0.6)} feed:archive the`,
      `after:${day(0.05)} lang:de the`,
    ];
    const onDay = db
      .prepare("SELECT count(*) FROM posts WHERE date(post_date / 1000, 'unixepoch') = ?")
      .pluck();
    for (const share of [0.3, 0.5, 0.97]) assert.ok((onDay.get(day(share)) as number) > 0);
    let compared = 0;
    for (const terms of queries) {
      const query = await resolveSearchFilters(store, parseSearchQuery(terms));
      for (const [languageIds, sampled] of [
        [null, true],
        [[de, fr], false],
      ] as const) {
        const every = search({ query, sort: "date", limit: 1_000_000, offset: 0, languageIds }, sampled);
        const sorted = [...every].sort((a, b) => b.clicks - a.clicks || b.postId - a.postId);
        const withClicks = sorted.filter((p) => p.clicks > 0).length;
        for (const [offset, limit] of [
          [0, 20],
          [0, 1000],
          [Math.max(0, withClicks - 5), 20],
          [Math.floor(sorted.length / 2), 20],
          [Math.max(0, sorted.length - 7), 20],
          [sorted.length + 3, 20],
        ] as const) {
          const page = search({ query, sort: "clicks", limit, offset, languageIds }, sampled);
          const expected = sorted.slice(offset, offset + limit);
          const what = `${terms} ${JSON.stringify(languageIds)} ${offset}+${limit}`;
          assert.deepEqual(
            page.map((p) => p.postId),
            expected.map((p) => p.postId),
            what,
          );
          assert.deepEqual(
            page.map((p) => p.score),
            expected.map((p) => p.score),
            `scores ${what}`,
          );
          compared += page.length;
        }
      }
    }
    assert.ok(compared > 5_000, `only ${compared} hits compared`);
  });
});
