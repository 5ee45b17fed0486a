/**
 * Clicks on PostgreSQL in one statement (`record_click`, postgres-click-schema.ts), on a real
 * server: the roll-ups equal a recount after many clicks at once on every connection of the pool,
 * clicks racing from two pools (two processes) count each client once, and a click touches no
 * index of posts (heap-only), on its first click too however wide the row kept in line (migration
 * 31). Tests first written on branch pgingest31.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type pg from "pg";
import { runningDayCounts, runningTotals } from "../../test-support/postgres-running-counts.js";
import { DAY, incoming, T0 } from "../../test-support/store-contract/contract-fixture.js";
import { startTestPostgres, type TestPostgres } from "../../test-support/test-postgres-server.js";
import { clickedFeedsSchema } from "./postgres-clicked-feeds.js";
import { openPostgresPool, rows } from "./postgres-connection.js";
import { languageTotalsSchema } from "./postgres-language-totals.js";
import { clickSumsTrigger } from "./postgres-running-sums.js";
import { openPostgresStore, type PostgresStore } from "./postgres-store.js";

let server: TestPostgres;
before(async () => {
  server = await startTestPostgres();
});
after(() => server?.stop());

/**
 * Clicks each post once in one transaction, rolled back after: each click's link, and how many
 * updates of posts that transaction made and how many of them were heap-only.
 */
async function clickOnceEach(
  pool: pg.Pool,
  ids: readonly number[],
): Promise<{ links: string[]; stats: Array<{ updated: number; hot: number }> }> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const links: string[] = [];
    for (const id of ids) {
      const { rows: found } = await client.query("SELECT record_click($1, 'h', $2, $3) AS link", [
        id,
        T0,
        T0 - 600_000,
      ]);
      links.push(found[0].link);
    }
    const { rows: stats } = await client.query<{ updated: number; hot: number }>(
      `SELECT n_tup_upd::int AS updated, n_tup_hot_upd::int AS hot FROM pg_stat_xact_user_tables
        WHERE relid = 'posts'::regclass`,
    );
    return { links, stats };
  } finally {
    await client.query("ROLLBACK");
    client.release();
  }
}

/** Feeds a..e (c in a category), posts over several days and two languages in each. */
async function seed(store: PostgresStore): Promise<number[]> {
  const web = (await store.addCategory("Web")).categoryId;
  const fr = (await store.ensureLanguage("fr", "French")).languageId;
  const ids: number[] = [];
  for (const [f, name] of ["a", "b", "c", "d", "e"].entries()) {
    const feed = await store.addFeed({
      feedUrl: `https://${name}.test/feed`,
      feedName: `Feed ${name}`,
      ...(name === "c" ? { categoryId: web } : {}),
    });
    ids.push(feed.feedId);
    await store.applyFeedUpdate(feed.feedId, {
      fetchState: {},
      posts: Array.from({ length: 12 }, (_, i) =>
        incoming(`f${f}-${i}`, { publishedAt: T0 - (i % 5) * DAY, languageId: i % 3 === 0 ? fr : 1 }),
      ),
    });
  }
  return ids;
}

/** The roll-ups and the same figures counted from posts and clicks. */
async function rollupsAndRecount(pool: pg.Pool) {
  const q = (text: string) => rows(pool, text);
  return {
    rollups: {
      scope: await q(`SELECT category_id, language_id, day, posts, clicks FROM scope_days
        WHERE posts <> 0 OR clicks <> 0 ORDER BY 1, 2, 3`),
      clickDays: await q(runningDayCounts("click")),
      clickTotals: await q(runningTotals("click")),
      clicked: await q("SELECT id, clicks, post_date, category_id FROM clicked_posts ORDER BY id"),
      postClicks: await q("SELECT id, clicks FROM posts WHERE clicks > 0 ORDER BY id"),
    },
    recount: {
      scope: await q(`SELECT category_id, language_id, post_day(post_date) AS day, count(*)::int AS posts,
        sum(clicks) AS clicks FROM posts GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`),
      clickDays: await q(`SELECT p.feed_id, post_day(k.clicked_at) AS day, count(*)::int AS n
        FROM clicks k JOIN posts p ON p.id = k.post_id GROUP BY 1, 2 ORDER BY 1, 2`),
      clickTotals: await q(`SELECT p.feed_id, count(*)::int AS total
        FROM clicks k JOIN posts p ON p.id = k.post_id GROUP BY 1 ORDER BY 1`),
      clicked: await q("SELECT id, clicks, post_date, category_id FROM posts WHERE clicks > 0 ORDER BY id"),
      postClicks: await q("SELECT post_id AS id, count(*)::int AS clicks FROM clicks GROUP BY 1 ORDER BY 1"),
    },
  };
}

