/**
 * The period tokens of the clicked posts' index (schema 32, sqlite-clicked-periods.ts) against
 * brute force: a range's tokens hold every day of the range exactly once and no day outside it,
 * at the ends of the days the keys allow and around the blocks' boundaries; the narrowing's two
 * forms (the range's tokens ANDed, a NOT of the days outside) keep exactly the range's posts.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import Database from "better-sqlite3";
import { coverTokens, periodNarrowing, periodTokens } from "./sqlite-clicked-periods.js";
import { SLOTS } from "./sqlite-date-keys.js";

const DAY_KEYS = 86_400 * SLOTS;
const OFFSET = 2 ** 20;
const TOP = 2 ** 21 - 1;

/** The date key of a post at second `second` of offset day `day`. */
const keyOf = (day: number, second = 0) => ((day - OFFSET) * 86_400 + second) * SLOTS + 7;

describe("SQLite clicked posts' index: period tokens", () => {
  it("gives each post one token per level, the same within a day and apart across days", () => {
    const day = OFFSET + 20_468;
    const tokens = periodTokens(keyOf(day)).split(" ");
    assert.equal(tokens.length, 11);
    assert.equal(new Set(tokens).size, 11);
    for (const token of tokens) assert.equal([...token].length, 2);
    assert.equal(periodTokens(keyOf(day, 86_399)), periodTokens(keyOf(day)));
    assert.notEqual(periodTokens(keyOf(day + 1)).split(" ")[0], tokens[0]);
    // Before 1970 too (negative keys), and at the clamped seconds' ends.
    assert.equal(periodTokens(keyOf(OFFSET - 1)).split(" ").length, 11);
    assert.equal(periodTokens(-(2 ** 36) * SLOTS).split(" ").length, 11);
    assert.equal(periodTokens((2 ** 36 - 1) * SLOTS + SLOTS - 1).split(" ").length, 11);
  });

  it("never gives two levels' blocks, or two blocks of a level, one token", () => {
    // A token's first character says its level and the block's high bits: one of each pair.
    const seen = new Map<number, string>();
    for (let level = 0; level < 11; level++) {
      for (let high = 0; high * 2 ** (12 + 2 * level) <= TOP; high++) {
        const day = high * 2 ** (12 + 2 * level);
        const first = periodTokens(keyOf(day)).split(" ")[level]!.codePointAt(0)!;
        assert.equal(seen.get(first), undefined, `level ${level} block ${high} against ${seen.get(first)}`);
        seen.set(first, `level ${level} block ${high}`);
      }
    }
    assert.ok(seen.size > 600);
  });

  it("covers every range of days exactly once, no day outside it", () => {
    const ends = new Set<number>();
    // Days around boundaries of several levels' blocks, and arbitrary ones.
    for (const base of [OFFSET, OFFSET + 20_480, OFFSET + 16_384 * 3, 0, TOP - 40]) {
      for (const d of [0, 1, 2, 3, 4, 5, 15, 16, 17, 63, 64, 65, 255, 256, 257]) {
        if (base + d >= 0 && base + d <= TOP) ends.add(base + d);
        if (base - d >= 0) ends.add(base - d);
      }
    }
    const days = [...ends].sort((a, b) => a - b);
    let ranges = 0;
    for (const from of days) {
      for (const to of days) {
        if (to < from || to - from > 1_200) continue;
        const cover = new Set(coverTokens(from, to));
        // Each level's blocks are at most 3 at either end, the top level's two.
        assert.ok(cover.size <= 2 * 3 * 10 + 2, `${from}-${to}: ${cover.size} tokens`);
        for (let day = Math.max(0, from - 70); day <= Math.min(TOP, to + 70); day++) {
          const held = periodTokens(keyOf(day))
            .split(" ")
            .filter((t) => cover.has(t)).length;
          assert.equal(held, day >= from && day <= to ? 1 : 0, `day ${day} in ${from}-${to}`);
        }
        ranges++;
      }
    }
    assert.ok(ranges > 1_000, `${ranges} ranges`);
    // The whole domain and one-sided ones.
    assert.equal(coverTokens(0, TOP).length, 2);
    for (const from of [1, OFFSET + 20_468, TOP]) {
      const cover = new Set(coverTokens(from, TOP));
      for (const day of [from - 1, from, from + 1, TOP]) {
        if (day > TOP) continue;
        const held = periodTokens(keyOf(day))
          .split(" ")
          .filter((t) => cover.has(t)).length;
        assert.equal(held, day >= from ? 1 : 0, `day ${day} from ${from}`);
      }
    }
  });

  it("narrows a MATCH to the posts of a range of day-bounded keys, in either form", () => {
    const db = new Database(":memory:");
    db.exec("CREATE VIRTUAL TABLE t USING fts5 (w, p, prefix = '3', tokenize = 'ascii')");
    const insert = db.prepare("INSERT INTO t (rowid, w, p) VALUES (?, ?, ?)");
    const first = OFFSET + 20_000;
    const keys: number[] = [];
    for (let i = 0; i < 3_000; i++) {
      // Posts on 600 days, several a day, at the days' first and last seconds among them.
      const key = keyOf(first + (i % 600), [0, 86_399, 3_600, 50_000, 86_398][i % 5]!);
      keys.push(key);
      insert.run(i + 1, i % 3 === 0 ? "x" : "the", periodTokens(key));
    }
    const posts = { low: Math.min(...keys), high: Math.max(...keys) };
    const hits = (match: string) =>
      db.prepare("SELECT rowid FROM t WHERE t MATCH ? ORDER BY rowid").pluck().all(match) as number[];
    const lowOf = (day: number) => (day - OFFSET) * DAY_KEYS;
    const EVERY = 2 ** 53 - 1;
    for (const [low, high] of [
      [lowOf(first + 10), lowOf(first + 11) - 1],
      [lowOf(first + 10), lowOf(first + 300) - 1],
      [lowOf(first + 10), EVERY],
      [-EVERY, lowOf(first + 599) - 1],
      [-EVERY, lowOf(first + 1) - 1],
      [lowOf(first - 50), lowOf(first + 5) - 1],
    ] as const) {
      const expected = keys.flatMap((k, i) => (k >= low && k <= high && i % 3 !== 0 ? [i + 1] : []));
      for (const share of [0, 1]) {
        const narrowing = periodNarrowing({ low, high }, posts, share)!;
        assert.ok(narrowing !== null);
        const match = narrowing.narrow('"the"');
        assert.deepEqual(hits(match), expected, `${low}-${high} share ${share}: ${match.length}`);
        assert.equal(match.includes(share === 0 ? " AND " : " NOT "), true);
      }
    }
    // A bound within a day: no tokens say it.
    assert.equal(periodNarrowing({ low: lowOf(first + 10) + 1, high: EVERY }, posts, 0.5), null);
    db.close();
  });
});
