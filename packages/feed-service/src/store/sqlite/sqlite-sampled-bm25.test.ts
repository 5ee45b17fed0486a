/**
 * The store's SQLite extension (native/sampled_bm25.c) against bm25 written out in JavaScript from
 * the token counts of a small FTS5 table like the store's (three columns, the ascii tokenizer),
 * and against FTS5's own bm25() when it counts on the whole index.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

  it("weighs a column of negative weight as its weight and leaves it out of the lengths", () => {
    // The store's title_words (fts5-index-row.ts): the title's tokens again behind a marker.
    db.exec("CREATE VIRTUAL TABLE u USING fts5 (title, body, feed_name, title_words, tokenize = 'ascii')");
    const mark = (text: string) => text.replaceAll(/(^| )/gu, "$1\uE002");
    const insertMarked = db.prepare(
      "INSERT INTO u (rowid, title, body, feed_name, title_words) VALUES (?, ?, ?, ?, ?)",
    );
    for (const [i, row] of rows.entries()) insertMarked.run(i + 1, ...row, mark(row[0]));
    const marked = (match: string, stats: Array<number | null>, docsize: string | null) =>
      db
        .prepare(
          `SELECT rowid, sampled_bm25(u, ?, 4.0, 1.0, 2.0, -4.0${", ?".repeat(stats.length)}) FROM u WHERE u MATCH ? ORDER BY rowid`,
        )
        .raw()
        .all(docsize, ...stats, match) as Array<[number, number]>;
    const close = (got: Array<[number, number]>, want: Array<[number, number]>, what: string) => {
      assert.deepEqual(
        got.map(([rowid]) => rowid),
        want.map(([rowid]) => rowid),
        what,
      );
      for (const [i, [, score]] of got.entries()) {
        assert.ok(Math.abs(score - want[i]![1]) < 1e-12, `${what}: ${score}`);
      }
    };
    for (const [title, plain, phrases] of [
      ['"\uE002alpha"', '{title} : "alpha"', 1],
      ['"\uE002alpha \uE002beta"', '{title} : "alpha beta"', 1],
      ['"\uE002delta" AND "gamma"', '{title} : "delta" AND "gamma"', 2],
      ['"alpha" AND "\uE002beta"', '"alpha" AND {title} : "beta"', 2],
      ['"alpha"', '"alpha"', 1],
    ] as const) {
      const reference = db
        .prepare("SELECT rowid, -bm25(t, 4.0, 1.0, 2.0) FROM t WHERE t MATCH ? ORDER BY rowid")
        .raw()
        .all(plain) as Array<[number, number]>;
      assert.ok(reference.length > 0, plain);
      for (const docsize of ["u_docsize", null]) {
        close(marked(title, Array(1 + phrases).fill(null), docsize), reference, `${title} ${docsize}`);
        close(
          marked(title, [100, ...Array(phrases).fill(7)], docsize),
          scores(plain, [100, ...Array(phrases).fill(7)]),
          `${title} ${docsize}, counts given`,
        );
      }
    }
    // The warm-up reads the lengths of the text's columns, which come first.
    assert.equal(db.prepare("SELECT sampled_bm25_lengths('u_docsize', 3)").pluck().get(), rows.length);
    close(
      marked('"\uE002alpha"', [100, 7], "u_docsize"),
      scores('{title} : "alpha"', [100, 7]),
      "kept lengths",
    );
  });

  it("says how many arguments it wants when given the wrong number", () => {
    assert.throws(
      () => scores('"alpha" AND "beta"', [100, 3]),
      /sampled_bm25: expected 7 arguments after the table \(the docsize table, 3 column weights, the document count, 2 phrase counts\), got 6/,
    );
  });
});

describe("sampled_bm25's row lengths, kept per connection", () => {
  // A table like the store's (contentless, with deletes), in a file that a second connection writes.
  const dir = mkdtempSync(join(tmpdir(), "sampled-bm25-"));
  const file = join(dir, "lengths.db");
  const writer = new Database(file);
  writer.pragma("journal_mode = WAL");
  writer.exec(`CREATE VIRTUAL TABLE t USING fts5 (title, body, feed_name, content = '', contentless_delete = 1,
    tokenize = 'ascii')`);
  const insert = writer.prepare("INSERT INTO t (rowid, title, body, feed_name) VALUES (?, ?, ?, ?)");
  // Rowids as the store's date keys are (large and sparse, sqlite-date-keys.ts): row n is KEY + n.
  const KEY = 115_865_593_020_416;
  for (const [i, row] of rows.entries()) insert.run(KEY + i + 1, ...row);
  const reader = new Database(file, { readonly: true });
  loadStoreExtension(reader);
  after(() => {
    reader.close();
    writer.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const scored = (db: Database.Database, match: string) =>
    db
      .prepare(
        `SELECT rowid, sampled_bm25(t, 't_docsize', 4.0, 1.0, 2.0, NULL${", NULL".repeat(match.split('"').length / 2)}) FROM t WHERE t MATCH ? ORDER BY rowid`,
      )
      .raw()
      .all(match) as Array<[number, number]>;
  const reference = (db: Database.Database, match: string) =>
    db
      .prepare("SELECT rowid, -bm25(t, 4.0, 1.0, 2.0) FROM t WHERE t MATCH ? ORDER BY rowid")
      .raw()
      .all(match);

  it("reads a row's length once per connection: later statements use what it read", () => {
    const before = scored(reader, '"alpha"');
    assert.equal(before.length, 5);
    assert.deepEqual(before, reference(reader, '"alpha"'));
    // Rewrite row 1's stored length behind the index's back: the structure record does not change,
    // so this connection keeps the length it read, while a new connection reads the new one.
    const sz = writer
      .prepare("SELECT sz FROM t_docsize WHERE id = ?")
      .pluck()
      .get(KEY + 1) as Buffer;
    writer.unsafeMode(true); // lifts SQLite's defensive mode, which keeps shadow tables read-only
    writer.prepare("UPDATE t_docsize SET sz = ? WHERE id = ?").run(Buffer.from([2, 40, 3]), KEY + 1);
    try {
      assert.deepEqual(scored(reader, '"alpha"'), before);
      const fresh = new Database(file, { readonly: true });
      loadStoreExtension(fresh);
      try {
        const other = scored(fresh, '"alpha"');
        assert.notEqual(other[0]![1], before[0]![1], "a new connection reads row 1's new length");
        assert.deepEqual(other.slice(1), before.slice(1));
      } finally {
        fresh.close();
      }
    } finally {
      writer.prepare("UPDATE t_docsize SET sz = ? WHERE id = ?").run(sz, KEY + 1);
      writer.unsafeMode(false);
    }
  });

  it("forgets the lengths when another connection changes the index", () => {
    assert.deepEqual(scored(reader, '"alpha"'), reference(reader, '"alpha"'));
    // Row 1 rewritten longer, row 3 deleted, a row added: every score must follow at once.
    writer.transaction(() => {
      writer.prepare("DELETE FROM t WHERE rowid = ?").run(KEY + 1);
      insert.run(
        KEY + 1,
        "alpha beta",
        "alpha gamma alpha delta and a much longer body of many words",
        "news",
      );
      writer.prepare("DELETE FROM t WHERE rowid = ?").run(KEY + 3);
      insert.run(KEY + 7, "alpha", "short", "blog");
    })();
    const after = scored(reader, '"alpha"');
    assert.deepEqual(after, reference(reader, '"alpha"'));
    assert.deepEqual(
      after.map(([id]) => id),
      [1, 2, 5, 6, 7].map((n) => KEY + n),
    );
    // A row's length changed alone (same tokens, one more): still followed.
    writer.transaction(() => {
      writer.prepare("DELETE FROM t WHERE rowid = ?").run(KEY + 6);
      insert.run(KEY + 6, "delta", "epsilon zeta alpha beta gamma gamma", "blog");
    })();
    assert.deepEqual(scored(reader, '"alpha"'), reference(reader, '"alpha"'));
  });

  it("loads every row's length at once (a warm-up), giving the same scores, and forgets them as well", () => {
    const lengths = (db: Database.Database) =>
      db.prepare("SELECT sampled_bm25_lengths('t_docsize', 3)").pluck().get() as number;
    const fresh = new Database(file, { readonly: true });
    loadStoreExtension(fresh);
    try {
      const rowsNow = writer.prepare("SELECT count(*) FROM t_docsize").pluck().get() as number;
      assert.equal(lengths(fresh), rowsNow);
      for (const match of ['"alpha"', '"gamma" OR "zeta"', '"alpha beta"']) {
        assert.deepEqual(scored(fresh, match), reference(fresh, match), match);
      }
      // Lengths loaded, then the index changed: the next statement reads them again.
      writer.transaction(() => {
        writer.prepare("DELETE FROM t WHERE rowid = ?").run(KEY + 2);
        insert.run(KEY + 2, "beta alpha", "gamma gamma gamma and more words than before", "alpha news");
      })();
      assert.deepEqual(scored(fresh, '"alpha"'), reference(fresh, '"alpha"'));
      // Not a docsize table, or no columns: nothing is loaded.
      assert.equal(fresh.prepare("SELECT sampled_bm25_lengths('t_data', 3)").pluck().get(), 0);
      assert.equal(fresh.prepare("SELECT sampled_bm25_lengths('t_docsize', 0)").pluck().get(), 0);
    } finally {
      fresh.close();
    }
  });
});

describe("sampled_bm25's loaded row lengths, looked up in rowid order", () => {
  // Thousands of rows with gaps as wide as the store's date keys', so that a lookup gallops and
  // halves both ways; the hits of a statement are scored in ascending, descending and any order.
  const db = new Database(":memory:");
  loadStoreExtension(db);
  db.exec("CREATE VIRTUAL TABLE t USING fts5 (title, body, feed_name, tokenize = 'ascii')");
  const insert = db.prepare("INSERT INTO t (rowid, title, body, feed_name) VALUES (?, ?, ?, ?)");
  let seed = 7;
  const next = () => {
    seed = (seed * 48_271) % 2_147_483_647;
    return seed / 2_147_483_647;
  };
  const words = ["alpha", "beta", "gamma", "delta", "epsilon"];
  const text = (n: number) =>
    Array.from({ length: n }, () => words[Math.floor(next() * words.length)]).join(" ");
  const ROWS = 5000;
  let key = 115_865_593_020_416;
  for (let i = 0; i < ROWS; i++) {
    key += 1 + Math.floor(next() * (i % 100 === 0 ? 50_000_000 : 600_000));
    insert.run(key, text(1 + Math.floor(next() * 4)), text(1 + Math.floor(next() * 30)), text(1));
  }
  after(() => db.close());

  const score = "sampled_bm25(t, 't_docsize', 4.0, 1.0, 2.0, NULL";
  const scored = (match: string, phrases: number, order: string, where = "") =>
    db
      .prepare(
        `SELECT rowid, ${score}${", NULL".repeat(phrases)}) FROM t WHERE t MATCH ? ${where} ORDER BY ${order}`,
      )
      .raw()
      .all(match) as Array<[number, number]>;

  it("scores every hit with the length loaded for it, in any order", () => {
    assert.equal(db.prepare("SELECT sampled_bm25_lengths('t_docsize', 3)").pluck().get(), ROWS);
    const cases = [
      ['"alpha"', 1],
      ['"alpha" AND "epsilon"', 2],
      ['"beta gamma"', 1],
      ['"delta" NOT "alpha"', 2],
    ] as const;
    const expected = cases.map(([match]) =>
      db
        .prepare("SELECT rowid, -bm25(t, 4.0, 1.0, 2.0) FROM t WHERE t MATCH ? ORDER BY rowid")
        .raw()
        .all(match),
    );
    // Every row's stored length rewritten behind the index's back (its structure record stays):
    // a score read from the table now would differ, so equal scores were read from the loaded ones.
    db.unsafeMode(true);
    db.prepare("UPDATE t_docsize SET sz = ?").run(Buffer.from([90, 90, 90]));
    db.unsafeMode(false);
    let compared = 0;
    for (const [i, [match, phrases]] of cases.entries()) {
      const want = expected[i] as Array<[number, number]>;
      assert.ok(want.length > 100, match);
      assert.deepEqual(scored(match, phrases, "rowid"), want, `${match} ascending`);
      assert.deepEqual(scored(match, phrases, "rowid DESC"), [...want].reverse(), `${match} descending`);
      // Some hits by rowid, in no order: a seek per key, each lookup starting where the last ended.
      const some = want.filter(() => next() < 0.2).sort(() => next() - 0.5);
      const byKey = new Map(
        scored(match, phrases, "rowid", `AND rowid IN (${some.map(([k]) => k).join(",")})`),
      );
      assert.deepEqual(new Map(some), byKey, `${match} by key`);
      compared += want.length + some.length;
    }
    assert.ok(compared > 2000, `${compared} scores compared`);
  });
});
