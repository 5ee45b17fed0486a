/**
 * Migration 22 on a database written before it: its smart categories' counts, kept by the
 * replaced triggers (postgres-counted-search-triggers.ts), stay equal to counting every post's
 * words through new, rewritten and removed posts, and again after the migration runs a second
 * time; its clicks go through `record_click` (postgres-click-schema.ts).
 */
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import type pg from "pg";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { incoming, T0 } from "../../test-support/store-contract/contract-fixture.js";
import { startTestPostgres, type TestPostgres } from "../../test-support/test-postgres-server.js";
import { inTransaction, openPostgresPool, rows } from "./postgres-connection.js";
import { latestPostgresVersion, migratePostgres, postgresMigrations } from "./postgres-migrations.js";
import { searchKey } from "./postgres-search-key.js";
import { openPostgresStore } from "./postgres-store.js";
import { toTsquery } from "./postgres-text-search.js";

const DAY = 86_400_000;
const QUERIES = ["river", "stone OR garden", '"river stone"', "light -market"];
const WORDS = ["river", "stone", "light", "garden", "market"];

let server: TestPostgres;
before(async () => {
  server = await startTestPostgres();
});
after(() => server?.stop());

/**
 * Per smart category's query: the counts kept (language 0: all, per day), and the same counted
 * from every post's words (`search_vector @@` the query itself, phrases by position).
 */
async function keptAndCounted(pool: pg.Pool) {
  const kept: unknown[] = [];
  const counted: unknown[] = [];
  for (const text of QUERIES) {
    const key = searchKey(parseSearchQuery(text))!;
    kept.push(
      await rows(
        pool,
        `SELECT d.language_id, d.day, d.posts FROM search_days d JOIN counted_searches s ON s.id = d.search_id
          WHERE s.index_query = $1 AND s.verify_query IS NOT DISTINCT FROM $2 AND d.posts <> 0 ORDER BY 1, 2`,
        [key.index, key.verify],
      ),
    );
    counted.push(
      await rows(
        pool,
        `SELECT coalesce(language_id, 0) AS language_id, post_day(post_date) AS day, count(*)::int AS posts
          FROM posts WHERE search_vector @@ $1::tsquery
          GROUP BY GROUPING SETS ((language_id, post_day(post_date)), (post_day(post_date))) ORDER BY 1, 2`,
        [toTsquery(parseSearchQuery(text))],
      ),
    );
  }
  return { kept, counted };
}

it("migration 22 keeps an older database's counted searches exact, and its clicks go through record_click", async () => {
  const url = await server.createDatabase("schema_22");
  const pool = await openPostgresPool({ url });
  try {
    await migratePostgres(pool, 21);
    // Written by the version before: smart categories counted as that version counts them, kept
    // by the triggers of migration 19.
    await pool.query(
      `INSERT INTO feeds (id, url, name, name_key, language_id) VALUES (1, 'https://a.test/f', 'A', 'a', 1);
       INSERT INTO smart_categories (key, name, name_key, query) VALUES
         ${QUERIES.map((q, i) => `('k${i}', 'S${i}', 's${i}', '${q.replaceAll("'", "''")}')`).join(", ")};`,
    );
    const vector = (i: number) =>
      Array.from({ length: 4 }, (_, w) => `${WORDS[(i * 7 + w) % WORDS.length]}:${w + 1}`).join(" ");
    for (let i = 0; i < 40; i++) {
      await pool.query(
        `INSERT INTO posts (feed_id, guid, link, title, excerpt, content, seen_at, post_date, language_id, search_vector)
          VALUES (1, $1, $2, '', '', '', $3, $3, 1, $4::tsvector)`,
        [`g${i}`, `https://a.test/${i}`, T0 - (i % 6) * DAY, vector(i)],
      );
    }
    for (const text of QUERIES) {
      const key = searchKey(parseSearchQuery(text))!;
      const [search] = await rows<{ id: number }>(
        pool,
        "INSERT INTO counted_searches (index_query, verify_query) VALUES ($1, $2) RETURNING id",
        [key.index, key.verify],
      );
      await pool.query(
        `INSERT INTO search_days (search_id, language_id, day, posts)
          SELECT $1::int, coalesce(language_id, 0), post_day(post_date), count(*) FROM posts
            WHERE search_vector @@ $2::tsquery GROUP BY GROUPING SETS ((language_id, post_day(post_date)), (post_day(post_date)))`,
        [search!.id, toTsquery(parseSearchQuery(text))],
      );
    }
    let state = await keptAndCounted(pool);
    assert.ok(
      state.counted.every((c) => (c as unknown[]).length > 0),
      "every query matches",
    );
    assert.deepEqual(state.kept, state.counted, "counted before the migration");

    assert.equal(await migratePostgres(pool), latestPostgresVersion);
    const twice = postgresMigrations.find((m) => m.version === 22)!;
    const store = await openPostgresStore({ url });
    try {
      const check = async (label: string) => {
        state = await keptAndCounted(pool);
        assert.deepEqual(state.kept, state.counted, label);
      };
      await store.applyFeedUpdate(1, {
        fetchState: {},
        posts: [
          incoming("n1", { title: "river stone light", publishedAt: T0 - DAY }),
          incoming("n2", { title: "garden market", publishedAt: T0 - 9 * DAY }),
          // A rewrite of a stored post: its words change.
          incoming("g3", { title: "stone garden river", publishedAt: T0 - 2 * DAY }),
        ],
      });
      await check("after new and rewritten posts");
      await inTransaction(pool, (sql) => twice.up(sql, () => {}));
      await pool.query("DELETE FROM posts WHERE guid IN ('g5', 'g6', 'n2')");
      await check("after removals, the migration run a second time");

      const [post] = await rows<{ id: number }>(pool, "SELECT id FROM posts WHERE guid = 'g1'");
      assert.deepEqual(await store.recordClick(post!.id, "c", T0, 600_000), { link: "https://a.test/1" });
      assert.deepEqual(await store.recordClick(post!.id, "c", T0 + 1000, 600_000), {
        link: "https://a.test/1",
      });
      assert.equal(await store.recordClick(999_999, "c", T0, 600_000), undefined);
      const [clicks] = await rows<{ n: number; post: number }>(
        pool,
        "SELECT count(*)::int AS n, (SELECT clicks FROM posts WHERE guid = 'g1') AS post FROM clicks",
      );
      assert.deepEqual(clicks, { n: 1, post: 1 }, "the repeat within the window is not counted");
    } finally {
      await store.close();
    }
  } finally {
    await pool.end();
  }
});
