/**
 * SQLite's refresh writes since migration 22: the text-print bands keyed by post and found by day
 * (sqlite-story-bands.ts), upgraded from schema 18's layout with every row kept, and the index rows
 * held back to the end of a refresh's transaction (sqlite-index-write-hold.ts), which must leave
 * the full-text index exactly as writing them at once did.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import { DAY, HOUR, T0 } from "../../test-support/store-contract/contract-fixture.js";
import { storyPost, storyTexts } from "../../test-support/story-posts.js";
import { StatementCache } from "./sqlite-connection.js";
import { IndexWriteHold } from "./sqlite-index-write-hold.js";
import { latestSchemaVersion, migrateSqlite } from "./sqlite-migrations.js";
import { openSqliteStore, SqliteStore } from "./sqlite-store.js";
import { daysWithBands, Int32Set } from "./sqlite-story-band-days.js";
import { bandDays } from "./sqlite-story-bands.js";

const dir = mkdtempSync(join(tmpdir(), "story-bands-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Schema 18's band table (sqlite-story-schema.ts), as databases written before migration 22 hold it. */
const schema18Bands = `CREATE TABLE story_bands (
  band INTEGER NOT NULL,
  post_date INTEGER NOT NULL,
  post_id INTEGER NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
  PRIMARY KEY (band, post_date, post_id)
) WITHOUT ROWID;
CREATE INDEX story_bands_by_post ON story_bands (post_id);`;

const bandRows = (db: Database.Database) =>
  db.prepare("SELECT band, post_date, post_id FROM story_bands ORDER BY post_id, band").all();

