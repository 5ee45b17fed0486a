/**
 * Migration 22, one search index: a database written before it (two GIN indexes, unmarked word
 * pairs stored by the writer, a counted smart category) answers every search as a new database
 * holding the same posts, through the one index; its pairs are marked as the writer now marks
 * them, and its counted searches are counted again with the new spelling. Run twice, the migration
 * changes nothing more.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type pg from "pg";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { startTestPostgres, type TestPostgres } from "../../test-support/test-postgres-server.js";
import { htmlToIndexText } from "../index-text.js";
import type { SearchSort } from "../store.js";
import { inTransaction, openPostgresPool, rows } from "./postgres-connection.js";
import { migratePostgres } from "./postgres-migrations.js";
import { SEARCH_EXPRESSION } from "./postgres-search-facets.js";
import { createOneSearchIndex } from "./postgres-search-index.js";
import { openPostgresStore, type PostgresStore } from "./postgres-store.js";
import { PAIR_MARK, searchVector } from "./postgres-text-search.js";

const T0 = Date.UTC(2026, 0, 10);
const feeds = ["Open Source Weekly", "Rust Notes", "東京データ"];
/** [feed, title, body] */
const posts: Array<[number, string, string]> = [
  [0, "Open source tools", "Open source code and source maps; the open road."],
  [0, "Sourcing tips", "Where to source open data, openly."],
  [1, "Rust release", "The new release of rust brings open source crates."],
  [1, "Resources", "source of truth: open source, source open, sources."],
  [2, "データの性能改善", "東京都のデータ 性能 改善 open source"],
  [2, "Data", "データ and more data; the source."],
  [1, "Title only open", "nothing here matches a phrase"],
];
const queries = [
  '"open source"',
  '"source open"',
  "open source",
  '"open source" rust',
  "sour*",
  "sourc*",
  "open* -rust",
  "title:open",
  "title:open source",
  "データ",
  "性能改善",
  '"the new release"',
  "data OR rust",
];
const sorts: SearchSort[] = ["relevance", "date", "clicks"];

let server: TestPostgres;
before(async () => {
  server = await startTestPostgres();
});
after(async () => {
  await server?.stop();
});

/** The migration of the one search index. */
const version = 22;

/** Every search's links, in order, for every sort. */
async function answers(store: PostgresStore): Promise<string[]> {
  const out: string[] = [];
  for (const terms of queries) {
    for (const sort of sorts) {
      const found = await store.searchPosts({
        query: parseSearchQuery(terms),
        sort,
        limit: 50,
        offset: 0,
        languageIds: null,
      });
      out.push(`${terms} by ${sort}: ${found.map((p) => p.postLink).join(" ")}`);
    }
  }
  return out;
}

async function indexes(pool: pg.Pool): Promise<string[]> {
  const found = await rows<{ name: string }>(
    pool,
    "SELECT indexrelid::regclass::text AS name FROM pg_index WHERE indrelid = 'posts'::regclass AND indexrelid::regclass::text LIKE 'posts_search%' ORDER BY 1",
  );
  return found.map((r) => r.name);
}

