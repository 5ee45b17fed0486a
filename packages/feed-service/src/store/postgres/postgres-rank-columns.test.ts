/**
 * The rank columns a refresh sends with its insert (rankColumns, migration 40) are what the
 * posts_rank_columns trigger derives from the stored `search_vector`: `ts_filter(.., '{a,b}')` and
 * the count of body lexemes, compared on the server as values and as text. Cases: words in several
 * fields, quotes and backslashes, a title word repeated past the 256 positions a lexeme keeps, a
 * post past position 16383 (left to the trigger), characters whose UTF-16 order is not their byte
 * order, seeded token streams; then through the store's writes, a row inserted without them and
 * an update of `search_vector`.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { mulberry32Draws } from "../../test-support/seeded-draws.js";
import { openTestPostgresStore, type TestPostgresStore } from "../../test-support/test-postgres-server.js";
import { postColumns } from "./postgres-text-search.js";
import { rankColumns, wordsLiteral } from "./postgres-vector-literals.js";

let db: TestPostgresStore;

before(async () => {
  db = await openTestPostgresStore("rank_columns");
});

after(async () => {
  await db?.close();
});

const quote = (w: string) => `'${w.replaceAll("\\", "\\\\").replaceAll("'", "''")}'`;

/** Feed name, title and body of each case. */
const texts: Array<[string, string, string]> = [
  ["Alpha Blog", "Café crème", "Une recette"],
  ["", "", ""],
  ["Blog", "", "body only words"],
  ["", "Title only", ""],
  ["News", "news of the news", "the news, the NEWS and the news again; news"],
  ["O'Reilly \\ Radar", "it's a back\\slash", "l'été d'O'Reilly \\ back\\slash"],
  ["Repeats", Array.from({ length: 300 }, () => "echo").join(" "), "echo in the body"],
  ["Feed feed", `feed ${"title ".repeat(260)}`, `${"title ".repeat(10)} feed`],
  ["", "", Array.from({ length: 400 }, (_, i) => (i % 3 === 0 ? "word" : `w${i % 7}`)).join(" ")],
  ["", "\u{1F600} smile \uFF21 fullwidth", "\u{1F600}\uFF21 \uFF21\u{1F600} 𝔘 ﬁ ｚ z"],
  ["日本", "データ 性能改善", "データの性能改善 データ データ"],
];

/** The trigger's values for a search_vector literal, computed by the server. */
async function serverRank(words: string): Promise<{ rank: string; body_length: number }> {
  const [row] = (
    await db.pool.query<{ rank: string; body_length: number }>(
      "SELECT ts_filter($1::tsvector, '{a,b}')::text AS rank, length(ts_filter($1::tsvector, '{d}')) AS body_length",
      [words],
    )
  ).rows;
  return row!;
}

async function assertSame(words: string, rank: string, bodyLength: number, what: string): Promise<void> {
  const server = await serverRank(words);
  const [row] = (
    await db.pool.query<{ same: boolean; text: string }>(
      "SELECT ts_filter($1::tsvector, '{a,b}') = $2::tsvector AS same, $2::tsvector::text AS text",
      [words, rank],
    )
  ).rows;
  assert.ok(row!.same, `${what}: ${rank.slice(0, 80)}`);
  assert.equal(row!.text, server.rank, what);
  assert.equal(bodyLength, server.body_length, what);
}

describe("rank columns computed by the writer", () => {
  it("are the trigger's ts_filter and body length of the stored vector", async () => {
    for (const [feed, title, body] of texts) {
      const { words, rank, bodyLength } = postColumns(feed, title, body);
      assert.notEqual(rank, null, title);
      await assertSame(words, rank!, bodyLength!, title.slice(0, 40));
    }
  });

  it("are left to the trigger for a post reaching the last position", () => {
    const { rank, bodyLength } = postColumns("Feed", "late words", `${"filler ".repeat(16_500)} late words`);
    assert.equal(rank, null);
    assert.equal(bodyLength, null);
  });

  it("match on seeded token streams: repeats past 256 positions, weights in any order", async () => {
    const alphabet = [..."ab'\\ !&z", "é", "東", "\uFF21", "\uE000", "\u{1F600}"];
    for (let seed = 1; seed <= 60; seed++) {
      const next = mulberry32Draws(seed);
      const word = () => {
        let w = "";
        for (let i = 0, n = 1 + Math.floor(next() * 3); i < n; i++)
          w += alphabet[Math.floor(next() * alphabet.length)];
        return w;
      };
      // Few distinct words so that some pass 256 positions; weights B, then A, then D, as a post's fields.
      const count = Math.floor(next() * (seed % 4 === 0 ? 2_000 : 300));
      const vocabulary = Array.from({ length: 1 + Math.floor(next() * 12) }, word);
      const titleEnd = Math.floor(next() * count);
      const tokens = Array.from({ length: count }, (_, i) => ({
        word: vocabulary[Math.floor(next() * vocabulary.length)]!,
        at: i + 1,
        weight: i < titleEnd / 4 ? "B" : i < titleEnd ? "A" : "",
      }));
      const columns = rankColumns(tokens, quote);
      assert.notEqual(columns.rank, null);
      await assertSame(wordsLiteral(tokens, quote), columns.rank!, columns.bodyLength!, `seed ${seed}`);
    }
  });

  it("are stored by the store's writes as the trigger stores them", async () => {
    const { store, pool } = db;
    const feed = await store.addFeed({ feedUrl: "https://rank.test/feed", feedName: "Rank Feed" });
    const posts = texts.map(([, title, body], i) => ({
      guid: `g${i}`,
      link: `https://rank.test/${i}`,
      title,
      excerpt: "",
      content: `<p>${body}</p>`,
      publishedAt: Date.UTC(2026, 0, 10) - i * 60_000,
      updatedAt: null,
      seenAt: Date.UTC(2026, 0, 10),
      languageId: 1,
    }));
    posts.push({
      ...posts[0]!,
      guid: "long",
      link: "https://rank.test/long",
      content: "filler ".repeat(16_500),
    });
    await store.applyFeedUpdate(feed.feedId, { fetchState: {}, posts });
    // A row inserted without them, and an update of search_vector: the trigger fills them.
    await pool.query(
      `INSERT INTO posts (feed_id, guid, link, title, excerpt, content, seen_at, post_date, language_id, search_vector)
        VALUES ($1, 'raw', 'https://rank.test/raw', 'Raw', '', '', 0, 0, 1, 'raw:1A body:3')`,
      [feed.feedId],
    );
    await pool.query("UPDATE posts SET search_vector = 'new:1A title:2A body:4' WHERE guid = 'g0'");
    const { rows } = await pool.query<{ guid: string; same: boolean; ranked: boolean }>(
      `SELECT guid, rank_vector IS NOT NULL AND body_length IS NOT NULL AS ranked,
          rank_vector = ts_filter(search_vector, '{a,b}') AND rank_vector::text = ts_filter(search_vector, '{a,b}')::text
            AND body_length = length(ts_filter(search_vector, '{d}')) AS same
        FROM posts WHERE feed_id = $1 ORDER BY id`,
      [feed.feedId],
    );
    assert.equal(rows.length, texts.length + 2);
    for (const r of rows) {
      assert.ok(r.ranked, r.guid);
      assert.ok(r.same, r.guid);
    }
    const [updated] = (
      await pool.query<{ rank: string }>("SELECT rank_vector::text AS rank FROM posts WHERE guid = 'g0'")
    ).rows;
    assert.equal(updated!.rank, "'new':1A 'title':2A");
  });
});
