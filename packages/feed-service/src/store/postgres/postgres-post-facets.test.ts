/**
 * post_facets in PL/pgSQL (migration 40) gives the value of the SQL function it replaced
 * (migration 14), for dates around day, week, month and year boundaries, before 1970 and far
 * ahead, and seeded draws; it keeps the attributes the planner reads; and the search index's
 * build and ANALYZE, which PostgreSQL 17 and later run with search_path pg_catalog, pg_temp, call it.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { mulberry32Draws } from "../../test-support/seeded-draws.js";
import { openTestPostgresStore, type TestPostgresStore } from "../../test-support/test-postgres-server.js";

let db: TestPostgresStore;

before(async () => {
  db = await openTestPostgresStore("post_facets");
});

after(async () => {
  await db?.close();
});

const DAY = 86_400_000;

describe("post_facets in PL/pgSQL", () => {
  it("gives the SQL function's value", async () => {
    const client = await db.pool.connect();
    try {
      await client.query(`CREATE FUNCTION pg_temp.post_facets_sql(post_date bigint, language_id integer) RETURNS tsvector
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        RETURN array_to_tsvector(ARRAY[' day ' || post_day(post_date), ' wk ' || floor(post_day(post_date) / 7.0)::integer,
          ' mo ' || floor(post_day(post_date) / 28.0)::integer, ' yr ' || floor(post_day(post_date) / 364.0)::integer,
          ' lang ' || language_id])`);
      const dates: number[] = [0, -1, 1, DAY - 1, DAY, -DAY, -DAY - 1, 7 * DAY - 1, 28 * DAY, 364 * DAY - 1];
      for (const day of [20_000, 20_454, -3_650, 1_000_000]) {
        for (const span of [1, 7, 28, 364]) {
          const edge = Math.floor(day / span) * span * DAY;
          dates.push(edge - 1, edge, edge + 1);
        }
      }
      const next = mulberry32Draws(3);
      for (let i = 0; i < 2_000; i++) dates.push(Math.round((next() - 0.3) * 4e12));
      const languages = dates.map((_, i) => [1, 2, 17, 1_000, 2_147_483_647][i % 5]!);
      const { rows } = await client.query<{ post_date: string; same: boolean; text: string; old: string }>(
        `SELECT d AS post_date, post_facets(d, l) = pg_temp.post_facets_sql(d, l) AS same,
            post_facets(d, l)::text AS text, pg_temp.post_facets_sql(d, l)::text AS old
          FROM unnest($1::bigint[], $2::integer[]) AS x(d, l)`,
        [dates, languages],
      );
      assert.equal(rows.length, dates.length);
      for (const r of rows) {
        assert.ok(r.same, r.post_date);
        assert.equal(r.text, r.old, r.post_date);
      }
    } finally {
      client.release();
    }
  });

  it("keeps what the planner reads: not inlined, immutable, parallel safe, cost 100", async () => {
    const [row] = (
      await db.pool.query<{ lang: string; volatile: string; parallel: string; cost: number }>(
        `SELECT l.lanname AS lang, p.provolatile AS volatile, p.proparallel AS parallel, p.procost AS cost
          FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
          WHERE p.oid = 'post_facets(bigint, integer)'::regprocedure`,
      )
    ).rows;
    assert.deepEqual(row, { lang: "plpgsql", volatile: "i", parallel: "s", cost: 100 });
  });

  it("is called by the index build and ANALYZE under PostgreSQL's maintenance search_path", async () => {
    const { store, pool } = db;
    const feed = await store.addFeed({ feedUrl: "https://facets.test/feed", feedName: "Facets" });
    await store.applyFeedUpdate(feed.feedId, {
      fetchState: {},
      posts: [
        {
          guid: "a",
          link: "https://facets.test/a",
          title: "Faceted post",
          excerpt: "",
          content: "<p>body words</p>",
          publishedAt: Date.UTC(2026, 0, 10),
          updatedAt: null,
          seenAt: Date.UTC(2026, 0, 10),
          languageId: 1,
        },
      ],
    });
    await pool.query("REINDEX INDEX posts_search_words");
    await pool.query("ANALYZE posts");
    const { rows } = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM posts
        WHERE (search_vector || post_facets(post_date, language_id) || phrase_vector) @@ $1::tsquery`,
      [`'faceted' & ' day ${Math.floor(Date.UTC(2026, 0, 10) / DAY)}'`],
    );
    assert.equal(rows[0]!.n, 1);
  });
});
