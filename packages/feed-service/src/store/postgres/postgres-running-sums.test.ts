/**
 * Migration 27's running sums and month ranks against brute force on a real PostgreSQL server:
 * feed rankings over windows of every kind, the window's clicks, category lists since a post id
 * (shallow and deep pages) and a large feed's deep pages, on many feeds of heavy-tailed sizes
 * whose archives are stored out of date order, with clicks written out of time order, re-dated,
 * re-filed, moved and deleted posts, moved and deleted clicks, a removed category and removed
 * feeds; the tables themselves against a recount after each kind of write; an upgraded (25 -> 27)
 * database against a fresh one, and the migration taken again.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type pg from "pg";
import { loadDemoData } from "../../demo/load-demo-data.js";
import { clickAtRandom, rankingAnswers, storeManyFeeds } from "../../test-support/many-feeds-corpus.js";
import { lcgDraws } from "../../test-support/seeded-draws.js";
import { incoming } from "../../test-support/store-contract/contract-fixture.js";
import { startTestPostgres, type TestPostgres } from "../../test-support/test-postgres-server.js";
import type { Store } from "../store.js";
import { openPostgresPool, rows } from "./postgres-connection.js";
import { countedWordsColumns } from "./postgres-counted-words.js";
import { windowClicks } from "./postgres-feed-rankings.js";
import { latestPostgresVersion, migratePostgres } from "./postgres-migrations.js";
import { monthsAbove } from "./postgres-page-seek.js";
import { PostgresReadSide, resolveReadSideOptions } from "./postgres-read-side.js";
import { SUM_BLOCK_DAYS } from "./postgres-running-sums.js";
import { openPostgresStore, PostgresStore } from "./postgres-store.js";
import { storyClaimSchema } from "./postgres-story-locks.js";

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 0, 10, 12);
/** One feed of 1,500 posts among the heavy-tailed rest; short texts. */
const PG_CORPUS = { words: { title: 3, excerpt: 4, content: 6 }, largestFirst: 1500, now: NOW };

let server: TestPostgres;
before(async () => {
  server = await startTestPostgres();
});
after(() => server?.stop());

const q = async (pool: pg.Pool, text: string, values: unknown[] = []) =>
  (await pool.query({ text, values, rowMode: "array" })).rows.map((r: unknown[]) => r.map(Number));

