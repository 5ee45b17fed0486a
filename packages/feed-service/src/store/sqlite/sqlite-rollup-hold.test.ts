/**
 * Migration 30's hold (sqlite-rollup-hold.ts) against a recount from the rows: the day counts,
 * the running sums of posts and the day ranks after refreshes of several feeds in one
 * transaction (posts out of date order, across block edges and before 1970, a guid twice in one
 * document, a feed that fails and is rolled back alone), after writes by another connection with
 * no hold (inserts, edits, deletes), and after raw writes under a hold that edit, move and delete
 * held and older posts alike and reuse a deleted id.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import { lcgDraws } from "../../test-support/seeded-draws.js";
import { incoming } from "../../test-support/store-contract/contract-fixture.js";
import { StatementCache } from "./sqlite-connection.js";
import { migrateSqlite } from "./sqlite-migrations.js";
import { holdRollups, settlePostRollups } from "./sqlite-rollup-hold.js";
import { SUM_BLOCK_DAYS } from "./sqlite-running-sums-schema.js";
import { SqliteStore } from "./sqlite-store.js";

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 0, 10, 12);
const day = (x: string) => `(${x} / 86400000 - (${x} % 86400000 < 0))`;
const block = (d: string) => `(${d} / ${SUM_BLOCK_DAYS} - (${d} % ${SUM_BLOCK_DAYS} < 0))`;

/** Every roll-up the hold settles, kept and recounted from the posts. */
function checkRollups(db: Database.Database, when: string): void {
  const all = (sql: string) => db.prepare(sql).raw().all();
  assert.deepEqual(all("SELECT * FROM posts_rollup_hold"), [], `no hold left ${when}`);
  assert.deepEqual(
    all("SELECT day, language_id, category_id, posts FROM post_day_counts ORDER BY 1, 2, 3"),
    all(`SELECT ${day("post_date")}, language_id, coalesce(category_id, 0), count(*) FROM posts
      GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`),
    `post_day_counts ${when}`,
  );
  assert.equal(
    db
      .prepare(`SELECT count(*) FROM post_day_counts c JOIN (SELECT ${day("post_date")} AS d, language_id AS l,
          coalesce(category_id, 0) AS k, min(id) AS lo, max(id) AS hi FROM posts GROUP BY 1, 2, 3) b
        ON b.d = c.day AND b.l = c.language_id AND b.k = c.category_id WHERE c.min_id > b.lo OR c.max_id < b.hi`)
      .pluck()
      .get(),
    0,
    `post_day_counts bounds ${when}`,
  );
  assert.deepEqual(
    all("SELECT category_id, language_id, day, id, rank FROM post_day_ranks ORDER BY 1, 2, 3, 4"),
    all(`SELECT coalesce(category_id, 0) AS c, language_id, ${day("post_date")} AS d, id,
        row_number() OVER (PARTITION BY coalesce(category_id, 0), language_id, ${day("post_date")} ORDER BY id)
      FROM posts ORDER BY 1, 2, 3, 4`),
    `post_day_ranks ${when}`,
  );
  assert.deepEqual(
    all("SELECT level, feed_id, period, n, through FROM feed_post_sums ORDER BY 1, 2, 3"),
    all(`WITH days AS (SELECT feed_id, ${day("post_date")} AS d, count(*) AS n FROM posts GROUP BY 1, 2),
        blocks AS (SELECT feed_id, ${block("d")} AS b, sum(n) AS n FROM days GROUP BY 1, 2)
      SELECT 0, feed_id, d, n, sum(n) OVER (PARTITION BY feed_id, ${block("d")} ORDER BY d) FROM days
      UNION ALL SELECT 1, feed_id, b, n, sum(n) OVER (PARTITION BY feed_id ORDER BY b) FROM blocks
      UNION ALL SELECT 2, feed_id, 0, sum(n), sum(n) FROM days GROUP BY feed_id
      ORDER BY 1, 2, 3`),
    `feed_post_sums ${when}`,
  );
  assert.equal(
    db
      .prepare(`SELECT count(*) FROM feed_post_sums s JOIN (SELECT feed_id, min(${day("post_date")}) AS lo,
          max(${day("post_date")}) AS hi FROM posts GROUP BY 1) p ON p.feed_id = s.feed_id
        WHERE s.level = 2 AND (s.lo > p.lo OR s.hi < p.hi)`)
      .pluck()
      .get(),
    0,
    `feed_post_sums bounds ${when}`,
  );
}

