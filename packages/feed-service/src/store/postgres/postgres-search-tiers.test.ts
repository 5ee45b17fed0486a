/**
 * Search on PostgreSQL stops early (newest days first, most clicked first), and must answer
 * exactly what searching every match would: on 60,000 posts (1,000 a day, enough for several
 * tiers), every sort, page and language filter is compared with a plain query over all matches.
 * Relevance is compared with ranking the 10,000 newest matches (spec §4).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type pg from "pg";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { usesOperators } from "../../search/search-query.js";
import { termPhrase } from "../../search/term-phrase.js";
import { operatorSearchReference, searchReference } from "../../test-support/postgres-search-reference.js";
import { openTestPostgresStore, type TestPostgresStore } from "../../test-support/test-postgres-server.js";
import type { SearchSort } from "../store.js";
import type { Sql } from "./postgres-connection.js";
import { NEWEST_COUNTS } from "./postgres-excluded-words.js";
import { PENDING_EMPTY } from "./postgres-gin-pending.js";
import { OPERATOR_EXPRESSION } from "./postgres-operator-plan.js";
import { DAY_COUNTS_TTL_MS } from "./postgres-plan-costs.js";
import { SEARCH_EXPRESSION, sinceDayFacet } from "./postgres-search-facets.js";
import { searchWithOperators } from "./postgres-search-operators.js";
import { postsPerDay } from "./postgres-search-plan.js";
import { searchPosts } from "./postgres-search-queries.js";
import type { PostgresStore } from "./postgres-store.js";

const POSTS = 60_000;
const T0 = Date.UTC(2026, 0, 10);

let db: TestPostgresStore;
let store: PostgresStore;
let pool: pg.Pool;

before(async () => {
  db = await openTestPostgresStore("search_tiers");
  ({ store, pool } = db);
  const fr = (await store.ensureLanguage("fr")).languageId;
  const a = await store.addFeed({ feedUrl: "https://a.test/feed", feedName: "A" });
  const b = await store.addFeed({ feedUrl: "https://b.test/feed", feedName: "B", languageId: fr });
  // "the" in 40% of posts, w0..w96 in ~1% each, r0..r1499 in 40 posts each; one post in ten
  // clicked 0 to 49 times; every third post French; 1,000 posts a day over 60 days.
  await pool.query(
    `INSERT INTO posts (feed_id, guid, link, title, excerpt, content, seen_at, post_date, language_id, clicks, search_vector)
      SELECT CASE WHEN i % 3 = 0 THEN $2::int ELSE $1::int END, 'g' || i, 'https://x.test/' || i, 'Post ' || i, '', '', 0,
        $4::bigint - i::bigint * 86400, CASE WHEN i % 3 = 0 THEN $3::int ELSE 1 END,
        CASE WHEN i % 10 = 0 THEN (i * 7919) % 50 ELSE 0 END,
        ((CASE WHEN i % 5 < 2 THEN 'the:1 ' ELSE '' END) || 'w' || (i % 97) || ':2 k' || (i % 13) || ':3 r' || (i % 1500) || ':4')::tsvector
      FROM generate_series(1, ${POSTS}) i`,
    [a.feedId, b.feedId, fr, T0],
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

async function assertSame(
  terms: string,
  sort: SearchSort,
  page: { offset: number; limit: number; languageIds: number[] | null },
): Promise<void> {
  const got = await store.searchPosts({ ...page, query: parseSearchQuery(terms), sort });
  const want = await reference(terms, sort, page);
  const label = `${JSON.stringify(terms)} by ${sort}, ${JSON.stringify(page)}`;
  assert.deepEqual(
    got.map((r) => r.postId),
    want.map((r) => r.id),
    label,
  );
  if (sort === "relevance") {
    assert.deepEqual(
      got.map((r) => r.score),
      want.map((r) => r.score),
      `scores of ${label}`,
    );
  }
}

// Phrases: of common words ("the w5"), in every post holding both words ("w5 k5"), of three words,
// never in that order ("k3 w5": a superset of GIN's that the check must empty), excluded.
const QUERIES = [
  "the",
  "the w5",
  "w5 OR w6",
  '"the w7"',
  '"w5 k5"',
  '"the w7 k7"',
  '"k3 w5" OR r77',
  'the -"w5 k5"',
  "k3 -the",
  "r77 OR r78",
  "nothing",
];
const PAGES = [
  { offset: 0, limit: 20 },
  { offset: 0, limit: 1000 },
  { offset: 3990, limit: 20 },
  { offset: 9990, limit: 20 },
  { offset: 23_000, limit: 5 },
];

describe("postgres search tiers", () => {
  it("covers every day from a tier's first on with whole time blocks, no gap and no overlap", () => {
    const size: Record<string, number> = { day: 1, wk: 7, mo: 28, yr: 364 };
    for (const [from, to] of [
      [20_466, 20_468],
      [20_000, 20_468],
      [-400, 30],
      [0, 0],
      [12_345, 19_999],
    ] as const) {
      const blocks = [...sinceDayFacet(from, to).matchAll(/' (day|wk|mo|yr) (-?\d+)'/g)].map((m) => ({
        start: Number(m[2]) * size[m[1]!]!,
        days: size[m[1]!]!,
      }));
      let next = from;
      for (const block of blocks) {
        assert.equal(block.start, next, `blocks of ${from}..${to} are contiguous`);
        next += block.days;
      }
      assert.ok(next > to && next - to <= 364, `blocks of ${from}..${to} end at ${next - 1}`);
      assert.ok(blocks.length <= 6 + 3 + 12 + Math.ceil((to - from) / 364) + 1, "few lexemes");
    }
  });

  for (const sort of ["date", "relevance", "clicks"] as const) {
    it(`answers every ${sort} page exactly as searching every match would`, async () => {
      for (const terms of QUERIES) {
        for (const page of PAGES) await assertSame(terms, sort, { ...page, languageIds: null });
      }
    });
    it(`answers ${sort} pages with a language filter exactly`, async () => {
      for (const terms of ["the", "r77"]) {
        for (const languageIds of [[3], [1, 3], [99]]) {
          for (const page of PAGES.slice(0, 4)) await assertSame(terms, sort, { ...page, languageIds });
        }
      }
    });
  }

  /**
   * `pool` as searches see it while GIN moves its pending list into the entry tree (VACUUM,
   * autovacuum, gin_clean_pending_list): a post's lexemes are added one key at a time, so a scan
   * meanwhile finds some of them and not yet the others. Every statement that reads matches
   * through a search index here finds the even posts without `lagging` (the query's excluded
   * words), as a scan does when it meets such a post after its other words and before those;
   * their positive words are found, as the pending list hands those over in any case.
   */
  const SUBTRACTED = `p.id NOT IN (SELECT p.id FROM posts p WHERE ${SEARCH_EXPRESSION}`;
  /** The candidates GIN hands over, checked on their vectors (condition() with Match.verify). */
  const CHECKED =
    /p\.phrase_vector\) @@ \$\d+::tsquery AND \(?(g\.settled OR )?p\.search_vector @@ \$\d+::tsquery/;
  function laggingIndex(lagging: readonly string[]): { sql: Sql; statements: string[] } {
    const deleted = `ARRAY[${lagging.map((word) => `'${word}'`).join(", ")}]::text[]`;
    const view = (expression: string) =>
      `(CASE WHEN p.id % 2 = 0 THEN ts_delete(${expression}, ${deleted}) ELSE ${expression} END)`;
    const statements: string[] = [];
    const sql: Sql = {
      query: ((config: string | { text: string; name?: string }, values?: unknown[]) => {
        const text = typeof config === "string" ? config : config.text;
        statements.push(text);
        // The counts that choose between subtracting and checking (postgres-excluded-words.ts) steer
        // the plan, never the answer (every answer is compared below): read through the index as it
        // is, as each costs a scan of every post through the rewritten expression.
        if (text === NEWEST_COUNTS) return pool.query(config, values);
        // A positive lookup finds such a post whole, in the pending list or else in the tree: the
        // lookup of the posts to subtract (postgres-excluded-words.ts) reads the index as it is.
        // The pending list is moving: its gate says it is not empty (postgres-gin-pending.ts).
        const seen = text
          .replaceAll(PENDING_EMPTY, "false")
          .split(SUBTRACTED)
          .map((part) =>
            part
              .replaceAll(SEARCH_EXPRESSION, view(SEARCH_EXPRESSION))
              .replaceAll(OPERATOR_EXPRESSION, view(OPERATOR_EXPRESSION)),
          )
          .join(SUBTRACTED);
        // Unnamed: a statement is prepared by a name its text gives (rows()), never for another text.
        const { name: _, ...unnamed } =
          typeof config === "string" ? { text: seen } : { ...config, text: seen };
        return pool.query(unnamed, values);
      }) as Sql["query"],
    };
    return { sql, statements };
  }

  it("answers queries with excluded words exactly while GIN's pending list moves, in every plan", async () => {
    // "k3 -the" by clicks once answered the clicked k3 posts of the last 8,000 written (all hold
    // "the"): autovacuum was moving them out of the pending list. Each query here is read through
    // an index that has not yet seen the excluded words of half the posts.
    // Plain words (postgres-search-queries.ts), then the operators' plans (a prefix, a date filter
    // with a phrase: postgres-operator-plan.ts), with `after:` read by the brute force as SQL.
    const queries = [
      "k3 -the",
      "the -k3",
      "w5 OR w6 -the",
      "r77 -the",
      '"w5 k5" -the',
      'k3 -the -"w5 k5"',
      "k1 OR k2 OR k3 OR k4 OR k5 OR k6 -the",
      "r77* -the",
      "r77* -the -w5",
      'after:2025-01-01 "w5 k5" -the',
      "after:2025-01-01 k3 -the",
    ];
    // The gate is there (pgstattuple), and says the list is not empty (laggingIndex).
    await pool.query("CREATE EXTENSION IF NOT EXISTS pgstattuple");
    const plans = new Set<string>();
    for (const terms of queries) {
      const query = parseSearchQuery(terms);
      const lagging = query.excluded.filter((t) => termPhrase(t).length === 1).map((t) => termPhrase(t)[0]!);
      const { sql, statements } = laggingIndex(lagging);
      // The lagging index hands over posts that hold an excluded word: what the search must check.
      const index = usesOperators(query) ? OPERATOR_EXPRESSION : SEARCH_EXPRESSION;
      const [seen] = (
        await sql.query(
          `SELECT count(*)::int AS n, count(*) FILTER (WHERE NOT (${index} @@ $1::tsquery))::int AS unseen
            FROM posts p WHERE p.search_vector @@ $1::tsquery`,
          [`'${lagging[0]}'`],
        )
      ).rows as Array<{ n: number; unseen: number }>;
      assert.ok(seen!.unseen > 0 && seen!.unseen < seen!.n, `${terms}: the index lags on "${lagging[0]}"`);
      for (const sort of ["clicks", "date", "relevance"] as const) {
        for (const page of PAGES.slice(0, 4)) {
          const label = `${JSON.stringify(terms)} by ${sort}, ${JSON.stringify(page)}`;
          const request = { ...page, languageIds: null, query, sort };
          statements.length = 0;
          const got = usesOperators(query)
            ? await searchWithOperators(sql, request)
            : await searchPosts(sql, request);
          const want = terms.startsWith("after:")
            ? await operatorSearchReference(
                pool,
                { terms, where: `p.post_date >= ${Date.UTC(2025, 0, 1)}` },
                sort,
                page,
              )
            : await reference(terms, sort, { ...page, languageIds: null });
          assert.deepEqual(
            got.map((r) => [r.postId, ...(sort === "relevance" ? [r.score] : [])]),
            want.map((r) => [r.id, ...(sort === "relevance" ? [r.score] : [])]),
            label,
          );
          // How the excluded words were left out (postgres-excluded-words.ts).
          if (!usesOperators(query)) {
            for (const text of statements) {
              if (text.includes(SUBTRACTED)) plans.add("subtracted");
              if (CHECKED.test(text)) plans.add("checked");
            }
          }
          if (sort !== "clicks" || usesOperators(query)) continue;
          // The plans of search by clicks (postgres-search-queries.ts mostClickedPage).
          for (const text of statements) {
            if (text.includes("FROM w JOIN posts p")) plans.add("walk");
            if (text.includes("FROM clicked_posts k JOIN posts p")) plans.add("click tier");
            // Every match, read through the posts or through the pending list's gate (postgres-gin-pending.ts).
            if (/SELECT p\.id, p\.clicks FROM (posts p WHERE|\(SELECT s\.pending_pages)/.test(text)) {
              plans.add("every match");
            }
          }
        }
      }
    }
    assert.deepEqual(
      [...plans].sort(),
      ["checked", "click tier", "every match", "subtracted", "walk"],
      "every plan of search by clicks ran, and both ways of leaving out excluded words",
    );
  });

  it("finds posts of a day newer than the counts that sized its tier (reused for a while)", async () => {
    const page = { offset: 3990, limit: 20, languageIds: null };
    // Sizes a day tier and keeps the posts per day it read.
    await assertSame("the", "date", page);
    const later = T0 + 400 * 86_400_000;
    const added = await pool.query<{ id: number }>(
      `INSERT INTO posts (feed_id, guid, link, title, excerpt, content, seen_at, post_date, language_id, search_vector)
        SELECT id, 'later', 'https://x.test/later', 'Later', '', '', 0, $1, 1, 'the:1'::tsvector FROM feeds ORDER BY id LIMIT 1
        RETURNING id`,
      [later],
    );
    try {
      await assertSame("the", "date", page);
      await assertSame("the", "relevance", { ...page, offset: 0 });
    } finally {
      await pool.query("DELETE FROM posts WHERE id = $1", [added.rows[0]!.id]);
    }
  });

  /**
   * The search's statements that read matches through GIN, each with the tsquery it hands the
   * index, for `searchPosts` on a wrapped pool; `samples`, those that count the matches of the
   * newest days to measure how common the query is.
   */
  function recordingMatchReads(): {
    sql: Sql;
    reads: Array<{ text: string; indexed: string }>;
    samples: string[];
  } {
    const reads: Array<{ text: string; indexed: string }> = [];
    const samples: string[] = [];
    const sql: Sql = {
      query: ((config: string | { text: string; values?: unknown[] }, values?: unknown[]) => {
        const text = typeof config === "string" ? config : config.text;
        const params = (typeof config === "string" ? values : config.values) ?? [];
        const gin = text.indexOf(`${SEARCH_EXPRESSION} @@ $`);
        if (gin >= 0 && !text.startsWith("EXPLAIN")) {
          const n = Number(/^\$(\d+)/.exec(text.slice(gin + SEARCH_EXPRESSION.length + 4))![1]);
          if (text.startsWith("SELECT count(*)")) samples.push(String(params[n - 1]));
          else reads.push({ text, indexed: String(params[n - 1]) });
        }
        return pool.query(config as string, values);
      }) as Sql["query"],
    };
    return { sql, reads, samples };
  }
  const CUTOFF = "p.post_date + 0 >=";

  /**
   * Searches "the" by relevance at `offset`, checks the page against the reference, returns the
   * readings of the matches (and checks that the newest posts were sampled only when `sampled`).
   */
  async function theByRelevanceExactly(offset: number, sampled = false): Promise<string[]> {
    const { sql, reads, samples } = recordingMatchReads();
    const page = { offset, limit: 20, languageIds: null };
    const got = await searchPosts(sql, { ...page, query: parseSearchQuery("the"), sort: "relevance" });
    const want = await reference("the", "relevance", page);
    assert.ok(want.length > 0);
    assert.deepEqual(
      got.map((r) => [r.postId, r.score]),
      want.map((r) => [r.id, r.score]),
      `"the" by relevance at ${offset}`,
    );
    assert.equal(samples.length, sampled ? 1 : 0, `newest posts sampled at ${offset}: ${samples}`);
    return reads.map((read) => read.text);
  }

  it("ranks by relevance among the newest days' matches only when those hold 10,000", async () => {
    // "the" is in 40% of the posts: the newest days that hold 10,000 of its 24,000 matches (with
    // the margin) are more than half the posts, too many for a tier, so older matches are dropped
    // as they are read.
    for (const offset of [0, 20, 9990]) {
      const reads = await theByRelevanceExactly(offset);
      assert.equal(reads.length, 1, `one reading of the matches at ${offset}`);
      assert.ok(reads[0]!.includes(CUTOFF), `the reading keeps the newest days only at ${offset}`);
    }
    // When those days hold fewer matches than the statistics and the newest posts promised (here
    // "the" is taken out of the 29 days before the newest), every match is read again, exactly.
    await pool.query("ALTER TABLE posts SET (autovacuum_enabled = false)");
    await pool.query(
      "CREATE TABLE saved_vectors AS SELECT id, search_vector FROM posts WHERE post_date < $1 AND post_date >= $2",
      [T0 - 1000 * 86_400, T0 - 30_000 * 86_400],
    );
    try {
      await pool.query(
        "UPDATE posts p SET search_vector = ts_delete(p.search_vector, 'the') FROM saved_vectors s WHERE s.id = p.id",
      );
      // The planner's row counts as before the update (not its word statistics, which it keeps).
      await pool.query("VACUUM posts");
      for (const offset of [0, 9990]) {
        assert.deepEqual(
          (await theByRelevanceExactly(offset)).map((text) => text.includes(CUTOFF)),
          [true, false],
          `the newest days first, then every match, at ${offset}`,
        );
      }
    } finally {
      await pool.query(
        "UPDATE posts p SET search_vector = s.search_vector FROM saved_vectors s WHERE s.id = p.id",
      );
      await pool.query("DROP TABLE saved_vectors");
      await pool.query("VACUUM posts");
      await pool.query("ALTER TABLE posts RESET (autovacuum_enabled)");
    }
  });

  it("measures on the newest posts a word missing from the statistics' list of most common ones", async () => {
    // Without statistics of search_vector the planner expects any word in 0.5% of the posts: 300
    // here, where "the" is in 24,000. Measured on the newest days, the 10,000 newest matches are
    // known to lie in the newest days again, and the older ones are dropped as they are read.
    await pool.query("ALTER TABLE posts ALTER COLUMN search_vector SET STATISTICS 0");
    // ANALYZE leaves a column's statistics alone once it stops collecting them.
    await pool.query(
      `DELETE FROM pg_statistic WHERE starelid = 'posts'::regclass AND staattnum =
        (SELECT attnum FROM pg_attribute WHERE attrelid = 'posts'::regclass AND attname = 'search_vector')`,
    );
    await pool.query("ANALYZE posts");
    try {
      const [plan] = (
        await pool.query(
          "EXPLAIN (FORMAT JSON) SELECT 1 FROM posts p WHERE p.search_vector @@ 'the'::tsquery",
        )
      ).rows as Array<{ "QUERY PLAN": Array<{ Plan: { "Plan Rows": number } }> }>;
      assert.equal(plan!["QUERY PLAN"][0]!.Plan["Plan Rows"], 300, "the planner's guess for any word");
      for (const offset of [0, 20, 9990]) {
        const reads = await theByRelevanceExactly(offset, true);
        assert.equal(reads.length, 1, `one reading of the matches at ${offset}`);
        assert.ok(reads[0]!.includes(CUTOFF), `the reading keeps the newest days only at ${offset}`);
      }
    } finally {
      await pool.query("ALTER TABLE posts ALTER COLUMN search_vector SET STATISTICS -1");
      await pool.query("ANALYZE posts");
    }
  });

  it("starts a one-word tier at its first day's week when GIN then skips the week, exactly", async () => {
    // k3 is in 7.7% of the posts (1,000 a day): a day's block holds fewer posts than the word, so
    // GIN walks it whole; a week's holds more and is only skipped through, worth one more day or
    // up to four of the word's posts read. "the" (40%) walks weeks too: its tiers never start early.
    // Deeper pages start their tiers a day apart (62 more matches of k3 take ~1,000 more posts), so
    // the first days fall on every day of the week.
    const starts: string[] = [];
    for (const terms of ["k3", "the"]) {
      const pages = [
        ...Array.from({ length: 10 }, (_, i) => ({ sort: "date" as const, offset: 600 + 62 * i })),
        { sort: "relevance" as const, offset: 0 },
      ];
      for (const { sort, offset } of pages) {
        const page = { offset, limit: 20, languageIds: null };
        const { sql, reads } = recordingMatchReads();
        const got = await searchPosts(sql, { ...page, query: parseSearchQuery(terms), sort });
        const want = await reference(terms, sort, page);
        const label = `${terms} by ${sort} at ${offset}: ${reads.map((r) => r.indexed).join(" then ")}`;
        assert.deepEqual(
          got.map((r) => [r.postId, ...(sort === "relevance" ? [r.score] : [])]),
          want.map((r) => [r.id, ...(sort === "relevance" ? [r.score] : [])]),
          label,
        );
        // The first of the tier's time blocks: a day before a week's start, or a week.
        const block = / & \(' (day|wk|mo|yr) /.exec(reads[0]?.indexed ?? "")?.[1];
        if (block) starts.push(`${terms} ${block}`);
      }
    }
    // Without the earlier start, six first days of seven would begin with a day block.
    const dayStarts = (terms: string) => starts.filter((start) => start === `${terms} day`).length;
    assert.ok(dayStarts("k3") <= 4, `tiers start: ${starts}`);
    assert.ok(dayStarts("the") >= 6, `tiers start: ${starts}`);
  });

  it("reads the posts per day again beside a search once they are old, never holding one up", async () => {
    let reads = 0;
    let release: (() => void) | undefined;
    const counting: Sql = {
      query: (async (config: string | { text: string }, values?: unknown[]) => {
        const text = typeof config === "string" ? config : config.text;
        if (text.includes("FROM scope_days") && text.includes("sum(posts)")) {
          reads++;
          // The second reading waits until the test lets it go: a search must not wait for it.
          if (reads === 2) await new Promise<void>((resolve) => (release = resolve));
        }
        return pool.query(config as string, values);
      }) as Sql["query"],
    };
    let clock = Date.now();
    const first = await postsPerDay(counting, null, () => clock);
    assert.equal(reads, 1);
    assert.equal(await postsPerDay(counting, null, () => clock), first, "reused while young");
    assert.equal(reads, 1);
    const added = await pool.query<{ id: number }>(
      `INSERT INTO posts (feed_id, guid, link, title, excerpt, content, seen_at, post_date, language_id, search_vector)
        SELECT id, 'counted', 'https://x.test/counted', 'Counted', '', '', 0, $1, 1, 'the:1'::tsvector FROM feeds ORDER BY id LIMIT 1
        RETURNING id`,
      [T0 - 86_400_000],
    );
    try {
      clock += DAY_COUNTS_TTL_MS;
      // Old now: answered at once with the counts it has, while a reading starts beside it.
      const stale = await Promise.race([
        postsPerDay(counting, null, () => clock),
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error("the search waited for the reading")), 2000).unref(),
        ),
      ]);
      assert.equal(stale, first);
      assert.equal(await postsPerDay(counting, null, () => clock), first);
      assert.equal(reads, 2, "one reading at a time");
      release!();
      let fresh = first;
      for (let i = 0; i < 200 && fresh === first; i++) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        fresh = await postsPerDay(counting, null, () => clock);
      }
      assert.notEqual(fresh, first, "the new counts replace the old");
      assert.equal(fresh[0]!.total, first[0]!.total + 1);
      assert.equal(reads, 2);
    } finally {
      release?.();
      await pool.query("DELETE FROM posts WHERE id = $1", [added.rows[0]!.id]);
    }
  });

  it("reads matches at most twice (one tier, then all) and never checks a phrase through the index expression", async () => {
    for (const terms of ['"the w5"', '"k3 the"', 'the -"w5 k5"', "the"]) {
      for (const sort of ["date", "relevance", "clicks"] as const) {
        for (const offset of [0, 3990, 23_000]) {
          const { sql: counting, reads, samples } = recordingMatchReads();
          const page = { query: parseSearchQuery(terms), sort, offset, limit: 20, languageIds: null };
          await searchPosts(counting, page);
          // The tsquery each statement reading matches hands to the GIN index.
          const indexed = reads.map((read) => read.indexed);
          const label = `${terms} by ${sort} at ${offset}: ${JSON.stringify(indexed)} ${JSON.stringify(samples)}`;
          // Walks answer some pages without reading matches through GIN; none reads them thrice,
          // nor samples the newest days more than once.
          assert.ok(indexed.length <= 2, label);
          assert.ok(samples.length <= 1, label);
          assert.ok(
            [...indexed, ...samples].every((q) => !q.includes("<->")),
            label,
          );
        }
      }
    }
  });
});
