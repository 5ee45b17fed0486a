/**
 * The store's SQLite extension (native/sampled_bm25.c) against bm25 written out in JavaScript from
 * the token counts of a small FTS5 table like the store's (three columns, the ascii tokenizer),
 * and against FTS5's own bm25() when it counts on the whole index.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import { loadStoreExtension } from "./sqlite-connection.js";

const rows: Array<[title: string, body: string, feed: string]> = [
  ["alpha beta", "alpha gamma alpha delta", "news"],
  ["beta", "gamma gamma gamma", "alpha news"],
  ["gamma delta epsilon", "alpha", "blog"],
  ["zeta", "eta theta iota kappa lambda", "blog"],
  ["alpha alpha alpha", "beta", "news"],
  ["delta", "epsilon zeta alpha beta gamma", "blog"],
];
const WEIGHTS = [4.0, 1.0, 2.0];

/** bm25 as FTS5 defines it (k1 1.2, b 0.75), for phrases of one word, with the given statistics. */
function expectedScore(row: number, words: string[], nDocs: number, nHits: number[]): number {
  const columns = rows[row]!.map((text) => text.split(" "));
  const length = (text: string) => text.split(" ").length;
  const avgdl = rows.reduce((sum, r) => sum + r.reduce((s, text) => s + length(text), 0), 0) / rows.length;
  const D = columns.reduce((sum, tokens) => sum + tokens.length, 0);
  let score = 0;
  words.forEach((word, i) => {
    const freq = columns.reduce(
      (sum, tokens, c) => sum + WEIGHTS[c]! * tokens.filter((t) => t === word).length,
      0,
    );
    let idf = Math.log((nDocs - nHits[i]! + 0.5) / (nHits[i]! + 0.5));
    if (idf <= 0) idf = 1e-6;
    score += (idf * (freq * 2.2)) / (freq + 1.2 * (1 - 0.75 + (0.75 * D) / avgdl));
  });
  return score;
}

describe("sampled_bm25", () => {
  const db = new Database(":memory:");
  loadStoreExtension(db);
  db.exec("CREATE VIRTUAL TABLE t USING fts5 (title, body, feed_name, tokenize = 'ascii')");
  const insert = db.prepare("INSERT INTO t (rowid, title, body, feed_name) VALUES (?, ?, ?, ?)");
  for (const [i, row] of rows.entries()) insert.run(i + 1, ...row);
  after(() => db.close());

  // Row lengths from the docsize table through a blob handle, or (null) from FTS5's xColumnSize.
  const scores = (match: string, stats: Array<number | null>, docsize: string | null = "t_docsize") =>
    db
      .prepare(
        `SELECT rowid, sampled_bm25(t, ?, 4.0, 1.0, 2.0${", ?".repeat(stats.length)}) FROM t WHERE t MATCH ? ORDER BY rowid`,
      )
      .raw()
      .all(docsize, ...stats, match) as Array<[number, number]>;

  it("scores each row as bm25 does with the statistics it is given", () => {
    const cases: Array<[string, string[], number, number[]]> = [
      ['"alpha"', ["alpha"], 1000, [40]],
      ['"alpha" AND "beta"', ["alpha", "beta"], 500, [100, 7]],
      ['"gamma" OR "zeta"', ["gamma", "zeta"], 64, [3, 60]],
      // A phrase in more than half the documents weighs 1e-6, as in FTS5.
      ['"alpha"', ["alpha"], 10, [9]],
    ];
    let compared = 0;
    for (const [match, words, nDocs, nHits] of cases) {
      const got = scores(match, [nDocs, ...nHits]);
      assert.ok(got.length > 0, match);
      assert.deepEqual(scores(match, [nDocs, ...nHits], null), got, `${match}: lengths from FTS5`);
      for (const [rowid, score] of got) {
        const want = expectedScore(rowid - 1, words, nDocs, nHits);
        assert.ok(
          Math.abs(score - want) < 1e-12 * Math.max(1, want),
          `${match} row ${rowid}: ${score} vs ${want}`,
        );
        compared++;
      }
    }
    assert.ok(compared >= 10, `${compared} rows compared`);
  });

  it("counts on the whole index when given no statistics, giving exactly -bm25()", () => {
    for (const [match, phrases] of [
      ['"alpha"', 1],
      ['"alpha" AND ("gamma" OR "delta")', 3],
      ['"alpha beta"', 1],
      ['("gamma") NOT "zeta"', 2],
    ] as const) {
      const reference = db
        .prepare("SELECT rowid, -bm25(t, 4.0, 1.0, 2.0) FROM t WHERE t MATCH ? ORDER BY rowid")
        .raw()
        .all(match);
      assert.ok(reference.length > 0, match);
      assert.deepEqual(scores(match, Array(1 + phrases).fill(null)), reference, match);
      assert.deepEqual(scores(match, Array(1 + phrases).fill(null), null), reference, match);
    }
  });

  it("falls back to FTS5's row lengths when the docsize table cannot be read", () => {
    const reference = scores('"alpha" AND "beta"', [100, 3, 7], null);
    assert.ok(reference.length > 1);
    assert.deepEqual(scores('"alpha" AND "beta"', [100, 3, 7], "no_such_table"), reference);
  });

  it("says how many arguments it wants when given the wrong number", () => {
    assert.throws(
      () => scores('"alpha" AND "beta"', [100, 3]),
      /sampled_bm25: expected 7 arguments after the table \(the docsize table, 3 column weights, the document count, 2 phrase counts\), got 6/,
    );
  });
});
