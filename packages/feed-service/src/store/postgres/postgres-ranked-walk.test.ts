/**
 * Relevance for a word in nearly every post, by one walk of the date order (rankedWalk in
 * postgres-search-queries.ts), against brute force: ranking the 10,000 newest matches (spec §4),
 * scores included, in every language, one, and two; and when the newest posts hold fewer matches
 * than the statistics promised, the walk falls short and the tiers answer, exactly.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type pg from "pg";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { searchReference } from "../../test-support/postgres-search-reference.js";
import { openTestPostgresStore, type TestPostgresStore } from "../../test-support/test-postgres-server.js";
import type { Sql } from "./postgres-connection.js";
import { RANKED_NEWEST, searchPosts } from "./postgres-search-queries.js";
import type { PostgresStore } from "./postgres-store.js";

const POSTS = 24_000;
const T0 = Date.UTC(2026, 0, 10);

let db: TestPostgresStore;
let store: PostgresStore;
let pool: pg.Pool;
let fr: number;

before(async () => {
  db = await openTestPostgresStore("ranked_walk");
  ({ store, pool } = db);
  fr = (await store.ensureLanguage("fr")).languageId;
  const a = await store.addFeed({ feedUrl: "https://a.test/feed", feedName: "A" });
  const b = await store.addFeed({ feedUrl: "https://b.test/feed", feedName: "B", languageId: fr });
  // "the" in 95% of posts, in the title (rank_vector) of one in seven; every third post French;
  // dates out of id order, several posts a day.
  await pool.query(
    `INSERT INTO posts (feed_id, guid, link, title, excerpt, content, seen_at, post_date, language_id, search_vector, rank_vector, body_length)
      SELECT CASE WHEN i % 3 = 0 THEN $2::int ELSE $1::int END, 'g' || i, 'https://x.test/' || i, 'Post ' || i, '', '', 0,
        $4::bigint - ((i * 7919) % ${POSTS})::bigint * 3600000, CASE WHEN i % 3 = 0 THEN $3::int ELSE 1 END,
        ((CASE WHEN i % 20 <> 7 THEN 'the:3 ' ELSE '' END) || 'w' || (i % 97) || ':2')::tsvector,
        (CASE WHEN i % 7 = 0 AND i % 20 <> 7 THEN 'the:1A' ELSE 'post:1A' END)::tsvector, i % 500
      FROM generate_series(1, ${POSTS}) i`,
    [a.feedId, b.feedId, fr, T0],
  );
  await pool.query("ANALYZE");
});
after(() => db?.close());

function reference(terms: string, page: { offset: number; limit: number; languageIds: number[] | null }) {
  return searchReference(pool, terms, "relevance", page);
}

/** The page by the store, checked against the reference; whether the walk answered it. */
async function assertSame(page: {
  offset: number;
  limit: number;
  languageIds: number[] | null;
}): Promise<boolean> {
  const texts: string[] = [];
  const recording: Sql = {
    query: ((config: string | { text: string }, values?: unknown[]) => {
      texts.push(typeof config === "string" ? config : config.text);
      return pool.query(config as string, values);
    }) as Sql["query"],
  };
  const got = await searchPosts(recording, { ...page, query: parseSearchQuery("the"), sort: "relevance" });
  const want = await reference("the", page);
  assert.deepEqual(
    got.map((r) => [r.postId, r.score]),
    want.map((r) => [r.id, r.score]),
    `"the" by relevance, ${JSON.stringify(page)}`,
  );
  return texts.some((t) => t.includes("ORDER BY p.post_date DESC, p.id DESC LIMIT $4"));
}

describe("postgres ranked walk", () => {
  it("ranks the 10,000 newest matches of a word in nearly every post in one walk, exactly", async () => {
    for (const languageIds of [null, [1], [1, fr]]) {
      for (const [offset, limit] of [
        [0, 20],
        [0, 1000],
        [5000, 1000],
        [9990, 20],
      ] as const) {
        // Two languages: no index gives their posts in date order, so the tiers answer.
        const walked = await assertSame({ offset, limit, languageIds });
        assert.equal(walked, languageIds?.length !== 2, `walked at ${offset} in ${languageIds}`);
      }
    }
    // Fewer matches than are ranked (French: 7,600): the walk does not rank 10,000 and the tiers answer.
    for (const offset of [0, 7000]) await assertSame({ offset, limit: 100, languageIds: [fr] });
    // Past the ranked matches: nothing.
    await assertSame({ offset: RANKED_NEWEST, limit: 20, languageIds: null });
  });

  it("falls back to the tiers, exactly, when the newest posts hold fewer matches than expected", async () => {
    await pool.query("ALTER TABLE posts SET (autovacuum_enabled = false)");
    await pool.query(
      "CREATE TABLE saved_vectors AS SELECT id, search_vector FROM posts ORDER BY post_date DESC, id DESC LIMIT 5000",
    );
    try {
      await pool.query(
        "UPDATE posts p SET search_vector = ts_delete(p.search_vector, 'the') FROM saved_vectors s WHERE s.id = p.id",
      );
      for (const offset of [0, 9990]) {
        assert.equal(
          await assertSame({ offset, limit: 20, languageIds: null }),
          true,
          "tried the walk first",
        );
      }
    } finally {
      await pool.query(
        "UPDATE posts p SET search_vector = s.search_vector FROM saved_vectors s WHERE s.id = p.id",
      );
      await pool.query("DROP TABLE saved_vectors");
      await pool.query("ALTER TABLE posts RESET (autovacuum_enabled)");
    }
  });
});
