/**
 * Phrases through the pairs of neighbouring words in the search index (migration 11): the pairs
 * narrow the posts GIN hands over, never the answer. Each search is compared with the phrase
 * checked on every post's `search_vector`, including posts that hold every pair of a longer phrase
 * at the wrong places and a phrase whose pair is too long to index.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type pg from "pg";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { openTestPostgresStore, type TestPostgresStore } from "../../test-support/test-postgres-server.js";
import { toSearchIndexTsquery } from "./postgres-phrase-pairs.js";
import { searchPosts } from "./postgres-search-queries.js";
import type { PostgresStore } from "./postgres-store.js";
import { phraseVector, toTsquery } from "./postgres-text-search.js";

const T0 = Date.UTC(2026, 0, 10);
const long = (letter: string) => letter.repeat(1_100);

/** Search vectors as tsvector literals: each word at its position. */
const vectors = [
  "open:1 source:2 code:3",
  "source:1 open:2",
  "open:1 x:2 source:3",
  // Every pair of "a b c", but never the three in a row.
  "a:1 b:2 y:5 b:8 c:9",
  "a:3 b:4 c:5",
  "c:1 b:2 a:3",
  // A pair of two 1,100-byte words passes the lexeme limit: not indexed, still found.
  `${long("p")}:1 ${long("q")}:2`,
  `${long("q")}:1 ${long("p")}:2`,
  // Phrases inside clauses of phrases and words.
  "rust:1 open:2 source:3 tools:4",
  "the:1 new:2 release:3",
  // Runs of Chinese, Japanese, Korean: characters and pairs interleaved (データ, 性能改善), and
  // posts holding every pair, or every triple, of those phrases at the wrong places.
  "デ:1 デー:2 ー:3 ータ:4 タ:5",
  "デ:1 デー:2 ー:3 x:4 ー:5 ータ:6 タ:7",
  "性:1 性能:2 能:3 能改:4 改:5 改善:6 善:7",
  "性能:1 能:2 能改:3 改:4 x:5 能改:6 改:7 改善:8",
];

let db: TestPostgresStore;
let store: PostgresStore;
let pool: pg.Pool;

before(async () => {
  // As the store reads: through the index even on a table this small.
  db = await openTestPostgresStore("phrase_pairs", { enable_seqscan: "off" });
  ({ store, pool } = db);
  const feed = await store.addFeed({ feedUrl: "https://a.test/feed", feedName: "A" });
  for (const [i, vector] of vectors.entries()) {
    await pool.query(
      `INSERT INTO posts (feed_id, guid, link, title, excerpt, content, seen_at, post_date, language_id, search_vector)
        VALUES ($1, $2, $3, '', '', '', 0, $4, 1, $5::tsvector)`,
      [feed.feedId, `g${i}`, `https://a.test/${i}`, T0 - i * 60_000, vector],
    );
  }
  await pool.query("ANALYZE posts");
});
after(() => db?.close());

