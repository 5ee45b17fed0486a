/**
 * The writers' tsvector literals, each lexeme once and sorted (postgres-vector-literals.ts), are
 * read by PostgreSQL as the same value as one entry per token in text order: tsvectorin sorts and
 * merges either way. Checked against the server on texts with repeated words in several fields,
 * quotes and backslashes, words past the 256 positions a lexeme keeps, positions past 16383, and
 * characters whose UTF-16 order is not their byte order.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { openTestPostgresStore, type TestPostgresStore } from "../../test-support/test-postgres-server.js";
import { postVectors, searchVector } from "./postgres-text-search.js";
import { lexemesLiteral, wordsLiteral } from "./postgres-vector-literals.js";

let db: TestPostgresStore;

before(async () => {
  db = await openTestPostgresStore("vector_literals");
});

after(async () => {
  await db?.close();
});

const quote = (w: string) => `'${w.replaceAll("\\", "\\\\").replaceAll("'", "''")}'`;

/** Feed name, title and body of each case. */
const texts: Array<[string, string, string]> = [
  ["Alpha Blog", "Café crème", "Une recette"],
  ["News", "news of the news", "the news, the NEWS and the news again; news"],
  ["O'Reilly \\ Radar", "it's a back\\slash", "l'été d'O'Reilly \\ back\\slash"],
  ["", "", Array.from({ length: 400 }, (_, i) => (i % 3 === 0 ? "word" : `w${i % 7}`)).join(" ")],
  ["Feed", "late words", `${"filler ".repeat(16_500)} late words at the end late`],
  ["", "\u{1F600} smile \uFF21 fullwidth", "\u{1F600}\uFF21 \uFF21\u{1F600} 𝔘 ﬁ ｚ z"],
  ["日本", "データ 性能改善", "データの性能改善 データ データ"],
];

describe("tsvector literals each lexeme once, sorted", () => {
  it("merges a word's positions and sorts the lexemes", () => {
    const tokens = [
      { word: "b", at: 1, weight: "A" },
      { word: "a", at: 2, weight: "" },
      { word: "b", at: 3, weight: "" },
    ];
    assert.equal(wordsLiteral(tokens, quote), "'a':2 'b':1A,3");
    assert.equal(lexemesLiteral(new Set(["b c", "a b"]), quote), "'a b' 'b c'");
    assert.equal(wordsLiteral([], quote), "");
  });

  it("is stored as the same tsvector as one entry per token in text order", async () => {
    for (const [feed, title, body] of texts) {
      const { words, pairs } = postVectors(feed, title, body);
      const [row] = (
        await db.pool.query<{ same: boolean; lexemes: number }>(
          "SELECT $1::tsvector = $2::tsvector AS same, length($1::tsvector) AS lexemes, $3::tsvector AS pairs",
          [words, searchVector(feed, title, body), pairs],
        )
      ).rows;
      assert.ok(row!.same, `${title}: ${words.slice(0, 80)}`);
      assert.ok(row!.lexemes > 0);
    }
  });

  it("is already in the server's order: the server's text of it is the literal itself", async () => {
    const { words, pairs } = postVectors("Alpha Blog", "Café crème, l'été", "une recette de café, une autre");
    const [row] = (
      await db.pool.query<{ words: string; pairs: string }>(
        "SELECT $1::tsvector::text AS words, $2::tsvector::text AS pairs",
        [words, pairs],
      )
    ).rows;
    assert.equal(row!.words, words);
    assert.equal(row!.pairs, pairs);
  });

  it("writes each lexeme once", () => {
    const { words } = postVectors("News", "news of the news", "the news");
    assert.equal(words, "'news':1B,3A,6A,9 'of':4A 'the':5A,8");
  });
});