const folder = mkdtempSync(join(tmpdir(), "rollup-hold-"));
after(() => rmSync(folder, { recursive: true, force: true }));

describe("SQLite roll-ups held for a writer's transaction (schema 30)", () => {
  it("equal a recount after batched refreshes, another connection's writes and raw writes under a hold", async () => {
    const path = join(folder, "hold.db");
    const db = new Database(path);
    db.pragma("journal_mode = WAL");
    migrateSqlite(db);
    const store = new SqliteStore(db);
    const next = lcgDraws(30);
    const categories = [
      (await store.addCategory("one")).categoryId,
      (await store.addCategory("two")).categoryId,
    ];
    const fr = (await store.ensureLanguage("fr")).languageId;
    const feeds: number[] = [];
    for (let f = 0; f < 12; f++) {
      const feed = await store.addFeed({
        feedUrl: `https://hold.test/${f}`,
        feedName: `Hold ${f}`,
        categoryId: f % 3 === 2 ? null : categories[f % 2]!,
      });
      feeds.push(feed.feedId);
    }
    // Dates over two years, some on block edges and before 1970, drawn in no order.
    const edge = Math.floor(NOW / DAY / SUM_BLOCK_DAYS) * SUM_BLOCK_DAYS * DAY;
    const date = () => {
      const r = next();
      if (r < 0.05) return Date.UTC(1969, 11, 31, 5);
      if (r < 0.15) return edge - (r < 0.1 ? 1 : 0);
      return NOW - Math.floor(next() * 730 * DAY);
    };
    const post = (f: number, k: number, fields = {}) =>
      incoming(`f${f}-p${k}`, {
        title: `hold feed ${f} post ${k}`,
        content: `<p>words ${f} ${k} ${next()}</p>`,
        publishedAt: date(),
        languageId: next() < 0.3 ? fr : 1,
        ...fields,
      });
    let serial = 0;
    for (let round = 0; round < 6; round++) {
      const updates = feeds.map((feedId, f) => {
        const posts = Array.from({ length: 3 + Math.floor(next() * 12) }, () => post(f, serial++));
        // The same guid again later in the document: a held post edited (re-dated) before settling.
        if (f % 4 === round % 4)
          posts.push({ ...posts[0]!, title: `${posts[0]!.title} again`, publishedAt: date() });
        // A post of an earlier round edited: the triggers move it while the new ones are held.
        if (round > 0 && f % 3 === 0)
          posts.push(post(f, f, { title: `edited ${round}`, publishedAt: date() }));
        // A feed that fails after some good posts: rolled back alone, the others kept.
        if (f === round + 3) posts.push(incoming(""));
        return { feedId, update: { fetchState: {}, posts } };
      });
      const outcomes = await store.applyFeedUpdates!(updates);
      assert.equal(outcomes.filter((o) => !o.ok).length, 1, `one feed failed in round ${round}`);
      checkRollups(db, `after batched refresh ${round}`);
      const one = feeds[round]!;
      await store.applyFeedUpdate(one, {
        fetchState: {},
        posts: [post(round, serial++), post(round, serial++)],
      });
      checkRollups(db, `after a single refresh ${round}`);
    }

    // Another connection, no hold: its inserts, edits and deletes fire the triggers.
    const insertSql = `INSERT INTO posts (feed_id, guid, link, title, excerpt, content, seen_at,
      post_date, language_id, category_id) VALUES (?, ?, 'https://x.test/', 't', 'e', 'c', ?, ?, 1, ?)`;
    const other = new Database(path);
    let insert = other.prepare(insertSql);
    for (let k = 0; k < 40; k++) {
      const f = Math.floor(next() * feeds.length);
      const category = other.prepare("SELECT category_id FROM feeds WHERE id = ?").pluck().get(feeds[f]);
      insert.run(feeds[f], `raw-${k}`, NOW, date(), category);
    }
    other.prepare("UPDATE posts SET post_date = post_date - 90 * 86400000 WHERE id % 7 = 1").run();
    other.prepare("UPDATE posts SET feed_id = ? WHERE id % 11 = 2").run(feeds[0]);
    other.prepare("DELETE FROM posts WHERE id % 9 = 4").run();
    other.close();
    checkRollups(db, "after another connection's writes");

    // Raw writes under a hold: held and older posts edited, moved and deleted, the largest id
    // deleted first so that the next insert takes an id the hold counts as older.
    const stmts = new StatementCache(db);
    insert = db.prepare(insertSql);
    const top = db.prepare("SELECT max(id) FROM posts").pluck().get() as number;
    db.transaction(() => {
      db.prepare("DELETE FROM posts WHERE id = ?").run(top);
      assert.equal(holdRollups(stmts), true);
      assert.equal(holdRollups(stmts), false, "a hold already open is the outer writer's");
      const reused = insert.run(feeds[1], "reused", NOW, date(), categories[1]).lastInsertRowid;
      assert.equal(Number(reused), top, "an id at or below the hold's");
      const cat = db.prepare("SELECT category_id FROM feeds WHERE id = ?").pluck();
      for (let k = 0; k < 30; k++) insert.run(feeds[k % 5], `held-${k}`, NOW, date(), cat.get(feeds[k % 5]));
      db.prepare("UPDATE posts SET post_date = post_date + 3 * 86400000 WHERE id % 5 = 0").run();
      db.prepare("UPDATE posts SET language_id = ? WHERE id % 6 = 1").run(fr);
      db.prepare("UPDATE posts SET feed_id = ?, category_id = NULL WHERE id % 8 = 3").run(feeds[2]);
      db.prepare("DELETE FROM posts WHERE id % 10 = 7").run();
      settlePostRollups(stmts);
    })();
    checkRollups(db, "after raw writes under a hold");
    // A feed removed with held posts of another: its rows go, the rest stay counted.
    await store.removeFeed(feeds[3]!);
    checkRollups(db, "after a feed was removed");
    await store.close();
  });

  it("is taken again on a database put back to schema 29, and a store below schema 30 lets the triggers count", async () => {
    const db = new Database(":memory:");
    migrateSqlite(db, 29);
    const store = new SqliteStore(db);
    const feed = await store.addFeed({ feedUrl: "https://old.test/", feedName: "Old" });
    const posts = Array.from({ length: 25 }, (_, k) =>
      incoming(`old-${k}`, { publishedAt: NOW - k * 3 * DAY }),
    );
    await store.applyFeedUpdate(feed.feedId, { fetchState: {}, posts });
    migrateSqlite(db);
    checkRollups(db, "after schema 30");
    db.exec("DELETE FROM schema_migrations WHERE version >= 30");
    migrateSqlite(db);
    const guarded = db
      .prepare("SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND sql LIKE '%posts_rollup_hold%'")
      .pluck()
      .get();
    assert.equal(guarded, 7, "the seven roll-up triggers of posts pass over held posts");
    await store.applyFeedUpdate(feed.feedId, {
      fetchState: {},
      posts: [incoming("old-new", { publishedAt: NOW - 200 * DAY }), incoming("old-3", { publishedAt: NOW })],
    });
    checkRollups(db, "after migration 30 ran again and a refresh");
    await store.close();
  });
});