/** The tables as counts per key (running sums differenced, zeros left out), and the same counted from the rows. */
async function tablesAndCounts(pool: pg.Pool) {
  const block = (day: string) => `floor((${day}) / ${SUM_BLOCK_DAYS}.0)::integer`;
  const sums = (table: string) => `SELECT feed_id, block, n FROM (
      SELECT feed_id, first_block + i::integer - 1 AS block, v - coalesce(lag(v) OVER (PARTITION BY feed_id ORDER BY i), 0) AS n
      FROM ${table}, unnest(through) WITH ORDINALITY AS u (v, i)) x WHERE n <> 0 ORDER BY 1, 2`;
  const days = (table: string) => `SELECT block, feed_id, pos, n FROM (
      SELECT block, feed_id, i::integer - 1 AS pos, v - coalesce(lag(v) OVER (PARTITION BY block, feed_id ORDER BY i), 0) AS n
      FROM ${table}, unnest(through) WITH ORDINALITY AS u (v, i)) x WHERE n <> 0 ORDER BY 1, 2, 3`;
  const dated = {
    post: "SELECT feed_id, post_day(post_date) AS day FROM posts",
    click: "SELECT p.feed_id, post_day(k.clicked_at) AS day FROM clicks k JOIN posts p ON p.id = k.post_id",
  };
  const out: Record<string, { kept: number[][]; counted: number[][] }> = {};
  for (const of of ["post", "click"] as const) {
    out[`feed_${of}_sums`] = {
      kept: await q(pool, sums(`feed_${of}_sums`)),
      counted: await q(
        pool,
        `SELECT feed_id, ${block("day")}, count(*) FROM (${dated[of]}) d GROUP BY 1, 2 ORDER BY 1, 2`,
      ),
    };
    out[`feed_${of}_days`] = {
      kept: await q(pool, days(`feed_${of}_days`)),
      counted: await q(
        pool,
        `SELECT ${block("day")} AS b, feed_id, day - ${block("day")} * ${SUM_BLOCK_DAYS}, count(*) FROM (${dated[of]}) d
          GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
      ),
    };
    // Rows left with nothing, and running counts that fall, are wrong.
    out[`feed_${of} empty or falling`] = {
      kept: await q(
        pool,
        `SELECT count(*) FROM feed_${of}_sums WHERE through[cardinality(through)] <= 0
          OR EXISTS (SELECT 1 FROM unnest(through) WITH ORDINALITY AS u (v, i) WHERE v < coalesce(through[i - 1], 0))`,
      ),
      counted: [[0]],
    };
    out[`feed_${of}_days empty`] = {
      kept: await q(pool, `SELECT count(*) FROM feed_${of}_days WHERE through[cardinality(through)] <= 0`),
      counted: [[0]],
    };
  }
  out.post_month_ranks = {
    kept: await q(
      pool,
      "SELECT category_id, month, language_id, id, day, rank FROM post_month_ranks ORDER BY 1, 2, 3, 4",
    ),
    counted: await q(
      pool,
      `SELECT category_id, floor(post_day(post_date) / 28.0)::integer AS m, language_id, id, post_day(post_date),
          row_number() OVER (PARTITION BY category_id, floor(post_day(post_date) / 28.0)::integer, language_id ORDER BY id)
        FROM posts WHERE category_id IS NOT NULL ORDER BY 1, 2, 3, 4`,
    ),
  };
  return out;
}

async function checkTables(pool: pg.Pool, when: string): Promise<void> {
  for (const [table, { kept, counted }] of Object.entries(await tablesAndCounts(pool))) {
    assert.deepEqual(kept, counted, `${table} ${when}`);
  }
}

/** The post ids clicks are drawn from, in id order. */
const postIds = async (pool: pg.Pool) =>
  (await q(pool, "SELECT id FROM posts ORDER BY id")).map(([id]) => id!);

async function checkReads(store: Store, pool: pg.Pool, when: string): Promise<void> {
  const prolific = `SELECT feed_id, count(*) AS n FROM posts WHERE post_date >= $1
    GROUP BY feed_id ORDER BY n DESC, feed_id LIMIT $2`;
  const popular = `SELECT p.feed_id, count(*) AS n FROM clicks k JOIN posts p ON p.id = k.post_id
    WHERE k.clicked_at >= $1 GROUP BY p.feed_id ORDER BY n DESC, p.feed_id LIMIT $2`;
  const days = [0.25, 0.5, 1, 1.7, 7, 30, 63, 64, 65, 100, 128.3, 365, 400, 700, 1099, 1100.5, 5000, 36_500];
  // Window starts on day and block edges too, and on the exact date of a post.
  const [[postDate]] = await q(pool, "SELECT post_date FROM posts ORDER BY id LIMIT 1 OFFSET 77");
  const edges = [
    Math.floor(NOW / DAY) * DAY,
    Math.floor(NOW / DAY / SUM_BLOCK_DAYS) * SUM_BLOCK_DAYS * DAY,
    (Math.floor(NOW / DAY / SUM_BLOCK_DAYS) - 3) * SUM_BLOCK_DAYS * DAY,
    postDate!,
  ];
  for (const since of [...days.map((d) => Math.round(NOW - d * DAY)), ...edges, NOW + DAY]) {
    const at = `${new Date(since).toISOString()} ${when}`;
    for (const limit of [1, 7, 1000]) {
      assert.deepEqual(
        (await store.mostProlificFeeds({ since, limit })).map((f) => [f.feedId, f.periodPosts]),
        await q(pool, prolific, [since, limit]),
        `prolific since ${at} limit ${limit}`,
      );
      assert.deepEqual(
        (await store.mostPopularFeeds({ since, limit })).map((f) => [f.feedId, f.periodClicks]),
        await q(pool, popular, [since, limit]),
        `popular since ${at} limit ${limit}`,
      );
    }
    const [[clicks]] = await q(pool, "SELECT count(*) FROM clicks WHERE clicked_at >= $1", [since]);
    assert.equal(await windowClicks(pool, since), clicks, `window clicks since ${at}`);
  }
}

/** Category lists since a post id, every shape of page, against brute force; the posts compared. */
async function checkSincePages(store: Store, pool: pg.Pool, when: string): Promise<number> {
  const reference = `SELECT id FROM posts WHERE category_id = $1 AND id > $2
    AND ($3::int[] IS NULL OR language_id = ANY($3::int[])) AND ($4::bigint IS NULL OR post_date > $4)
    ORDER BY post_date DESC, id DESC LIMIT $5 OFFSET $6`;
  const ids = (await q(pool, "SELECT id FROM posts ORDER BY id")).map(([id]) => id!);
  const categories = (await q(pool, "SELECT id FROM categories ORDER BY id")).map(([id]) => id!);
  let compared = 0;
  for (const categoryId of categories) {
    for (const at of [0, 0.1, 0.5, 0.9, 0.999]) {
      const sincePostId = ids[Math.floor(at * (ids.length - 1))]!;
      for (const [languageIds, sinceDate] of [
        [null, null],
        [[1], null],
        [[3, 4], null],
        [null, NOW - 300 * DAY],
      ] as const) {
        const args = [categoryId, sincePostId, languageIds, sinceDate];
        const total = (await q(pool, reference, [...args, null, 0])).length;
        // Each way of counting the months gives the posts above the id per month.
        const perMonth = await q(
          pool,
          `SELECT floor(post_day(post_date) / 28.0)::integer AS m, count(*) FROM posts WHERE category_id = $1 AND id > $2
            AND ($3::int[] IS NULL OR language_id = ANY($3::int[]))
            AND ($4::bigint IS NULL OR floor(post_day(post_date) / 28.0) >= floor(post_day($4) / 28.0))
            GROUP BY 1 ORDER BY 1 DESC`,
          args,
        );
        const scope = {
          categoryId,
          sincePostId,
          languageIds: languageIds === null ? null : [...languageIds],
          sinceDate,
        };
        for (const way of ["above", "below", "seeks", undefined] as const) {
          assert.deepEqual(
            await monthsAbove(pool, scope, way),
            perMonth,
            `months above ${sincePostId} by ${way} ${when}`,
          );
        }
        for (const [offset, limit] of [
          [0, 20],
          [500, 20],
          [1001, 20],
          [Math.floor(total / 2), 30],
          [Math.max(0, total - 7), 20],
          [total + 5, 20],
        ] as const) {
          const page = await store.postsByCategory({
            limit,
            offset,
            categoryId,
            languageIds: languageIds === null ? null : [...languageIds],
            sincePostId,
            sinceDate,
          });
          const expected = (await q(pool, reference, [...args, limit, offset])).map(([id]) => id);
          assert.deepEqual(
            page.map((p) => p.postId),
            expected,
            `category ${categoryId} since ${sincePostId} ${languageIds} ${sinceDate} ${offset} of ${total} ${when}`,
          );
          compared += expected.length;
        }
      }
    }
  }
  // The largest feed's deep pages (its days from its running sums).
  const [[feedId, size]] = await q(
    pool,
    "SELECT feed_id, count(*) FROM posts GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1",
  );
  for (const offset of [1001, Math.floor(size! / 2), size! - 5, size! + 1]) {
    const page = await store.postsByFeed({ feedId: feedId!, limit: 20, offset });
    const expected = await q(
      pool,
      "SELECT id FROM posts WHERE feed_id = $1 ORDER BY post_date DESC, id DESC LIMIT 20 OFFSET $2",
      [feedId, offset],
    );
    assert.deepEqual(
      page.map((p) => p.postId),
      expected.map(([id]) => id),
      `feed ${feedId} offset ${offset} of ${size} ${when}`,
    );
  }
  return compared;
}

async function checkAll(store: Store, pool: pg.Pool, when: string): Promise<number> {
  await checkTables(pool, when);
  await checkReads(store, pool, when);
  return checkSincePages(store, pool, when);
}

describe("postgres running sums and month ranks (migration 27)", () => {
  it("rank feeds and page lists since a post id exactly, on many feeds stored out of order, after every kind of write", async () => {
    const url = await server.createDatabase("running_sums_writes");
    const store = await openPostgresStore({ url });
    const pool = await openPostgresPool({ url });
    try {
      const next = lcgDraws(27);
      await storeManyFeeds(store, next, { ...PG_CORPUS, feeds: 160 });
      await clickAtRandom(store, await postIds(pool), next, 2500, NOW);
      const [[posts]] = await q(pool, "SELECT count(*) FROM posts");
      assert.ok(posts! > 3000, `${posts} posts`);
      assert.ok((await checkAll(store, pool, "after loading")) > 1000);

      // Re-dated posts (a feed that edits its dates), some across block edges and before 1970,
      // re-filed in another language too.
      const moved = (await rows<{ feed_id: number; guid: string }>(
        pool,
        "SELECT feed_id, guid FROM posts WHERE id % 13 = 0 ORDER BY id",
      )) as Array<{ feed_id: number; guid: string }>;
      for (const [i, { feed_id, guid }] of moved.entries()) {
        const date = i % 11 === 0 ? Date.UTC(1969, 11, 30, 5) : NOW - Math.floor(next() * 1200 * DAY);
        await store.applyFeedUpdate(feed_id, {
          fetchState: {},
          posts: [
            incoming(guid, { title: `moved ${i} ${guid}`, publishedAt: date, languageId: 1 + (i % 2) * 2 }),
          ],
        });
      }
      await checkAll(store, pool, "after re-dating");

      // Another writer: posts moved to another feed and category (their clicks with them), clicks
      // moved to another post and deleted, posts deleted (their clicks with them).
      await pool.query(`UPDATE posts SET feed_id = (SELECT min(id) FROM feeds WHERE id <> posts.feed_id),
        category_id = (SELECT max(id) FROM categories) WHERE id % 19 = 5`);
      await pool.query(
        "UPDATE clicks SET post_id = post_id + 1 WHERE id % 23 = 1 AND post_id + 1 IN (SELECT id FROM posts)",
      );
      await pool.query("DELETE FROM clicks WHERE id % 29 = 2");
      await pool.query(
        "DELETE FROM posts WHERE id IN (SELECT id FROM posts WHERE clicks > 0 ORDER BY id LIMIT 40)",
      );
      await pool.query("DELETE FROM posts WHERE id % 17 = 3");
      await checkAll(store, pool, "after another writer's moves and deletes");

      const [[first]] = await q(pool, "SELECT id FROM categories ORDER BY id");
      await store.removeCategory(first!);
      const largest = (
        await q(pool, "SELECT feed_id FROM posts GROUP BY feed_id ORDER BY count(*) DESC LIMIT 3")
      ).map(([id]) => id!);
      for (const feedId of largest.slice(1)) await store.removeFeed(feedId);
      await clickAtRandom(store, await postIds(pool), next, 300, NOW);
      // New posts dated before the others of their feed.
      const [[feedId]] = await q(pool, "SELECT feed_id FROM posts GROUP BY 1 ORDER BY count(*) DESC LIMIT 1");
      await store.applyFeedUpdate(feedId!, {
        fetchState: {},
        posts: Array.from({ length: 50 }, (_, i) =>
          incoming(`late-${i}`, { publishedAt: NOW - (2000 + i * 9) * DAY, languageId: 1 }),
        ),
      });
      await checkAll(store, pool, "after removals, more clicks and late old posts");

      for (const feed of await store.adminFeeds()) await store.removeFeed(feed.feedId);
      for (const table of [
        "feed_post_sums",
        "feed_post_days",
        "feed_click_sums",
        "feed_click_days",
        "post_month_ranks",
      ]) {
        assert.deepEqual(await q(pool, `SELECT count(*) FROM ${table}`), [[0]], `${table} emptied`);
      }
    } finally {
      await pool.end();
      await store.close();
    }
  });

  it("answer the same on a database upgraded from 25 as on a fresh one, writes after it included", async () => {
    const urls = [
      await server.createDatabase("running_sums_fresh"),
      await server.createDatabase("running_sums_25"),
    ];
    const pools = await Promise.all(urls.map((url) => openPostgresPool({ url })));
    assert.equal(await migratePostgres(pools[0]!), latestPostgresVersion);
    assert.equal(await migratePostgres(pools[1]!, 25), 25);
    // Today's writers claim story keys in migration 28's table: it is added (unrecorded) so that
    // they can write the database at 25 as its own code did; 28 is idempotent when it runs later.
    await pools[1]!.query(storyClaimSchema);
    // Likewise migration 48's columns, which today's smart categories' writer sets.
    await pools[1]!.query(countedWordsColumns);
    // A store's writers on each (the upgraded one still at 25).
    const stores = pools.map(
      (pool) => new PostgresStore(pool, new PostgresReadSide(pool, resolveReadSideOptions({}))),
    );
    try {
      for (const [i, store] of stores.entries()) {
        await loadDemoData(store, { posts: 1200, now: NOW, seed: 5 });
        await storeManyFeeds(store, lcgDraws(4), { ...PG_CORPUS, feeds: 60 });
        await clickAtRandom(store, await postIds(pools[i]!), lcgDraws(9), 300, NOW);
      }
      const progress: Array<[string, number, number]> = [];
      await migratePostgres(pools[1]!, undefined, (step, done, total) => progress.push([step, done, total]));
      assert.ok(progress.length >= 2 && progress.at(-1)![1] === progress.at(-1)![2], "progress to the end");
      for (const [i, store] of stores.entries()) {
        const feed = await store.addFeed({ feedUrl: "https://after-27.test/feed", feedName: "After" });
        const posts = Array.from({ length: 30 }, (_, j) =>
          incoming(`after-${j}`, { title: `after ${j}`, publishedAt: NOW - j * 5 * DAY }),
        );
        await store.applyFeedUpdate(feed.feedId, { fetchState: {}, posts });
        await store.applyFeedUpdate(feed.feedId, {
          fetchState: {},
          posts: [incoming("after-3", { title: "after moved", publishedAt: NOW - 400 * DAY })],
        });
        await clickAtRandom(store, await postIds(pools[i]!), lcgDraws(11), 50, NOW);
        await checkTables(pools[i]!, i === 0 ? "fresh" : "upgraded");
      }
      const schema = (pool: pg.Pool) =>
        q(
          pool,
          `SELECT count(*) FILTER (WHERE table_name IN ('post_days', 'click_days')), count(*) FROM information_schema.tables
            WHERE table_schema = current_schema()`,
        );
      assert.deepEqual(
        await schema(pools[1]!),
        await schema(pools[0]!),
        "the upgraded tables are the fresh ones",
      );
      assert.deepEqual((await schema(pools[0]!))[0]![0], 0, "post_days and click_days are gone");
      const triggers = (pool: pg.Pool) =>
        rows(
          pool,
          "SELECT tgname, pg_get_triggerdef(oid) AS def FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1",
        );
      assert.deepEqual(await triggers(pools[1]!), await triggers(pools[0]!), "the same triggers");
      const answers = async (store: Store, pool: pg.Pool) =>
        rankingAnswers(
          store,
          (await q(pool, "SELECT id FROM posts ORDER BY id")).map(([id]) => id!),
          NOW,
          1200,
          (since) => windowClicks(pool, since),
        );
      assert.deepEqual(await answers(stores[1]!, pools[1]!), await answers(stores[0]!, pools[0]!));
      // Taken again (a test re-running later migrations), it makes the same tables anew.
      await pools[1]!.query("DELETE FROM schema_migrations WHERE version >= 27");
      assert.equal(await migratePostgres(pools[1]!), latestPostgresVersion);
      assert.deepEqual(await tablesAndCounts(pools[1]!), await tablesAndCounts(pools[0]!));
      await checkTables(pools[1]!, "after taking 27 again");
    } finally {
      for (const pool of pools) await pool.end();
    }
  });
});
