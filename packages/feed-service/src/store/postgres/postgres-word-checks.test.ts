/**
 * Two ways PostgreSQL word search reads less (postgres-search-plan.ts), against brute force:
 * walks check a post's title and feed name words (`rank_vector`) before its whole vector when the
 * query excludes nothing (vectorCheck), and no day tier is tried when GIN would pass over more of
 * its posts than the plain query passes over (a word common in every language but one, searched
 * in that one: the cost rule on the 1M corpus's figures, the pages on a small one). Every page is
 * compared with a plain query over every match (relevance: ranking the 10,000 newest matches,
 * spec §4), scores included.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type pg from "pg";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { searchReference } from "../../test-support/postgres-search-reference.js";
import { openTestPostgresStore, type TestPostgresStore } from "../../test-support/test-postgres-server.js";
import type { SearchSort } from "../store.js";
import { rows, type Sql } from "./postgres-connection.js";
import { SEARCH_EXPRESSION } from "./postgres-search-facets.js";
import { postsPerDay, tierCost, tierWorthTrying } from "./postgres-search-plan.js";
import { searchPosts } from "./postgres-search-queries.js";

const POSTS = 60_000;
const T0 = Date.UTC(2026, 0, 10);

let db: TestPostgresStore;
let pool: pg.Pool;
let ja: number;

before(async () => {
  db = await openTestPostgresStore("word_checks");
  pool = db.pool;
  ja = (await db.store.ensureLanguage("ja")).languageId;
  const a = await db.store.addFeed({ feedUrl: "https://a.test/feed", feedName: "A" });
  const b = await db.store.addFeed({ feedUrl: "https://b.test/feed", feedName: "B", languageId: ja });
  // 3,000 posts a day over 20 days, one in ten Japanese. "la" in 4 of 9 posts of other languages
  // and in one Japanese post in 100; "the" in 95% of posts, in the title (weight A, so in
  // rank_vector) of one in seven, else in the body; w0..w96 in ~1% each.
  await pool.query(
    `INSERT INTO posts (feed_id, guid, link, title, excerpt, content, seen_at, post_date, language_id, search_vector)
      SELECT CASE WHEN i % 10 = 0 THEN $2::int ELSE $1::int END, 'g' || i, 'https://x.test/' || i, 'Post ' || i, '', '', 0,
        $4::bigint - i::bigint * 28800, CASE WHEN i % 10 = 0 THEN $3::int ELSE 1 END,
        ((CASE WHEN i % 20 = 7 THEN '' WHEN i % 7 = 0 THEN 'the:1A ' ELSE 'the:5 ' END)
          || (CASE WHEN (i % 10 <> 0 AND i % 2 = 0) OR i % 1000 = 0 THEN 'la:2 ' ELSE '' END)
          || 'w' || (i % 97) || ':3 k' || (i % 13) || ':4')::tsvector
      FROM generate_series(1, ${POSTS}) i`,
    [a.feedId, b.feedId, ja, T0],
  );
  await pool.query("ANALYZE");
});
after(() => db?.close());

/** The page as a plain query over every match would give it. */
function reference(
  terms: string,
  sort: SearchSort,
  page: { offset: number; limit: number; languageIds: number[] | null },
): Promise<Array<{ id: number; score?: number }>> {
  return searchReference(pool, terms, sort, page);
}

/** The store's page checked against the reference; the statements it ran. */
async function assertSame(
  terms: string,
  sort: SearchSort,
  page: { offset: number; limit: number; languageIds: number[] | null },
): Promise<Array<{ text: string; params: unknown[] }>> {
  const ran: Array<{ text: string; params: unknown[] }> = [];
  const recording: Sql = {
    query: ((config: string | { text: string; values?: unknown[] }, values?: unknown[]) => {
      const text = typeof config === "string" ? config : config.text;
      ran.push({ text, params: (typeof config === "string" ? values : config.values) ?? [] });
      return pool.query(config as string, values);
    }) as Sql["query"],
  };
  const got = await searchPosts(recording, { ...page, query: parseSearchQuery(terms), sort });
  const want = await reference(terms, sort, page);
  const label = `${JSON.stringify(terms)} by ${sort}, ${JSON.stringify(page)}`;
  assert.deepEqual(
    got.map((r) => [r.postId, ...(sort === "relevance" ? [r.score] : [])]),
    want.map((r) => [r.id, ...(sort === "relevance" ? [r.score] : [])]),
    label,
  );
  return ran;
}

/** The tsqueries that statements reading matches (not counting a sample) handed to GIN. */
function ginReads(ran: ReadonlyArray<{ text: string; params: unknown[] }>): string[] {
  return ran.flatMap(({ text, params }) => {
    const gin = text.indexOf(`${SEARCH_EXPRESSION} @@ $`);
    if (gin < 0 || text.startsWith("EXPLAIN") || text.startsWith("SELECT count(*)")) return [];
    const n = Number(/^\$(\d+)/.exec(text.slice(gin + SEARCH_EXPRESSION.length + 4))![1]);
    return [String(params[n - 1])];
  });
}

const TIME_FACET = /' (day|wk|mo|yr) -?\d+'/;

