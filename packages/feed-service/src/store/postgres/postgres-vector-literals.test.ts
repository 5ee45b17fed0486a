/**
 * The writers' tsvector literals, each lexeme once and sorted (postgres-vector-literals.ts), are
 * read by PostgreSQL as the same value as one entry per token in text order: tsvectorin sorts and
 * merges either way. Checked against the server on texts with repeated words in several fields,
 * quotes and backslashes, words past the 256 positions a lexeme keeps, positions past 16383, and
 * characters whose UTF-16 order is not their byte order.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { mulberry32Draws } from "../../test-support/seeded-draws.js";
import { openTestPostgresStore, type TestPostgresStore } from "../../test-support/test-postgres-server.js";
import { postColumns, postVectors, searchVector } from "./postgres-text-search.js";
import { lexemesLiteral, rankColumns, sortedAsStrings, wordsLiteral } from "./postgres-vector-literals.js";

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

/** The literals as they were built before sortedAsStrings: the built-in sort (pgwrites31). */
function builtInWordsLiteral(tokens: ReadonlyArray<{ word: string; at: number; weight: string }>): string {
  const entryOf = new Map<string, number>();
  const entries: string[] = [];
  for (const t of tokens) {
    const at = entryOf.get(t.word);
    if (at === undefined) {
      entryOf.set(t.word, entries.length);
      entries.push(`${quote(t.word)}:${t.at}${t.weight}`);
    } else entries[at] += `,${t.at}${t.weight}`;
  }
  return entries.sort().join(" ");
}

/** Characters whose order decides ties: below and above the quote, astral, U+E000-FFFF, CJK. */
const alphabet = [
  ..."ab'\\ !&:z0",
  "é",
  "\u30fc",
  "東",
  "京",
  "\uFF21",
  "\uE000",
  "\uFFFD",
  "\u{1F600}",
  "\u{20BB7}",
];

function randomWord(next: () => number): string {
  let word = "";
  const length = Math.floor(next() * 5);
  for (let i = 0; i < length; i++) word += alphabet[Math.floor(next() * alphabet.length)];
  return word;
}

describe("sortedAsStrings", () => {
  it("orders as the built-in sort does", () => {
    for (let seed = 1; seed <= 300; seed++) {
      const next = mulberry32Draws(seed);
      const from = seed % 3 === 0 ? 1 : 0;
      const head = from === 1 ? "'" : "";
      // Sizes past the short runs, and few distinct units so that runs sharing a prefix are long.
      const size = Math.floor(next() * (seed % 2 === 0 ? 400 : 40));
      const strings = Array.from({ length: size }, () => head + randomWord(next));
      assert.deepEqual(sortedAsStrings([...strings], from), [...strings].sort(), `seed ${seed}`);
    }
  });

  it("builds the same literals as the built-in sort did", () => {
    for (let seed = 1; seed <= 200; seed++) {
      const next = mulberry32Draws(seed);
      const tokens = Array.from({ length: Math.floor(next() * 300) }, (_, i) => ({
        word: randomWord(next) || "x",
        at: i + 1,
        weight: ["A", "B", ""][i % 3]!,
      }));
      assert.equal(wordsLiteral(tokens, quote), builtInWordsLiteral(tokens), `seed ${seed}`);
      const lexemes = new Set(tokens.map((t, i) => `${t.word} ${tokens[i + 1]?.word ?? "y"}`));
      assert.equal(lexemesLiteral(lexemes, quote), [...lexemes].sort().map(quote).join(" "), `seed ${seed}`);
    }
  });

  it("builds the same literals as the built-in sort did for varied posts", () => {
    for (const [feed, title, body] of texts) {
      const { words, pairs } = postVectors(feed, title, body);
      const unsorted = searchVector(feed, title, body);
      // searchVector writes one entry per token: merged here as wordsLiteral merges them.
      const tokens = unsorted.split(" ").map((entry) => {
        const [, word, at, weight] = /^'(.*)':(\d+)([AB]?)$/s.exec(entry)!;
        return {
          word: word!.replaceAll("''", "'").replaceAll("\\\\", "\\"),
          at: Number(at),
          weight: weight!,
        };
      });
      assert.equal(words, builtInWordsLiteral(tokens));
      assert.ok(pairs.length > 0 || words.length === 0);
    }
  });
});