describe("SQLite story bands by day (migration 22)", () => {
  it("moves schema 18's band rows, finds the stories stored before, and runs again as a no-op", async () => {
    const path = join(dir, "upgrade.db");
    let store = openSqliteStore(path);
    const a = await store.addFeed({ feedUrl: "https://a.test/rss", feedName: "A" });
    const b = await store.addFeed({ feedUrl: "https://b.test/rss", feedName: "B" });
    await store.applyFeedUpdate(a.feedId, {
      fetchState: {},
      posts: Object.values(storyTexts).map((t, i) =>
        storyPost(`a${i}`, `https://a.test/${i}`, `Story ${i}`, t, T0 - i * HOUR),
      ),
    });
    await store.close();

    const db = new Database(path);
    db.pragma("foreign_keys = ON");
    const before = bandRows(db);
    assert.equal(before.length, 3 * 8);
    db.exec(`CREATE TABLE kept AS SELECT band, post_date, post_id FROM story_bands;
      DROP TABLE story_bands; ${schema18Bands}
      INSERT INTO story_bands SELECT * FROM kept; DROP TABLE kept;
      DELETE FROM schema_migrations WHERE version >= 22;`);
    assert.equal(
      migrateSqlite(db, latestSchemaVersion, () => {}),
      latestSchemaVersion,
    );
    const table = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'story_bands'").pluck().get();
    assert.match(String(table), /PRIMARY KEY \(post_id, band\)/);
    assert.ok(db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'story_bands_by_day'").get());
    assert.equal(
      db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'story_bands_by_post'").get(),
      undefined,
    );
    assert.deepEqual(bandRows(db), before);
    // Taken again (a database put back to an older version): nothing changes.
    db.exec("DELETE FROM schema_migrations WHERE version >= 22");
    migrateSqlite(db, latestSchemaVersion, () => {});
    assert.deepEqual(bandRows(db), before);
    db.close();

    store = openSqliteStore(path);
    try {
      // Another feed's copy of story 1, under its own link and a header line: found by its text.
      const { inserted } = await store.applyFeedUpdate(b.feedId, {
        fetchState: {},
        posts: [
          storyPost(
            "b1",
            "https://b.test/x",
            "Story 1",
            `Reposted from A. ${storyTexts.garden}`,
            T0 - 1 * HOUR + 60_000,
          ),
        ],
      });
      assert.equal(inserted, 1);
      const merges = await store.storyMerges!(10);
      assert.equal(merges.length, 1);
      assert.equal(merges[0]!.copyGuid, "b1");
      assert.equal(merges[0]!.mergedBy, "text");
      assert.equal(merges[0]!.storyTitle, "Story 1");
    } finally {
      await store.close();
    }
  });

  it("looks bands up through the index by day", () => {
    const db = new Database(":memory:");
    migrateSqlite(db, latestSchemaVersion, () => {});
    const plan = db
      .prepare(`EXPLAIN QUERY PLAN SELECT post_id FROM story_bands WHERE post_date / 86400000 IN (1, 2)
        AND band IN (5, 6) AND post_date BETWEEN 0 AND 1`)
      .all() as Array<{ detail: string }>;
    assert.match(plan.map((r) => r.detail).join(" | "), /story_bands_by_day/);
    db.close();
  });
});

describe("SQLite refreshes hold the index rows back to the end of the transaction", () => {
  const db = new Database(":memory:");
  migrateSqlite(db, latestSchemaVersion, () => {});
  const store = new SqliteStore(db);
  after(() => store.close());

  /** The date keys the index holds for a word. */
  const keysOf = (word: string) =>
    db.prepare("SELECT rowid FROM posts_fts WHERE posts_fts MATCH ? ORDER BY rowid").pluck().all(`"${word}"`);
  const keyOf = (guid: string) => db.prepare("SELECT date_key FROM posts WHERE guid = ?").pluck().get(guid);

  it("indexes every post once under its key, with the second's posts renumbered within the refresh", async () => {
    const feed = await store.addFeed({ feedUrl: "https://same-second.test/rss", feedName: "Same second" });
    // Newest first, all within one second: each post goes below the last, halving the free slots
    // until the second is renumbered (sqlite-date-keys.ts) while index rows are still held.
    const posts = Array.from({ length: 24 }, (_, i) =>
      storyPost(
        `s${i}`,
        `https://same-second.test/${i}`,
        `marker${i} common`,
        `short text ${i}`,
        T0 + 999 - i,
      ),
    );
    await store.applyFeedUpdate(feed.feedId, { fetchState: {}, posts });
    const byKey = db
      .prepare("SELECT guid FROM posts WHERE feed_id = ? ORDER BY date_key")
      .pluck()
      .all(feed.feedId);
    assert.deepEqual(byKey, posts.map((p) => p.guid).reverse());
    for (const p of posts) assert.deepEqual(keysOf(p.title.split(" ")[0]!), [keyOf(p.guid)]);
    assert.equal(keysOf("common").length, 24);
  });

  it("keeps the feeds of a batch apart when one fails, and follows updates and renames", async () => {
    const a = await store.addFeed({ feedUrl: "https://batch-a.test/rss", feedName: "Batch A" });
    const outcomes = await store.applyFeedUpdates!([
      {
        feedId: a.feedId,
        update: { fetchState: {}, posts: [storyPost("a1", "https://batch-a.test/1", "alphaword", "x", T0)] },
      },
      {
        feedId: 999_999,
        update: { fetchState: {}, posts: [storyPost("z1", "https://nowhere.test/1", "zuluword", "x", T0)] },
      },
      {
        feedId: a.feedId,
        update: {
          fetchState: {},
          posts: [storyPost("a2", "https://batch-a.test/2", "bravoword", "x", T0 - 5)],
        },
      },
    ]);
    assert.deepEqual(
      outcomes.map((o) => o.ok),
      [true, false, true],
    );
    assert.deepEqual(keysOf("alphaword"), [keyOf("a1")]);
    assert.deepEqual(keysOf("bravoword"), [keyOf("a2")]);
    assert.deepEqual(keysOf("zuluword"), []);
    await store.applyFeedUpdate(a.feedId, {
      fetchState: {},
      feed: { feedName: "Renamed Feedname" },
      posts: [storyPost("a1", "https://batch-a.test/1", "charlieword", "x", T0)],
    });
    assert.deepEqual(keysOf("alphaword"), []);
    assert.deepEqual(keysOf("charlieword"), [keyOf("a1")]);
    assert.deepEqual(
      keysOf("feedname"),
      [keyOf("a2"), keyOf("a1")].sort((x, y) => Number(x) - Number(y)),
    );
  });
});

describe("SQLite band keys held by day (sqlite-story-band-days.ts)", () => {
  /** Filler posts of their own text, dated on T0's day: each refresh's look-ups ask about it. */
  const fillers = (prefix: string, n: number) =>
    Array.from({ length: n }, (_, i) =>
      storyPost(
        `${prefix}${i}`,
        `https://fill.test/${prefix}/${i}`,
        `Filler ${prefix} ${i}`,
        `${prefix} number ${i} says ${Array.from({ length: 24 }, (_, k) => `w${(i * 31 + k * 7) % 97}${prefix}`).join(" ")}`,
        T0 + i * 60_000,
      ),
    );

  it("finds the copies of stories written after a day was held, by this connection and by another", async () => {
    const path = join(dir, "held.db");
    const one = openSqliteStore(path);
    await one.close();
    const db1 = new Database(path);
    const store1 = new SqliteStore(db1);
    const db2 = new Database(path);
    const store2 = new SqliteStore(db2);
    try {
      const a = await store1.addFeed({ feedUrl: "https://held-a.test/rss", feedName: "A" });
      const b = await store1.addFeed({ feedUrl: "https://held-b.test/rss", feedName: "B" });
      const c = await store1.addFeed({ feedUrl: "https://held-c.test/rss", feedName: "C" });
      // Three posts on T0's day, then look-ups asking about it until it is held (asks >= posts).
      await store1.applyFeedUpdate(a.feedId, { fetchState: {}, posts: fillers("x", 3) });
      await store1.applyFeedUpdate(a.feedId, { fetchState: {}, posts: fillers("y", 6) });
      const stmts = new StatementCache(db1);
      const day = bandDays(T0, T0)[0]!;
      assert.deepEqual(daysWithBands(stmts, [day], [12345]), [], "the day is held and lacks the key");

      // Another connection writes a story on that day: this one's held days are dropped.
      await store2.applyFeedUpdate(b.feedId, {
        fetchState: {},
        posts: [storyPost("b1", "https://held-b.test/1", "Tram", storyTexts.tram, T0 + HOUR)],
      });
      const copy = (guid: string, text: string) =>
        storyPost(guid, `https://held-c.test/${guid}`, "Copy", `Reposted. ${text}`, T0 + 2 * HOUR);
      assert.equal(
        (await store1.applyFeedUpdate(c.feedId, { fetchState: {}, posts: [copy("c1", storyTexts.tram)] }))
          .inserted,
        1,
      );
      // This connection writes one after the day is held again: its bands are added to the day.
      await store1.applyFeedUpdate(a.feedId, { fetchState: {}, posts: fillers("z", 12) });
      assert.deepEqual(daysWithBands(stmts, [day], [12345]), []);
      await store1.applyFeedUpdate(b.feedId, {
        fetchState: {},
        posts: [storyPost("b2", "https://held-b.test/2", "Garden", storyTexts.garden, T0 + HOUR)],
      });
      await store1.applyFeedUpdate(c.feedId, { fetchState: {}, posts: [copy("c2", storyTexts.garden)] });
      const merges = await store1.storyMerges!(10);
      assert.deepEqual(merges.map((m) => [m.copyGuid, m.mergedBy]).sort(), [
        ["c1", "text"],
        ["c2", "text"],
      ]);
    } finally {
      await store2.close();
      await store1.close();
    }
  });

  it("leaves a day the look-ups seldom ask about to the index", () => {
    const db = new Database(":memory:");
    migrateSqlite(db, latestSchemaVersion, () => {});
    db.exec(`INSERT INTO post_day_counts (day, language_id, category_id, posts, min_id, max_id)
      VALUES (${Math.floor(T0 / DAY)}, 1, 0, 5, 1, 5)`);
    const stmts = new StatementCache(db);
    const day = bandDays(T0, T0)[0]!;
    for (let ask = 1; ask < 5; ask++) assert.deepEqual(daysWithBands(stmts, [day], [7]), [day]);
    assert.deepEqual(daysWithBands(stmts, [day], [7]), []);
    db.close();
  });
});

describe("SQLite facts read once per refresh transaction (IndexWriteHold.fixedWhileWriting)", () => {
  it("keeps an answer within a transaction and reads it again in the next, and a plain cache every time", () => {
    const db = new Database(":memory:");
    try {
      let reads = 0;
      const read = () => ++reads;
      const hold = new IndexWriteHold(db);
      hold.begin();
      assert.equal(hold.fixedWhileWriting("k", read), 1);
      assert.equal(hold.fixedWhileWriting("k", read), 1, "kept within the transaction");
      assert.equal(hold.fixedWhileWriting("other", read), 2, "each key its own answer");
      hold.begin();
      assert.equal(hold.fixedWhileWriting("k", read), 3, "read again in the next transaction");
      hold.drop();
      assert.equal(hold.fixedWhileWriting("k", read), 4, "forgotten when a transaction is rolled back");
      const plain = new StatementCache(db);
      assert.equal(plain.fixedWhileWriting("k", read), 5);
      assert.equal(plain.fixedWhileWriting("k", read), 6, "outside a refresh: read at every call");
    } finally {
      db.close();
    }
  });
});

describe("Int32Set (the held days' band keys)", () => {
  it("holds what was added, and nothing else, across growth, for any 32-bit key", () => {
    let seed = 7;
    const next = () => {
      seed = (Math.imul(seed, 1664525) + 1013904223) | 0;
      return seed;
    };
    const set = new Int32Set();
    const reference = new Set<number>();
    const edge = [0, -1, 1, 2 ** 31 - 1, -(2 ** 31), 65536, -65536];
    for (let i = 0; i < 5000; i++) {
      // Repeats and keys that share their low bits, as colliding band keys do.
      const key = i < edge.length ? edge[i]! : i % 3 === 0 ? (next() & ~0xffff) | 0 : next();
      set.add(key);
      set.add(key);
      reference.add(key);
      if (i % 250 === 0) {
        for (const k of reference) assert.ok(set.has(k), `holds ${k}`);
        assert.equal(set.size, reference.size);
      }
    }
    for (const k of reference) assert.ok(set.has(k), `holds ${k}`);
    for (let i = 0; i < 5000; i++) {
      const k = next();
      assert.equal(set.has(k), reference.has(k), `answers ${k}`);
    }
    assert.equal(new Int32Set(100).has(0), false, "an empty slot is no key 0");
  });
});