describe("phrases through pairs of neighbouring words", () => {
  it("finds what checking every post's vector finds", async () => {
    const queries = [
      '"open source"',
      '"source open"',
      '"a b c"',
      '"c b a"',
      '"a b"',
      `"${long("p")} ${long("q")}"`,
      '"open source" rust',
      '"open source" OR "the new"',
      '"open source" OR code',
      'open -"open source"',
      '"open source" -code',
      "データ",
      "性能改善",
      '"a b" OR c',
      '"a b c" OR open',
      'データ OR "open source"',
      `"${long("p")} ${long("q")}" OR "a b"`,
      '"a b" -y',
    ];
    for (const terms of queries) {
      const words = toTsquery(parseSearchQuery(terms))!;
      const expected = await pool.query(
        "SELECT id FROM posts WHERE search_vector @@ $1::tsquery ORDER BY post_date DESC, id DESC",
        [words],
      );
      assert.ok(expected.rowCount! > 0, `${terms} matches a post`);
      for (const sort of ["date", "relevance", "clicks"] as const) {
        const found = await searchPosts(pool, {
          query: parseSearchQuery(terms),
          sort,
          offset: 0,
          limit: 20,
          languageIds: null,
        });
        assert.deepEqual(
          found.map((p) => p.postId).sort((a, b) => a - b),
          expected.rows.map((r) => r.id).sort((a, b) => a - b),
          `${terms} by ${sort}`,
        );
      }
    }
  });

  it("indexes each post's neighbouring pairs and run triples only, and no pair past the lexeme limit", async () => {
    const { rows } = await pool.query<{ pairs: string; stored: string }>(
      "SELECT phrase_pairs(search_vector)::text AS pairs, phrase_vector::text AS stored FROM posts WHERE guid IN ('g3', 'g6', 'g10') ORDER BY guid",
    );
    const expected = ["'デ デー' 'デー ー' 'デー ー ータ' 'ー ータ' 'ータ タ'", "'a b' 'b c'", ""];
    assert.deepEqual(
      rows.map((r) => r.pairs),
      expected,
    );
    // Written with a search vector alone, the row gets them from SQL (migration 14's trigger).
    assert.deepEqual(
      rows.map((r) => r.stored),
      expected,
    );
  });

  it("stores the pairs the store's writers compute, the same as SQL derives from the search vector", async () => {
    const feed = await store.addFeed({ feedUrl: "https://w.test/feed", feedName: "Writers' Feed" });
    const texts = [
      ["Open source tools", "open source code, open source again"],
      ["データの性能改善", "東京都のデータ 性能 改善"],
      ["Repeated", "the the the cat the"],
      [`${long("p")} ${long("q")}`, `word ${long("r")} next`],
    ];
    await store.applyFeedUpdate(feed.feedId, {
      fetchState: {},
      posts: texts.map(([title, body], i) => ({
        guid: `w${i}`,
        link: `https://w.test/${i}`,
        title: title!,
        excerpt: body!,
        content: "",
        publishedAt: T0 + i,
        updatedAt: null,
        seenAt: T0,
        languageId: 1,
      })),
    });
    const { rows } = await pool.query<{ stored: string; derived: string }>(
      `SELECT phrase_vector::text AS stored, phrase_pairs(search_vector)::text AS derived FROM posts
        WHERE feed_id = $1 ORDER BY guid`,
      [feed.feedId],
    );
    assert.equal(rows.length, texts.length);
    for (const r of rows) assert.equal(r.stored, r.derived);
    assert.ok(rows[0]!.stored.includes("'open source'"), rows[0]!.stored);
    assert.ok(rows[1]!.stored.includes("'デー ー ータ'"), rows[1]!.stored);
    assert.equal(phraseVector("", "Open source", ""), "'open source'");
    assert.equal(phraseVector("A", "B", "C"), "");
  });

  it("looks a phrase up by its pairs alone when they hold its words, exactly when it is two tokens or a run's three", () => {
    const index = (terms: string) => toSearchIndexTsquery(parseSearchQuery(terms));
    assert.deepEqual(index('"open source"'), { tsquery: "'open source'", exact: true });
    assert.deepEqual(index('"open source" rust'), { tsquery: "'open source' & 'rust'", exact: true });
    assert.deepEqual(index('"a b c"'), { tsquery: "('a b' & 'b c')", exact: false });
    assert.deepEqual(index('"a b" OR "c d"'), { tsquery: "('a b' | 'c d')", exact: true });
    assert.deepEqual(index('"a b" OR c'), { tsquery: "('a b' | 'c')", exact: true });
    assert.deepEqual(index('"a b" OR c "d e"'), { tsquery: "('a b' | 'c') & 'd e'", exact: true });
    assert.deepEqual(index('"a b" -"c d"'), { tsquery: "'a b'", exact: false });
    assert.deepEqual(index('"a b" -c -d'), { tsquery: "'a b' & !('c' | 'd')", exact: true });
    assert.deepEqual(index("a b"), { tsquery: "'a' & 'b'", exact: true });
    assert.deepEqual(index("-a"), null);
    assert.deepEqual(index("データ"), { tsquery: "'デー ー ータ'", exact: true });
    assert.deepEqual(index("性能改善"), { tsquery: "('性能 能 能改' & '能改 改 改善')", exact: false });
    // A pair past the lexeme limit is not in the index: the words are looked up instead.
    assert.deepEqual(index(`"${long("p")} ${long("q")}"`), {
      tsquery: `('${long("p")}' & '${long("q")}')`,
      exact: false,
    });
    assert.deepEqual(index(`"${long("p")} ${long("q")} r"`), {
      tsquery: `('${long("p")}' & '${long("q")}' & 'r' & '${long("q")} r')`,
      exact: false,
    });
  });
});
