/**
 * Migration 49: the newest days' counts that size the search tiers (postsPerDay) are read from
 * scope_days' day indexes alone, for every language and for one: an index-only scan, without a
 * heap fetch once the table is vacuumed; and the counts are those of the posts.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type pg from "pg";
import { openTestPostgresStore, type TestPostgresStore } from "../../test-support/test-postgres-server.js";
import type { Sql } from "./postgres-connection.js";
import { postsPerDay } from "./postgres-search-plan.js";

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 5, 1);

let db: TestPostgresStore;
let pool: pg.Pool;
let german: number;

before(async () => {
  db = await openTestPostgresStore("scope_days_covering");
  pool = db.pool;
  german = (await db.store.ensureLanguage("de")).languageId;
  for (const [f, languageId] of [1, german].entries()) {
    const feed = await db.store.addFeed({
      feedUrl: `https://c${f}.test/feed`,
      feedName: `C${f}`,
      languageId,
    });
    await db.store.applyFeedUpdate(feed.feedId, {
      fetchState: {},
      posts: Array.from({ length: 40 }, (_, i) => ({
        guid: `c${f}-${i}`,
        link: `https://c${f}.test/${i}`,
        title: `post ${i}`,
        excerpt: "",
        content: "",
        publishedAt: NOW - (i % 13) * DAY - i * 1000,
        updatedAt: null,
        seenAt: NOW,
        languageId,
      })),
    });
  }
  await pool.query("VACUUM ANALYZE scope_days");
});
after(() => db?.close());

/** The scans of scope_days in the plan of each statement postsPerDay runs (seq scans ruled out). */
async function scans(languageIds: readonly number[] | null): Promise<string[]> {
  const client = await pool.connect();
  try {
    await client.query("SET enable_seqscan = off");
    await client.query("SET enable_bitmapscan = off");
    const found: string[] = [];
    const sql: Sql = {
      query: (async (config: pg.QueryConfig) => {
        const { rows } = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${config.text}`, config.values);
        const walk = (n: Record<string, unknown>) => {
          if (n["Relation Name"] === "scope_days")
            found.push(`${n["Node Type"]} ${n["Index Name"]} fetches=${n["Heap Fetches"]}`);
          for (const child of (n.Plans as Array<Record<string, unknown>> | undefined) ?? []) walk(child);
        };
        walk(rows[0]["QUERY PLAN"][0].Plan);
        return client.query(config.text, config.values);
      }) as Sql["query"],
    };
    await postsPerDay(sql, languageIds);
    return found;
  } finally {
    await client.query("RESET ALL");
    client.release();
  }
}

describe("postgres scope_days day indexes (migration 49)", () => {
  it("reads the newest days' counts of every language from the day index alone", async () => {
    assert.deepEqual(await scans(null), ["Index Only Scan scope_days_by_day fetches=0"]);
  });

  it("reads one language's from the language's day index alone", async () => {
    assert.deepEqual(await scans([german]), ["Index Only Scan scope_days_by_language fetches=0"]);
  });

  it("counts the posts per day as the posts are", async () => {
    const counts = await postsPerDay(pool, [german]);
    const { rows } = await pool.query<{ day: number; n: number }>(
      `SELECT floor(post_date / ${DAY}.0)::int AS day, count(*)::int AS n FROM posts WHERE language_id = $1
        GROUP BY 1 ORDER BY 1 DESC`,
      [german],
    );
    assert.deepEqual(
      counts.map((c) => ({ day: Number(c.day), n: Number(c.n) })),
      rows,
    );
  });
});
