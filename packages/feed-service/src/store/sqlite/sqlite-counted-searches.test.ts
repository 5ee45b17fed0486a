/**
 * The smart categories' matches per day (schema 29) against a brute force: after every kind of
 * write (posts stored out of date order, re-dated, re-worded, re-filed under another language, a
 * feed renamed or removed, smart categories added and removed, the migration taken again), the
 * counts equal a recount from every match, and each date-ordered page of a counted query, at any
 * offset and in any languages, holds the posts a walk of every match gives.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import Database from "better-sqlite3";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { lcgDraws } from "../../test-support/seeded-draws.js";
import { incoming } from "../../test-support/store-contract/contract-fixture.js";
import type { IncomingPost } from "../store.js";
import { StatementCache } from "./sqlite-connection.js";
import { countedMatch, countedPageKeys } from "./sqlite-counted-searches.js";
import { migrateSqlite } from "./sqlite-migrations.js";
import { searchMatch, searchPosts } from "./sqlite-search-queries.js";
import { SqliteStore } from "./sqlite-store.js";

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 0, 10, 12);
const WORDS = ["the", "data", "rust", "le", "der", "new", "security", "open", "source", "code", "news"];
const DAY_KEYS = 65_536 * 86_400;

describe("SQLite counted searches", () => {
  const db = new Database(":memory:");
  const stmts = new StatementCache(db);
  const store = new SqliteStore(db);
  const next = lcgDraws(29);
  const text = (n: number) =>
    Array.from({ length: n }, () => WORDS[Math.floor(next() * WORDS.length)]).join(" ");
  let languages: number[] = [];
  const feeds: number[] = [];
  let serial = 0;
  const post = (date: number, guid = `p-${serial++}`): IncomingPost =>
    incoming(guid, {
      title: text(2),
      excerpt: text(4),
      content: `<p>${text(5)}</p>`,
      publishedAt: date,
      languageId: languages[Math.floor(next() * languages.length)]!,
    });

  before(async () => {
    migrateSqlite(db);
    languages = [
      1,
      (await store.ensureLanguage("de")).languageId,
      (await store.ensureLanguage("fr")).languageId,
    ];
    // Counted before any post: kept by the writes that follow.
    await store.addSmartCategory({ name: "Data or security", query: "data OR security" });
    await store.addSmartCategory({ name: "Rust news", query: "rust news" });
    for (let f = 0; f < 6; f++)
      feeds.push((await store.addFeed({ feedUrl: `https://f${f}.test/feed`, feedName: `Feed ${f}` })).feedId);
    // Out of date order: batches of posts over 400 days in random order, some days dense, one
    // refresh of several feeds at once.
    for (let batch = 0; batch < 12; batch++) {
      const posts = Array.from({ length: 120 }, () =>
        post(next() < 0.3 ? NOW - 5 * DAY - Math.floor(next() * DAY) : NOW - Math.floor(next() * 400 * DAY)),
      );
      await store.applyFeedUpdate(feeds[batch % feeds.length]!, { fetchState: {}, posts });
    }
    await store.applyFeedUpdates(
      feeds.slice(0, 3).map((feedId) => ({
        feedId,
        update: {
          fetchState: {},
          posts: Array.from({ length: 50 }, () => post(NOW - Math.floor(next() * 90 * DAY))),
        },
      })),
    );
  });
  after(() => store.close());

  const smartQueries = () => db.prepare("SELECT query FROM smart_categories").pluck().all() as string[];

  /** Every match of a query in some languages, newest first, by a walk of the whole index. */
  const allKeys = (query: string, languageIds: number[] | null) =>
    db
      .prepare("SELECT rowid FROM posts_fts WHERE posts_fts MATCH ? ORDER BY rowid DESC")
      .pluck()
      .all(searchMatch(parseSearchQuery(query), languageIds)) as number[];

  /** The counts a recount from every match gives, as search_days rows. */
  function recount(query: string): string[] {
    const keys = allKeys(query, null);
    const language = db.prepare("SELECT language_id FROM posts WHERE date_key = ?").pluck();
    const n = new Map<string, number>();
    for (const key of keys) {
      const day = Math.floor(key / DAY_KEYS);
      for (const l of [0, language.get(key) as number]) n.set(`${l}:${day}`, (n.get(`${l}:${day}`) ?? 0) + 1);
    }
    return [...n].map(([k, v]) => `${k}=${v}`).sort();
  }

  function stored(query: string): string[] {
    return (
      db
        .prepare(`SELECT d.language_id || ':' || d.day || '=' || d.posts FROM search_days d
          JOIN counted_searches s ON s.id = d.search_id WHERE s.match = ?`)
        .pluck()
        .all(countedMatch(parseSearchQuery(query))) as string[]
    ).sort();
  }

  function check(when: string): void {
    const queries = smartQueries();
    assert.equal(
      db.prepare("SELECT count(*) FROM search_dirty_days").pluck().get(),
      0,
      `${when}: days noted`,
    );
    assert.equal(db.prepare("SELECT count(*) FROM search_new_keys").pluck().get(), 0, `${when}: keys noted`);
    assert.equal(
      db.prepare("SELECT count(*) FROM counted_searches").pluck().get(),
      new Set(queries.map((q) => countedMatch(parseSearchQuery(q)))).size,
      `${when}: counted queries`,
    );
    for (const query of queries) {
      assert.deepEqual(stored(query), recount(query), `${when}: counts of ${query}`);
      for (const languageIds of [null, [1], [languages[2]!, 1], [languages[1]!]]) {
        const all = allKeys(query, languageIds);
        const offsets = [0, 7, 250, 500, 777, Math.floor(all.length / 2), all.length - 20, all.length - 1];
        for (const offset of [...offsets, all.length, all.length + 5]) {
          if (offset < 0) continue;
          for (const limit of [1, 20, 1000]) {
            const q = parseSearchQuery(query);
            const seek = countedPageKeys(
              stmts,
              countedMatch(q)!,
              searchMatch(q, languageIds)!,
              languageIds,
              offset,
              limit,
            );
            const want = all.slice(offset, offset + limit);
            const what = `${when}: ${query} ${JSON.stringify(languageIds)} ${offset}+${limit} of ${all.length}`;
            assert.deepEqual(seek, want, what);
            const page = searchPosts(stmts, {
              query: q,
              sort: "date",
              unscored: true,
              offset,
              limit,
              languageIds,
            });
            const ids = db.prepare("SELECT id FROM posts WHERE date_key = ?").pluck();
            assert.deepEqual(
              page.map((p) => p.postId),
              want.map((k) => ids.get(k)),
              what,
            );
          }
        }
      }
    }
  }

  it("counts each smart category's matches per language and day exactly through every write", async () => {
    check("after out-of-order inserts");
    // Re-dated, re-worded and re-filed posts: a refresh that edits entries.
    const edited = db
      .prepare("SELECT feed_id, guid, seen_at, post_date FROM posts WHERE id % 7 = 0")
      .all() as Array<{ feed_id: number; guid: string; seen_at: number; post_date: number }>;
    const byFeed = new Map<number, IncomingPost[]>();
    for (const [i, r] of edited.entries()) {
      const date =
        i % 3 === 0
          ? r.post_date - 37 * DAY
          : i % 3 === 1
            ? NOW - Math.floor(next() * 10 * DAY)
            : r.post_date;
      byFeed.set(r.feed_id, [...(byFeed.get(r.feed_id) ?? []), { ...post(date, r.guid), seenAt: r.seen_at }]);
    }
    for (const [feedId, posts] of byFeed) await store.applyFeedUpdate(feedId, { fetchState: {}, posts });
    check("after edits");
    // A feed's name is a column of its posts' index rows.
    await store.applyFeedUpdate(feeds[1]!, { fetchState: {}, posts: [], feed: { feedName: "Data news" } });
    check("after a feed renamed to matching words");
    await store.applyFeedUpdate(feeds[1]!, { fetchState: {}, posts: [], feed: { feedName: "Plain" } });
    check("after a feed renamed back");
    // A smart category added once posts exist is counted when added; one of the same query shares it.
    const added = await store.addSmartCategory({ name: "The", query: "the" });
    const twin = await store.addSmartCategory({ name: "The again", query: "the" });
    check("after smart categories added");
    await store.removeFeed(feeds[2]!);
    check("after a feed removed");
    await store.removeSmartCategory(added.smartCategoryId);
    check("after one of two smart categories of a query removed");
    await store.removeSmartCategory(twin.smartCategoryId);
    check("after a smart category removed");
    assert.equal(
      db
        .prepare("SELECT count(*) FROM counted_searches WHERE match = ?")
        .pluck()
        .get(countedMatch(parseSearchQuery("the"))),
      0,
    );
    // Days noted and not counted again (a write path that left them) are counted by the reader.
    const query = parseSearchQuery("data OR security");
    const all = allKeys("data OR security", null);
    const days = [...new Set(all.map((k) => Math.floor(k / DAY_KEYS)))].slice(3, 9);
    db.transaction(() => {
      for (const day of days) {
        db.prepare("INSERT INTO search_dirty_days (day) VALUES (?)").run(day);
        db.prepare("UPDATE search_days SET posts = posts + 50 WHERE day = ?").run(day);
      }
      db.prepare("INSERT INTO search_dirty_days (day) VALUES (?)").run(days[0]! + 100_000);
      // A new post's key noted and not counted yet: its day is counted live as well.
      const key = all[all.length - 30]!;
      db.prepare("INSERT INTO search_new_keys (key) VALUES (?)").run(key);
      const language = db.prepare("SELECT language_id FROM posts WHERE date_key = ?").pluck().get(key);
      for (const [id, match] of db.prepare("SELECT id, match FROM counted_searches").raw().all() as Array<
        [number, string]
      >) {
        if (
          db
            .prepare("SELECT count(*) FROM posts_fts WHERE posts_fts MATCH ? AND rowid = ?")
            .pluck()
            .get(match, key) === 0
        )
          continue;
        db.prepare(`UPDATE search_days SET posts = posts - 1 WHERE search_id = ? AND day = ?
          AND language_id IN (0, ?)`).run(id, Math.floor(key / DAY_KEYS), language);
      }
    })();
    for (const offset of [500, Math.floor(all.length / 2), all.length - 1]) {
      assert.deepEqual(
        countedPageKeys(stmts, countedMatch(query)!, searchMatch(query, null)!, null, offset, 20),
        all.slice(offset, offset + 20),
        `noted days, offset ${offset}`,
      );
    }
    // The next write counts them again.
    await store.applyFeedUpdate(feeds[0]!, { fetchState: {}, posts: [post(NOW - DAY)] });
    check("after noted days counted again");
    // A database put back to schema 28 takes migration 29 again: the same counts, kept after.
    const before28 = smartQueries().map(stored);
    db.exec("DELETE FROM schema_migrations WHERE version >= 29");
    migrateSqlite(db);
    assert.deepEqual(smartQueries().map(stored), before28, "counts after migration 29 ran again");
    await store.applyFeedUpdate(feeds[3]!, { fetchState: {}, posts: [post(NOW - 30 * DAY), post(NOW)] });
    check("after migration 29 ran again and a refresh");
    for (const feedId of [feeds[0]!, feeds[1]!, ...feeds.slice(3)]) await store.removeFeed(feedId);
    check("after every feed removed");
    assert.equal(db.prepare("SELECT count(*) FROM search_days").pluck().get(), 0);
  });
});