describe("postgres word checks", () => {
  it("walks check the title words first only when the query excludes nothing, exactly", async () => {
    // "the -w0": a post with "the" in its title and w0 in its body must stay out.
    for (const terms of ["the", "the -w0", "the -k3", '"the la"', "the OR w5"]) {
      for (const sort of ["date", "relevance"] as const) {
        for (const languageIds of [null, [ja]]) {
          for (const [offset, limit] of [
            [0, 20],
            [0, 1000],
            [400, 20],
            [9990, 20],
          ] as const) {
            await assertSame(terms, sort, { offset, limit, languageIds });
          }
        }
      }
    }
  });

  it("walks read the whole vector of no post whose title settles the query", async () => {
    const ran = await assertSame("the", "relevance", { offset: 0, limit: 20, languageIds: null });
    const walk = ran.find((r) => r.text.includes("LIMIT $4") && r.text.includes("p.rank_vector @@ $1"));
    assert.ok(walk, "the ranked walk checks rank_vector first");
    const excluded = await assertSame("the -w0", "relevance", { offset: 0, limit: 20, languageIds: null });
    assert.ok(
      excluded.every((r) => !r.text.includes("p.rank_vector @@ $1")),
      "an exclusion is checked on the whole vector",
    );
  });

  it("weighs a tier's GIN blocks against the plain query's rarest list and matches", () => {
    // 500 posts a day, as the newest years of the 1M minority-english corpus hold.
    const postsOn = new Map(Array.from({ length: 1200 }, (_, i) => [20_468 - i, 500]));
    // "la" in Japanese by date at offset 1000: the statistics expect 32,000 matches, the newest
    // posts bound them to 5,000 (0.5%); a tier of the newest 790 days walks its days', weeks' and
    // months' posts of every language, where the plain query skips along the 88,000 Japanese posts.
    const ja = { matches: 5000, share: 0.005 };
    assert.equal(tierWorthTrying(tierCost(19_678, 20_468, postsOn, 88_000, ja.share), 88_000, ja), false);
    // "la the": 81,000 matches (8.1%), rarest list "the" (321,000): the tier of 391 days, every
    // block walked, costs a third of reading every match.
    const both = { matches: 81_000, share: 0.081 };
    assert.equal(
      tierWorthTrying(tierCost(20_077, 20_468, postsOn, 321_000, both.share), 321_000, both),
      true,
    );
    // A block holding more posts than the rarest list is only skipped through: a year of 182,000
    // posts costs the 88,000-post list, not its posts.
    const year = tierCost(20_384 - 364, 20_383, postsOn, 88_000, 0);
    assert.equal(year, 88_000);
  });

  it("answers a word that seldom meets a language exactly, and still tiers it in every language", async () => {
    for (const sort of ["date", "relevance", "clicks"] as const) {
      for (const languageIds of [null, [ja], [1, ja]]) {
        for (const offset of [0, 20, 1000, 9990])
          await assertSame("la", sort, { offset, limit: 20, languageIds });
      }
    }
    // A tier GIN skips through cheaply is still tried: "la" in every language, deep.
    const ran = await assertSame("la", "date", { offset: 3000, limit: 20, languageIds: null });
    assert.ok(
      ginReads(ran).some((q) => TIME_FACET.test(q)),
      `la by date at 3000: ${JSON.stringify(ginReads(ran))}`,
    );
  });
  it("counts the posts per day of the newest 1,001 days and the total as the posts themselves do", async () => {
    // Two posts a day over 1,500 older days (one Japanese), so that the counts stop short of history.
    const added = await pool.query<{ id: number }>(
      `INSERT INTO posts (feed_id, guid, link, title, excerpt, content, seen_at, post_date, language_id, search_vector)
        SELECT f.id, 'old' || i, 'https://x.test/old' || i, 'Old ' || i, '', '', 0,
          $2::bigint - (30 + i / 2)::bigint * 86400000, CASE WHEN i % 2 = 0 THEN $1::int ELSE 1 END, 'old:1'::tsvector
        FROM generate_series(0, 2999) i, (SELECT min(id) AS id FROM feeds) f RETURNING id`,
      [ja, T0],
    );
    try {
      for (const languageIds of [null, [ja], [1], [1, ja]]) {
        // A new Sql each time: the counts are kept per connection pool for a while.
        const fresh: Sql = { query: pool.query.bind(pool) as Sql["query"] };
        const got = await postsPerDay(fresh, languageIds);
        const language = languageIds ? "WHERE language_id = ANY($1::int[])" : "";
        const want = await rows<{ day: number; n: number; total: number }>(
          pool,
          `SELECT post_day(post_date) AS day, count(*)::int AS n, sum(count(*)) OVER ()::int AS total
            FROM posts ${language} GROUP BY 1 ORDER BY 1 DESC LIMIT 1001`,
          languageIds ? [languageIds] : [],
        );
        assert.equal(got.length, 1001, `days of ${languageIds}`);
        assert.deepEqual(
          got.map((d) => [d.day, d.n, d.total]),
          want.map((d) => [d.day, d.n, d.total]),
          `posts per day of ${languageIds}`,
        );
      }
    } finally {
      await pool.query("DELETE FROM posts WHERE id = ANY($1::int[])", [added.rows.map((r) => r.id)]);
    }
  });
});