async function withDatabase<T>(
  name: string,
  fn: (store: PostgresStore, pool: pg.Pool, url: string) => Promise<T>,
): Promise<T> {
  const url = await server.createDatabase(name);
  const store = await openPostgresStore({ url });
  const pool = await openPostgresPool({ url });
  try {
    return await fn(store, pool, url);
  } finally {
    await store.close();
    await pool.end();
  }
}

describe("postgres clicks in one statement", () => {
  it("keeps the roll-ups equal to a recount after many clicks at once", () =>
    withDatabase("clicks_rollups", async (store, pool) => {
      await seed(store);
      const posts = await rows<{ id: number }>(pool, "SELECT id FROM posts ORDER BY id");
      // All at once, on every connection of the pool. Each client clicks every post twice (counted
      // once) and a post that does not exist (answered with nothing).
      const clicks = posts.flatMap((p, i) =>
        ["x", "y", "x"].map((client) => store.recordClick(p.id, client, T0 + i * 1000, 600_000)),
      );
      const answers = await Promise.all([...clicks, store.recordClick(999_999, "x", T0, 600_000)]);
      assert.equal(answers.at(-1), undefined);
      assert.ok(answers.slice(0, -1).every((a) => a?.link.startsWith("https://example.test/")));
      const [counted] = await rows<{ n: number }>(pool, "SELECT count(*)::int AS n FROM clicks");
      assert.equal(counted!.n, posts.length * 2, "each client's repeat within the window was not counted");
      const { rollups, recount } = await rollupsAndRecount(pool);
      assert.deepEqual(rollups, recount);
    }));

  it("counts each client's click once when two processes race on the same posts", () =>
    withDatabase("clicks_race", async (store, pool, url) => {
      await seed(store);
      const other = await openPostgresStore({ url });
      try {
        const posts = await rows<{ id: number }>(pool, "SELECT id FROM posts ORDER BY id");
        const clicks = [store, other].flatMap((s) =>
          posts.flatMap((p) => ["u", "v", "w"].map((client) => s.recordClick(p.id, client, T0, 600_000))),
        );
        await Promise.all(clicks);
        const [counted] = await rows<{ n: number }>(pool, "SELECT count(*)::int AS n FROM clicks");
        assert.equal(counted!.n, posts.length * 3);
        const { rollups, recount } = await rollupsAndRecount(pool);
        assert.deepEqual(rollups, recount);
      } finally {
        await other.close();
      }
    }));

  it("stores clicks that arrive together as the same clicks one at a time would (migration 43)", async () => {
    // The writer sends a click at once unless a call under way holds a click of its post: the
    // clicks on a after the first wait for it and go together, in arrival order.
    const clicksOf = async (store: PostgresStore, pool: pg.Pool, together: boolean) => {
      const [a, b, c] = (await rows<{ id: number }>(pool, "SELECT id FROM posts ORDER BY id LIMIT 3")).map(
        (p) => p.id,
      );
      const sequence: Array<[number, string, number]> = [
        [c!, "z", T0], // alone: the writer was free
        [a!, "x", T0 + 1_000],
        [a!, "x", T0 + 2_000], // the same client and post in the same call: counted once
        [a!, "y", T0 + 2_000], // another client: counted
        [b!, "x", T0 + 3_000], // another post: counted
        [999_999, "x", T0 + 3_000], // no such post: not found
        [2 ** 31, "x", T0 + 3_000], // past any post id
        [b!, "x", T0 + 3_000 + 600_000], // the window after b's first click: counted again
        [a!, "y", T0 + 1_500], // dated before y's click on a, in arrival order: counted, as one at a time
        [c!, "z", T0 + 4_000], // z's click on c is in the previous call, within the window
      ];
      const answers = [];
      if (together) {
        answers.push(
          ...(await Promise.all(sequence.map(([id, who, at]) => store.recordClick(id, who, at, 600_000)))),
        );
      } else {
        for (const [id, who, at] of sequence) answers.push(await store.recordClick(id, who, at, 600_000));
      }
      return {
        answers: answers.map((x) => x?.link ?? null),
        clicks: await rows(pool, "SELECT post_id, client_hash, clicked_at FROM clicks ORDER BY 1, 2, 3"),
        ...(await rollupsAndRecount(pool)),
      };
    };
    const together = await withDatabase("clicks_together", async (store, pool) => {
      await seed(store);
      return clicksOf(store, pool, true);
    });
    const alone = await withDatabase("clicks_alone", async (store, pool) => {
      await seed(store);
      return clicksOf(store, pool, false);
    });
    assert.deepEqual(together.rollups, together.recount);
    assert.deepEqual(
      together.answers.map((a) => a !== null),
      [true, true, true, true, true, false, false, true, true, true],
    );
    assert.equal(together.clicks.length, 6);
    assert.deepEqual(together, alone);
  });

  it("stores calls in flight at once exactly, without deadlocks (migration 43)", () =>
    withDatabase("clicks_in_flight", async (store, pool, url) => {
      await seed(store);
      const one = await openPostgresPool({ url });
      const two = await openPostgresPool({ url });
      const call = (sql: pg.Pool | pg.PoolClient, clicks: ReadonlyArray<[number, string, number]>) =>
        rows<{ links: Array<string | null> }>(
          sql,
          "SELECT record_clicks($1::integer[], $2::text[], $3::bigint[], $4) AS links",
          [clicks.map((c) => c[0]), clicks.map((c) => c[1]), clicks.map((c) => c[2]), 600_000],
        );
      try {
        const [a, b] = (await rows<{ id: number }>(pool, "SELECT id FROM posts ORDER BY id LIMIT 2")).map(
          (p) => p.id,
        );
        // The same client on the same post in two calls at once (two processes): the second
        // waits for the first's commit and sees its click.
        const held = await one.connect();
        try {
          await held.query("BEGIN");
          await call(held, [
            [a!, "s", T0],
            [b!, "s", T0],
          ]);
          const second = call(two, [
            [b!, "t", T0],
            [a!, "s", T0 + 1_000],
          ]);
          await new Promise((resolve) => setTimeout(resolve, 200));
          await held.query("COMMIT");
          await second;
        } finally {
          held.release();
        }
        const pairs = await rows(pool, "SELECT post_id, client_hash FROM clicks ORDER BY 1, 2");
        assert.deepEqual(pairs, [
          { post_id: a, client_hash: "s" },
          { post_id: b, client_hash: "s" },
          { post_id: b, client_hash: "t" },
        ]);
        // Many calls at once (single clicks among them) on the posts of two feeds, whose scope_days,
        // language_totals and running-sum rows every call shares, in random orders and mixes: none deadlocks (a call
        // that did would fail here; the store's writer would hide it by sending its clicks again),
        // and the roll-ups equal a recount. A pause after each scope_days row a call takes (a
        // trigger of this test) widens the window in which two calls taking them in opposite
        // orders would deadlock.
        await pool.query(`CREATE FUNCTION test_pause() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN PERFORM pg_sleep(0.005); RETURN NULL; END $$;
          CREATE TRIGGER test_pause AFTER UPDATE ON scope_days FOR EACH ROW EXECUTE FUNCTION test_pause();`);
        const feeds = await rows<{ id: number }>(
          pool,
          `SELECT id FROM posts WHERE feed_id IN (SELECT feed_id FROM posts ORDER BY id LIMIT 1)
            OR feed_id IN (SELECT feed_id FROM posts ORDER BY id DESC LIMIT 1) ORDER BY id`,
        );
        let state = 7;
        const random = (n: number) => {
          state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
          return state % n;
        };
        const caller = async (sql: pg.Pool, name: string) => {
          for (let i = 0; i < 25; i++) {
            const batch = Array.from({ length: 1 + random(6) }, (_, j): [number, string, number] => [
              feeds[random(feeds.length)]!.id,
              `${name}${i}-${j}`,
              T0 + random(3) * DAY,
            ]);
            // A batch of one goes as the writer sends it: record_click.
            if (batch.length === 1) {
              const [[id, who, at]] = batch as [[number, string, number]];
              await rows(sql, "SELECT record_click($1, $2, $3, $4)", [id, who, at, at - 600_000]);
            } else await call(sql, batch);
          }
        };
        await Promise.all([caller(one, "p"), caller(two, "q"), caller(one, "r"), caller(two, "s")]);
        const [counted] = await rows<{ n: number }>(pool, "SELECT count(*)::int AS n FROM clicks");
        assert.ok(counted!.n > 3);
        const { rollups, recount } = await rollupsAndRecount(pool);
        assert.deepEqual(rollups, recount);
      } finally {
        await one.end();
        await two.end();
      }
    }));

  it("writes the same roll-up rows as migration 44's upserts, on a click's single UPDATEs and their fallbacks (migration 45)", async () => {
    // One feed's posts clicked one at a time: first clicks of a post, of a day and of a block (the
    // rows missing or ending before the click: the upserts), clicks on the last day (the single
    // UPDATEs), a click dated before its feed's last day (merged), a post re-filed under another
    // language and clicked again, a click undone. Run on migration 45's triggers and on 44's
    // (their functions put back), every roll-up row compared whole.
    const run = async (name: string, before45: boolean) =>
      withDatabase(name, async (store, pool) => {
        await seed(store);
        if (before45) {
          await pool.query(clickSumsTrigger);
          await pool.query(clickedFeedsSchema);
          await pool.query(languageTotalsSchema);
          await pool.query(`DROP TRIGGER posts_track_rollups_update ON posts;
            CREATE TRIGGER posts_track_rollups_update AFTER UPDATE OF feed_id, category_id, language_id, post_date, clicks
              ON posts FOR EACH ROW WHEN (OLD.feed_id IS DISTINCT FROM NEW.feed_id
                OR OLD.category_id IS DISTINCT FROM NEW.category_id OR OLD.language_id IS DISTINCT FROM NEW.language_id
                OR OLD.post_date IS DISTINCT FROM NEW.post_date OR OLD.clicks IS DISTINCT FROM NEW.clicks)
              EXECUTE FUNCTION posts_track_rollups();`);
        }
        const posts = (
          await rows<{ id: number }>(
            pool,
            "SELECT id FROM posts WHERE feed_id = (SELECT min(feed_id) FROM posts) ORDER BY id",
          )
        ).map((p) => p.id);
        const [p1, p2, p3] = posts as [number, number, number];
        const sequence: Array<[number, string, number]> = [
          [p1, "a", T0],
          [p1, "b", T0 + 1_000],
          [p2, "a", T0 + 2_000],
          [p2, "b", T0 + DAY],
          [p3, "a", T0 + DAY + 1_000],
          [p1, "c", T0 + 70 * DAY],
          [p3, "b", T0 + 70 * DAY + 1_000],
          [p2, "c", T0 + 2 * DAY],
          [p3, "c", T0 + 70 * DAY + 2_000],
        ];
        const click = (id: number, who: string, at: number) => store.recordClick(id, who, at, 600_000);
        for (const [id, who, at] of sequence) assert.ok(await click(id, who, at));
        // Re-filed under the seed's other language.
        await pool.query(
          `UPDATE posts SET language_id = CASE language_id WHEN 1 THEN (SELECT max(language_id) FROM posts) ELSE 1 END
            WHERE id = $1`,
          [p1],
        );
        assert.ok(await click(p1, "d", T0 + 70 * DAY + 3_000));
        // Re-dated within its day and then to another day, its count moved in the same updates (by
        // one and back, so that it still equals its clicks).
        await pool.query("UPDATE posts SET post_date = post_date + 1, clicks = clicks + 1 WHERE id = $1", [
          p2,
        ]);
        await pool.query("UPDATE posts SET post_date = post_date + $2, clicks = clicks - 1 WHERE id = $1", [
          p2,
          3 * DAY,
        ]);
        assert.ok(await click(p2, "d", T0 + 70 * DAY + 3_500));
        await pool.query("DELETE FROM clicks WHERE id = (SELECT max(id) FROM clicks WHERE post_id = $1)", [
          p3,
        ]);
        await pool.query("UPDATE posts SET clicks = clicks - 1 WHERE id = $1", [p3]);
        assert.ok(await click(p3, "d", T0 + 70 * DAY + 4_000));
        const q = (text: string) => rows(pool, text);
        const languageRecount = await q(`SELECT language_id, coalesce(category_id, 0) AS category_key,
          ((day % 32) + 32) % 32 AS stripe, sum(posts)::bigint AS posts, sum(clicks)::bigint AS clicks
          FROM scope_days GROUP BY 1, 2, 3 HAVING sum(posts) <> 0 OR sum(clicks) <> 0 ORDER BY 1, 2, 3`);
        return {
          ...(await rollupsAndRecount(pool)),
          languageRecount,
          rows: {
            languages: await q(`SELECT language_id, category_key, stripe, posts, clicks FROM language_totals
              WHERE posts <> 0 OR clicks <> 0 ORDER BY 1, 2, 3`),
            clicked: await q("SELECT * FROM clicked_posts ORDER BY id"),
            clickSums: await q("SELECT * FROM feed_click_sums ORDER BY feed_id"),
            clickDays: await q("SELECT * FROM feed_click_days ORDER BY block, feed_id"),
            scope: await q("SELECT * FROM scope_days ORDER BY category_id, language_id, day"),
          },
        };
      });
    const now = await run("clicks_upkeep_45", false);
    const then = await run("clicks_upkeep_44", true);
    assert.deepEqual(now.rollups, now.recount);
    assert.deepEqual(now.rows.languages, now.languageRecount);
    assert.ok((now.rows.clickSums as unknown[]).length > 0 && (now.rows.clickDays as unknown[]).length > 1);
    assert.deepEqual(now.rows, then.rows);
  });

  it("updates posts heap-only on a click: no index of posts is written", () =>
    withDatabase("clicks_hot", async (store, pool) => {
      await seed(store);
      // One post per heap page: each page keeps room for one new version (fillfactor), so a
      // click is heap-only unless an index of posts holds what it changes.
      const posts = await rows<{ id: number }>(
        pool,
        "SELECT DISTINCT ON ((ctid::text::point)[0]) id FROM posts ORDER BY (ctid::text::point)[0], id",
      );
      const { links, stats } = await clickOnceEach(
        pool,
        posts.map((p) => p.id),
      );
      for (const link of links) assert.match(link, /^https:\/\/example\.test\//);
      assert.deepEqual(stats, [{ updated: posts.length, hot: posts.length }]);
    }));

  it("keeps a first click heap-only on rows as wide as PostgreSQL keeps in line (migration 31)", () =>
    withDatabase("clicks_hot_wide", async (store, pool) => {
      const feed = await store.addFeed({ feedUrl: "https://wide.test/feed", feedName: "Wide" });
      // Bodies from a few words to past the TOAST threshold, so rows kept in line span every width
      // up to TOAST_TUPLE_TARGET; the words differ, so short rows do not compress.
      await store.applyFeedUpdate(feed.feedId, {
        fetchState: {},
        posts: Array.from({ length: 60 }, (_, i) =>
          incoming(`wide-${i}`, {
            publishedAt: T0 - i * 60_000,
            content: `<p>${Array.from({ length: 5 + i * 6 }, (_, j) => `w${(i * 7919 + j * 104_729) % 999_983}`).join(" ")}</p>`,
          }),
        ),
      });
      // The first row of each page, with its width in the page (pageinspect's line pointer length).
      await pool.query("CREATE EXTENSION IF NOT EXISTS pageinspect");
      const firsts = await rows<{ id: number; width: number }>(
        pool,
        `SELECT DISTINCT ON (page) p.id, t.lp_len AS width
          FROM (SELECT id, (ctid::text::point)[0]::int AS page, (ctid::text::point)[1]::int AS item FROM posts) p
          CROSS JOIN LATERAL heap_page_items(get_raw_page('posts', p.page)) t
          WHERE t.lp = p.item ORDER BY page, p.id`,
      );
      // Some are wider than the 15 % of a page that migration 14 left free (1,228 bytes).
      assert.ok(
        firsts.some((f) => f.width > 1228),
        `widest first row ${Math.max(...firsts.map((f) => f.width))} bytes`,
      );
      const { stats } = await clickOnceEach(
        pool,
        firsts.map((f) => f.id),
      );
      assert.deepEqual(stats, [{ updated: firsts.length, hot: firsts.length }]);
    }));
});
