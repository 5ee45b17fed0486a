/**
 * Warming a SQLite file at start: it reads the file and its WAL through, or says why it did not;
 * and the query threads' warm-up searches for a word no post holds (no particular word's data).
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { loadDemoData } from "../../demo/load-demo-data.js";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { absentWord } from "../cache-warm.js";
import { openSqliteStore } from "./sqlite-store.js";
import { warmSqliteFile } from "./sqlite-warm.js";

const folder = mkdtempSync(join(tmpdir(), "feed-warm-"));
after(() => rmSync(folder, { recursive: true, force: true }));

test("reads the database file and its WAL through, with progress up to the total", async () => {
  const file = join(folder, "feeds.db");
  writeFileSync(file, randomBytes(3 * 2 ** 20 + 123));
  writeFileSync(`${file}-wal`, randomBytes(100_000));
  const calls: Array<[number, number]> = [];
  const report = await warmSqliteFile(file, (done, total) => calls.push([done, total]), 2 ** 30);
  const total = 3 * 2 ** 20 + 123 + 100_000;
  assert.equal(report.bytes, total);
  assert.equal(report.skipped, undefined);
  assert.ok(calls.length >= 4, `progress came ${calls.length} times`);
  assert.deepEqual(calls.at(-1), [total, total]);
  for (let i = 1; i < calls.length; i++) assert.ok(calls[i]![0] > calls[i - 1]![0], "progress only grows");
});

test("a database without a WAL file is read all the same", async () => {
  const file = join(folder, "no-wal.db");
  writeFileSync(file, randomBytes(4096));
  assert.deepEqual(await warmSqliteFile(file, undefined, 2 ** 30), { bytes: 4096 });
});

test("a file larger than half the memory available is not read, and the report says why", async () => {
  const file = join(folder, "big.db");
  writeFileSync(file, randomBytes(3 * 2 ** 20));
  let progress = 0;
  const report = await warmSqliteFile(file, () => progress++, 4 * 2 ** 20);
  assert.equal(report.bytes, 0);
  assert.equal(progress, 0);
  assert.equal(report.skipped, "the database (3 MB) is larger than half the memory available (4 MB)");
});

test("the warm-ups' search word is a valid query that no post holds, new at every start", async () => {
  const store = openSqliteStore(":memory:");
  try {
    await loadDemoData(store, { posts: 2000, now: Date.UTC(2026, 0, 10) });
    const words = new Set(Array.from({ length: 50 }, () => absentWord()));
    assert.equal(words.size, 50, "a new word each time");
    for (const word of words) {
      assert.match(word, /^[a-z]{24}$/);
      assert.equal(parseSearchQuery(word).clauses.length, 1, word);
      const found = await store.searchPosts({
        query: parseSearchQuery(word),
        sort: "relevance",
        limit: 10,
        offset: 0,
        languageIds: null,
      });
      assert.deepEqual(found, [], word);
    }
    // The same search for a word posts do hold finds them: the empty answers above are the word's.
    const common = await store.searchPosts({
      query: parseSearchQuery("the"),
      sort: "relevance",
      limit: 10,
      offset: 0,
      languageIds: null,
    });
    assert.equal(common.length, 10);
  } finally {
    await store.close();
  }
});