describe("one search index (migration 22)", () => {
  it("an older database answers every search as a new one, through the one index", async () => {
    // The new database: every migration, posts through the store's writer.
    const fresh = await openPostgresStore({ url: await server.createDatabase("one_index_new") });
    try {
      const feedIds: number[] = [];
      for (const [i, name] of feeds.entries()) {
        feedIds.push((await fresh.addFeed({ feedUrl: `https://f${i}.test/feed`, feedName: name })).feedId);
      }
      for (const [i, [feed, title, body]] of posts.entries()) {
        await fresh.applyFeedUpdate(feedIds[feed]!, {
          fetchState: {},
          posts: [
            {
              guid: `g${i}`,
              link: `https://f${feed}.test/${i}`,
              title,
              excerpt: body,
              content: "",
              publishedAt: T0 - i * 60_000,
              updatedAt: null,
              seenAt: T0,
              languageId: 1,
            },
          ],
        });
      }
      const expected = await answers(fresh);
      assert.ok(
        expected.some((line) => line.includes("https://")),
        "the searches find posts",
      );

      // The older database: written at the version before, its pairs unmarked (the trigger of
      // that version derives them from the search vector), one smart category counted.
      const url = await server.createDatabase("one_index_old");
      const pool = await openPostgresPool({ url });
      try {
        await migratePostgres(pool, version - 1);
        assert.deepEqual(await indexes(pool), ["posts_search_operators", "posts_search_words"]);
        for (const [i, name] of feeds.entries()) {
          await pool.query(
            "INSERT INTO feeds (id, url, name, name_key, language_id) VALUES ($1, $2, $3, $4, 1)",
            [feedIds[i], `https://f${i}.test/feed`, name, name.toLowerCase()],
          );
        }
        for (const [i, [feed, title, body]] of posts.entries()) {
          await pool.query(
            `INSERT INTO posts (feed_id, guid, link, title, excerpt, content, seen_at, post_date, language_id, search_vector)
              VALUES ($1, $2, $3, $4, $5, '', $6, $7, 1, $8::tsvector)`,
            [
              feedIds[feed],
              `g${i}`,
              `https://f${feed}.test/${i}`,
              title,
              body,
              T0,
              T0 - i * 60_000,
              searchVector(feeds[feed]!, title, `${body} ${htmlToIndexText("")}`),
            ],
          );
        }
        await pool.query(
          `INSERT INTO smart_categories (key, name, name_key, query) VALUES ('os', 'OS', 'os', '"open source"');
           INSERT INTO counted_searches (index_query) VALUES ('''open source''');
           INSERT INTO search_days (search_id, language_id, day, posts) SELECT id, 0, 1, 5 FROM counted_searches;`,
        );
        const [unmarked] = await rows<{ n: number }>(
          pool,
          "SELECT count(*)::int AS n FROM posts WHERE phrase_vector::text LIKE '%''open source''%'",
        );
        assert.equal(unmarked!.n, 5, "pairs were stored unmarked before");

        assert.equal(await migratePostgres(pool), version);
        assert.deepEqual(await indexes(pool), ["posts_search_lexemes"]);
        const check = async () => {
          const [pairs] = await rows<{ unmarked: number; differ: number }>(
            pool,
            `SELECT count(*) FILTER (WHERE EXISTS (SELECT 1 FROM unnest(tsvector_to_array(phrase_vector)) l
                  WHERE left(l, 2) <> '${PAIR_MARK}'))::int AS unmarked,
                count(*) FILTER (WHERE phrase_vector <> mark_pairs(phrase_pairs(search_vector)))::int AS differ
              FROM posts`,
          );
          assert.deepEqual(pairs, { unmarked: 0, differ: 0 });
          assert.deepEqual(
            await rows(pool, "SELECT * FROM counted_searches"),
            [],
            "counted again by the store",
          );
        };
        await check();
        // Again (a migration run twice): nothing changes.
        await inTransaction(pool, (sql) => createOneSearchIndex(sql, () => {}));
        await check();
        assert.deepEqual(await indexes(pool), ["posts_search_lexemes"]);

        const upgraded = await openPostgresStore({ url });
        try {
          assert.deepEqual(await answers(upgraded), expected);
          // The smart category is counted again, its pair marked.
          const counted = await rows<{ index_query: string; n: number }>(
            pool,
            `SELECT s.index_query, sum(d.posts)::int AS n FROM counted_searches s
              JOIN search_days d ON d.search_id = s.id AND d.language_id = 0 GROUP BY 1`,
          );
          assert.deepEqual(counted, [{ index_query: `'${PAIR_MARK}open source'`, n: 5 }]);
        } finally {
          await upgraded.close();
        }

        // Plain and operator searches read the one index.
        const client = await pool.connect();
        try {
          await client.query("SET enable_seqscan = off");
          for (const query of [`'${PAIR_MARK}open source'`, "' pfx sou' & 'sourc':*"]) {
            const plan = await client.query(
              `EXPLAIN SELECT 1 FROM posts p WHERE ${SEARCH_EXPRESSION} @@ $1::tsquery`,
              [query],
            );
            const text = plan.rows.map((r: Record<string, string>) => r["QUERY PLAN"]).join("\n");
            assert.match(text, /posts_search_lexemes/, text);
          }
        } finally {
          client.release();
        }
      } finally {
        await pool.end();
      }
    } finally {
      await fresh.close();
    }
  });

  it("a prefix's range of lexemes holds no pair", async () => {
    const url = await server.createDatabase("one_index_prefix");
    const store = await openPostgresStore({ url });
    try {
      const feed = await store.addFeed({ feedUrl: "https://p.test/feed", feedName: "P" });
      await store.applyFeedUpdate(feed.feedId, {
        fetchState: {},
        posts: [
          {
            guid: "p",
            link: "https://p.test/1",
            title: "source code",
            excerpt: "open source sourcing",
            content: "",
            publishedAt: T0,
            updatedAt: null,
            seenAt: T0,
            languageId: 1,
          },
        ],
      });
      const inner = await openPostgresPool({ url });
      try {
        // Every lexeme of the indexed expression that a prefix `sour*` would read is a word.
        const lexemes = await rows<{ l: string }>(
          inner,
          `SELECT l FROM posts p, unnest(tsvector_to_array(${SEARCH_EXPRESSION})) l WHERE l LIKE 'sour%' ORDER BY 1`,
        );
        assert.deepEqual(
          lexemes.map((r) => r.l),
          ["source", "sourcing"],
        );
      } finally {
        await inner.end();
      }
    } finally {
      await store.close();
    }
  });
});
