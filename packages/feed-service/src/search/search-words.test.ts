/**
 * Checks `searchWords` against SQLite's own unicode61 tokenizer (remove_diacritics 2), character by
 * character, over the scripts feeds are written in, so that a non-SQLite backend splits and folds
 * words exactly as the SQLite index does.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import Database from "better-sqlite3";
import { searchWords } from "./search-words.js";

/** Code points where SQLite's Unicode 6.1 tables differ from today's Unicode; not worth emulating. */
const knownDifferences = new Set([0x19b, 0x230, 0x231, 0x37f, 0x3f3, 0x605, 0x61c, 0x61d, 0x1e9b]);

const ranges: Array<[number, number, string]> = [
  [0x20, 0x250, "Basic Latin to Latin Extended-B"],
  [0x300, 0x370, "combining diacritics"],
  [0x370, 0x528, "Greek and Cyrillic"],
  [0x590, 0x700, "Hebrew and Arabic"],
  [0x1e00, 0x1f00, "Latin Extended Additional"],
  [0x3040, 0x3100, "Hiragana and Katakana"],
  [0x4e00, 0x4f00, "CJK ideographs (first block)"],
  [0xac00, 0xad00, "Hangul syllables (first block)"],
  [0xff00, 0xff60, "fullwidth forms"],
];

describe("searchWords", () => {
  it("splits and folds like SQLite's unicode61 tokenizer, character by character", () => {
    const db = new Database(":memory:");
    db.exec(`CREATE VIRTUAL TABLE t USING fts5 (a, tokenize = 'unicode61 remove_diacritics 2');
      CREATE VIRTUAL TABLE v USING fts5vocab (t, 'instance');`);
    const samples: Array<{ cp: number; text: string; range: string }> = [];
    for (const [lo, hi, range] of ranges) {
      for (let cp = lo; cp < hi; cp++) {
        const ch = String.fromCodePoint(cp);
        if (!/\p{Assigned}/u.test(ch) || knownDifferences.has(cp)) continue;
        // The character inside a word, alone, and next to its upper case.
        samples.push({ cp, text: `x${ch}y ${ch}${ch.toUpperCase()}`, range });
      }
    }
    const insert = db.prepare("INSERT INTO t (rowid, a) VALUES (?, ?)");
    db.transaction(() => {
      for (const [i, s] of samples.entries()) insert.run(i + 1, s.text);
    })();
    const bySample = new Map<number, string[]>();
    for (const row of db.prepare("SELECT doc, term FROM v ORDER BY doc, offset").all() as Array<{
      doc: number;
      term: string;
    }>) {
      const list = bySample.get(row.doc) ?? [];
      list.push(row.term);
      bySample.set(row.doc, list);
    }
    const mismatches = samples.flatMap((s, i) => {
      const sqlite = bySample.get(i + 1) ?? [];
      const ours = searchWords(s.text);
      return JSON.stringify(sqlite) === JSON.stringify(ours)
        ? []
        : [
            `U+${s.cp.toString(16)} (${s.range}): sqlite ${JSON.stringify(sqlite)}, ours ${JSON.stringify(ours)}`,
          ];
    });
    db.close();
    assert.ok(samples.length > 1500);
    assert.deepEqual(mismatches, []);
  });

  it("gives the words of ordinary text", () => {
    assert.deepEqual(searchWords("Crème brûlée, C++ & Node.js — São Paulo 2026"), [
      "creme",
      "brulee",
      "c",
      "node",
      "js",
      "sao",
      "paulo",
      "2026",
    ]);
    assert.deepEqual(searchWords("İstanbul ǅemal ẞtraße"), ["istanbul", "ǆemal", "ßtraße"]);
    assert.deepEqual(searchWords("e\u0301te\u0301"), ["ete"], "decomposed accents fold too");
    assert.deepEqual(searchWords("  ...  "), []);
  });
});