/** The rank columns as the posts' row trigger derives them (migration 5), by the server. */
async function serverRank(words: string): Promise<{ vector: string; bodyLength: number }> {
  const [row] = (
    await db.pool.query<{ vector: string; body: number }>(
      "SELECT ts_filter($1::tsvector, '{a,b}')::text AS vector, length(ts_filter($1::tsvector, '{d}')) AS body",
      [words],
    )
  ).rows;
  return { vector: row!.vector, bodyLength: row!.body };
}

/** A post's tokens as positionedTokens lays them out: feed name (B), title (A), body, a gap after each. */
function fieldTokens(
  fields: ReadonlyArray<readonly string[]>,
): Array<{ word: string; at: number; weight: string }> {
  const tokens: Array<{ word: string; at: number; weight: string }> = [];
  let position = 0;
  fields.forEach((words, field) => {
    for (const word of words) {
      position = Math.min(position + 1, 16_383);
      tokens.push({ word, at: position, weight: ["B", "A", ""][field]! });
    }
    position = Math.min(position + 1, 16_383);
  });
  return tokens;
}

describe("rankColumns", () => {
  it("gives the rank columns the server derives from the words' vector", async () => {
    for (let seed = 1; seed <= 150; seed++) {
      const next = mulberry32Draws(seed);
      // A small vocabulary, so that words repeat within and across the fields.
      const vocabulary = Array.from({ length: 2 + Math.floor(next() * 30) }, () => randomWord(next) || "x");
      const draw = (n: number) =>
        Array.from({ length: n }, () => vocabulary[Math.floor(next() * vocabulary.length)]!);
      const tokens = fieldTokens([
        draw(Math.floor(next() * 4)),
        draw(Math.floor(next() * (seed % 10 === 0 ? 300 : 20))),
        draw(Math.floor(next() * (seed % 7 === 0 ? 600 : 80))),
      ]);
      const { rank, bodyLength } = rankColumns(tokens, quote);
      const expected = await serverRank(wordsLiteral(tokens, quote));
      // Positions below 16383 and well-formed words: never left to the server.
      assert.notEqual(rank, null, `seed ${seed}`);
      const [row] = (await db.pool.query<{ vector: string }>("SELECT $1::tsvector::text AS vector", [rank]))
        .rows;
      assert.deepEqual({ vector: row!.vector, bodyLength }, expected, `seed ${seed}`);
    }
  });

  it("matches the server on the posts' texts, and leaves the uncertain ones to it", async () => {
    for (const [feed, title, body] of texts) {
      const { words, rank, bodyLength } = postColumns(feed, title, body);
      assert.equal(words, postVectors(feed, title, body).words);
      if (title === "late words") {
        // Positions at 16383: the server merges them, and only it can say which weight stays.
        assert.equal(rank, null);
        continue;
      }
      const [row] = (await db.pool.query<{ vector: string }>("SELECT $1::tsvector::text AS vector", [rank]))
        .rows;
      assert.deepEqual({ vector: row!.vector, bodyLength }, await serverRank(words), title);
    }
    const lone = [
      { word: "a\uD800", at: 1, weight: "A" },
      { word: "a\uDC00", at: 2, weight: "" },
    ];
    assert.equal(rankColumns(lone, quote).rank, null, "a lone surrogate: one lexeme once encoded");
    const empty = postColumns("", "", "");
    assert.deepEqual({ rank: empty.rank, bodyLength: empty.bodyLength }, { rank: "", bodyLength: 0 });
    const news = postColumns("News", "news", "");
    assert.deepEqual(
      { rank: news.rank, bodyLength: news.bodyLength },
      { rank: "'news':1B,3A", bodyLength: 0 },
    );
  });
});
