/**
 * The gate of searches with excluded words (postgres-gin-pending.ts): it reads the search index's
 * pending list, the statements read it before their index scan, and the answers are the plain
 * query's whether the list is empty (the check skipped) or not (checked or subtracted). The
 * lagging index of postgres-search-tiers.test.ts covers a list that moves during the scan.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type pg from "pg";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { searchReference } from "../../test-support/postgres-search-reference.js";
import { openTestPostgresStore, type TestPostgresStore } from "../../test-support/test-postgres-server.js";
import type { Sql } from "./postgres-connection.js";
import { PENDING_EMPTY, pendingEmptyNow, pendingGate } from "./postgres-gin-pending.js";
import { searchPosts } from "./postgres-search-queries.js";

const POSTS = 6_000;
const T0 = Date.UTC(2026, 0, 10);

let db: TestPostgresStore;
let pool: pg.Pool;

/** Posts `from` to `to`: "the" in 40%, k0..k12, w0..w96, 100 posts a day back from T0. */
async function addPosts(feedId: number, from: number, to: number): Promise<void> {
  await pool.query(
    `INSERT INTO posts (feed_id, guid, link, title, excerpt, content, seen_at, post_date, language_id, clicks, search_vector)
      SELECT $1::int, 'g' || i, 'https://x.test/' || i, 'Post ' || i, '', '', 0, $2::bigint - i::bigint * 864000,
        1, CASE WHEN i % 10 = 0 THEN (i * 7919) % 50 ELSE 0 END,
        ((CASE WHEN i % 5 < 2 THEN 'the:1 ' ELSE '' END) || 'w' || (i % 97) || ':2 k' || (i % 13) || ':3')::tsvector
      FROM generate_series($3::int, $4::int) i`,
    [feedId, T0, from, to],
  );
}

before(async () => {
  db = await openTestPostgresStore("gin_pending");
  pool = db.pool;
  const feed = await db.store.addFeed({ feedUrl: "https://a.test/feed", feedName: "A" });
  await addPosts(feed.feedId, 1, POSTS);
  await pool.query("ANALYZE");
  await pool.query("SELECT gin_clean_pending_list('posts_search_words'::regclass)");
});
after(() => db?.close());

/** `pool`, with the statements it ran. */
function recording(): { sql: Sql; statements: string[]; values: unknown[][] } {
  const statements: string[] = [];
  const values: unknown[][] = [];
  const sql: Sql = {
    query: ((config: string | pg.QueryConfig, params?: unknown[]) => {
      statements.push(typeof config === "string" ? config : config.text);
      values.push((typeof config === "string" ? params : config.values) ?? []);
      return pool.query(config as string, params);
    }) as Sql["query"],
  };
  return { sql, statements, values };
}

const PAGES = [
  { offset: 0, limit: 20 },
  { offset: 500, limit: 100 },
];

async function assertExact(sql: Sql, terms: string): Promise<void> {
  for (const sort of ["relevance", "date", "clicks"] as const) {
    for (const page of PAGES) {
      const query = parseSearchQuery(terms);
      const got = await searchPosts(sql, { ...page, languageIds: null, query, sort });
      const want = await searchReference(pool, terms, sort, { ...page, languageIds: null });
      assert.deepEqual(
        got.map((r) => [r.postId, ...(sort === "relevance" ? [r.score] : [])]),
        want.map((r) => [r.id, ...(sort === "relevance" ? [r.score] : [])]),
        `${terms} by ${sort}, ${JSON.stringify(page)}`,
      );
    }
  }
}

describe("postgres GIN pending list gate", () => {
  it("is there only with pgstattuple, and says whether the pending list is empty", async () => {
    assert.equal(await pendingGate(recording().sql), null);
    await pool.query("CREATE EXTENSION IF NOT EXISTS pgstattuple");
    const gate = await pendingGate(recording().sql);
    assert.ok(gate?.includes(PENDING_EMPTY), String(gate));
    assert.equal(await pendingEmptyNow(pool, gate!), true);
    await pool.query(
      "INSERT INTO posts (feed_id, guid, link, title, excerpt, content, seen_at, post_date, language_id, search_vector) SELECT feed_id, 'extra', link, title, '', '', 0, post_date, 1, 'k3:1 zz:2'::tsvector FROM posts LIMIT 1",
    );
    assert.equal(await pendingEmptyNow(pool, gate!), false);
    await pool.query("DELETE FROM posts WHERE guid = 'extra'");
    await pool.query("SELECT gin_clean_pending_list('posts_search_words'::regclass)");
    assert.equal(await pendingEmptyNow(pool, gate!), true);
  });

  it("reads the gate before the index scan, and skips the check while the list is empty", async () => {
    await pool.query("CREATE EXTENSION IF NOT EXISTS pgstattuple");
    const { sql, statements, values } = recording();
    await assertExact(sql, "k3 -the");
    const gated = statements.filter((s) => s.includes("g.settled OR"));
    assert.ok(gated.length > 0, statements.join("\n"));
    // No count that chooses a fallback was needed: the list was empty.
    assert.ok(!statements.some((s) => s.includes("AS holding")), statements.join("\n"));
    // The plan reads the gate's row first: the posts' scan is the inner side of its nested loop.
    const at = statements.findIndex((s) => s.includes("g.settled OR") && s.includes("ORDER BY"));
    assert.ok(at >= 0, statements.join("\n"));
    const { rows } = await pool.query(`EXPLAIN (FORMAT JSON) ${statements[at]}`, values[at]);
    const plan = JSON.stringify(rows[0]);
    const loop = plan.indexOf('"Node Type":"Nested Loop"');
    const gate = plan.indexOf('"Function Name":"pgstatginindex"');
    const scan = plan.indexOf('"Relation Name":"posts"');
    assert.ok(loop >= 0 && gate > loop && scan > gate, plan);
  });

  it("answers exactly while the pending list holds posts", async () => {
    await pool.query("CREATE EXTENSION IF NOT EXISTS pgstattuple");
    const feedId = (
      (await pool.query("SELECT feed_id FROM posts LIMIT 1")).rows as Array<{ feed_id: number }>
    )[0]!.feed_id;
    await addPosts(feedId, POSTS + 1, POSTS + 400);
    const gate = await pendingGate(recording().sql);
    assert.equal(await pendingEmptyNow(pool, gate!), false);
    for (const terms of ["k3 -the", "the -k3", "w5 OR w6 -the"]) await assertExact(recording().sql, terms);
  });
});
