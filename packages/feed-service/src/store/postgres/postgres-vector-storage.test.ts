/**
 * A post's vectors are stored without compression (migrations 39 and 47, STORAGE EXTERNAL): a
 * post long enough to be moved out of line, written by the store's refresh, keeps `search_vector`
 * and `phrase_vector` uncompressed, while the same values in a column of the default storage are
 * compressed (so the check is not passed by values pglz would leave alone anyway). The staged
 * table of migrate-data is made LIKE posts with its storage (migrate-data-staging.test.ts compares
 * the copied catalog, storage included, with a new database's).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { openTestPostgresStore, type TestPostgresStore } from "../../test-support/test-postgres-server.js";

let db: TestPostgresStore;

before(async () => {
  db = await openTestPostgresStore("vector_storage");
});

after(async () => {
  await db?.close();
});

describe("PostgreSQL post vectors' storage", () => {
  it("keeps search_vector and phrase_vector uncompressed where the default storage compresses them", async () => {
    const { store, pool } = db;
    const feed = await store.addFeed({ feedUrl: "https://storage.test/feed", feedName: "Storage Feed" });
    // A hundred long words sharing most of their letters: pairs that pglz shortens (it gives up
    // where the first kilobyte of the value, the lexemes' entries before their text, repeats nothing).
    const letters = (i: number) => String.fromCharCode(97 + Math.floor(i / 26), 97 + (i % 26));
    const body = Array.from(
      { length: 100 },
      (_, i) => `internationalisationsupercalifragilistic${letters(i)}`,
    ).join(" ");
    await store.applyFeedUpdate(feed.feedId, {
      fetchState: {},
      posts: [
        {
          guid: "long",
          link: "https://storage.test/long",
          title: "A long post",
          excerpt: "",
          content: `<p>${body}</p>`,
          publishedAt: Date.UTC(2026, 0, 10),
          updatedAt: null,
          seenAt: Date.UTC(2026, 0, 10),
          languageId: 1,
        },
      ],
    });
    const [stored] = (
      await pool.query<{ words: string | null; pairs: string | null; pairs_bytes: number }>(
        `SELECT pg_column_compression(search_vector) AS words, pg_column_compression(phrase_vector) AS pairs,
            octet_length(phrase_vector::text) AS pairs_bytes
          FROM posts WHERE guid = 'long'`,
      )
    ).rows;
    assert.ok(stored!.pairs_bytes > 4000, "the post's pairs are long enough to leave the row");
    assert.equal(stored!.words, null);
    assert.equal(stored!.pairs, null);
    // The same values in columns of the default storage (EXTENDED) are compressed.
    const client = await pool.connect();
    try {
      await client.query("CREATE TEMP TABLE extended_vectors (words tsvector, pairs tsvector)");
      await client.query(
        "INSERT INTO extended_vectors SELECT search_vector::text::tsvector, phrase_vector::text::tsvector FROM posts WHERE guid = 'long'",
      );
      const [control] = (
        await client.query<{ pairs: string | null }>(
          "SELECT pg_column_compression(pairs) AS pairs FROM extended_vectors",
        )
      ).rows;
      assert.equal(control!.pairs, "pglz");
    } finally {
      await client.query("DROP TABLE IF EXISTS extended_vectors");
      client.release();
    }
  });
});
