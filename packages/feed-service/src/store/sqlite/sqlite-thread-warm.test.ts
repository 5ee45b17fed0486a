/**
 * A heavy query thread's warm-up (sqlite-thread-warm.ts, sqlite-index-warm.ts): each search form
 * runs on a store with posts and finds nothing (no particular word's data: spec §4 Latency), the
 * forms cover the operator plans, and the indexes it reads are walked whole through those indexes.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import Database from "better-sqlite3";
import { loadDemoData } from "../../demo/load-demo-data.js";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { isFilter, type SearchQuery, usesOperators } from "../../search/search-query.js";
import { forcedCollections } from "../../test-support/forced-collections.js";
import { absentWord } from "../cache-warm.js";
import { StatementCache } from "./sqlite-connection.js";
import { readSearchIndexes, SEARCH_INDEX_WALKS } from "./sqlite-index-warm.js";
import { openSqliteStore, type SqliteStore } from "./sqlite-store.js";
import { warmHeavyThread, warmQueryThread, warmSearchTexts } from "./sqlite-thread-warm.js";

const folder = mkdtempSync(join(tmpdir(), "feed-thread-warm-"));
const file = join(folder, "feeds.db");
let store: SqliteStore;

before(async () => {
  store = openSqliteStore(file);
  await loadDemoData(store, { posts: 3000, now: Date.UTC(2026, 0, 10) });
});
after(async () => {
  await store.close();
  rmSync(folder, { recursive: true, force: true });
});

test("the search indexes are walked whole, each through its own index", () => {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const named = ["posts_sort_keys", "posts_by_date_key", "posts_clicked_by_key"];
    assert.equal(SEARCH_INDEX_WALKS.length, named.length);
    for (const [i, walk] of SEARCH_INDEX_WALKS.entries()) {
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${walk}`).all() as Array<{ detail: string }>)
        .map((row) => row.detail)
        .join("; ");
      assert.match(plan, new RegExp(`USING COVERING INDEX ${named[i]}\\b`), walk);
    }
    const keyed = db
      .prepare("SELECT count(*) FROM posts NOT INDEXED WHERE date_key IS NOT NULL")
      .pluck()
      .get();
    const clicked = db.prepare("SELECT count(*) FROM posts NOT INDEXED WHERE clicks > 0").pluck().get();
    const posts = db.prepare("SELECT count(*) FROM posts NOT INDEXED").pluck().get();
    assert.ok((clicked as number) > 100, `the demo's clicked posts: ${clicked}`);
    assert.equal(
      readSearchIndexes(new StatementCache(db)),
      (posts as number) + (keyed as number) + (clicked as number),
    );
  } finally {
    db.close();
  }
});

test("the warm-up's search forms cover the operator plans on words no post or feed holds", () => {
  const word = absentWord();
  const other = absentWord();
  const queries = warmSearchTexts(word, other).map((text) => parseSearchQuery(text));
  const atoms = (q: SearchQuery) => [...q.clauses.flat(), ...(q.filterClauses ?? []).flat()];
  const kinds = new Set(
    queries.flatMap((q) => [
      ...atoms(q).map((a) =>
        isFilter(a)
          ? a.kind
          : a.prefix
            ? "prefix"
            : a.titleOnly
              ? "title"
              : a.words.length > 1
                ? "phrase"
                : "word",
      ),
      ...(q.excluded.length > 0 ? ["excluded"] : []),
    ]),
  );
  assert.deepEqual([...kinds].sort(), ["date", "excluded", "feed", "phrase", "prefix", "title", "word"]);
  assert.ok(queries.filter(usesOperators).length >= 4);
  for (const q of queries) {
    assert.ok(q.clauses.length + (q.filterClauses?.length ?? 0) > 0, "every form has a positive clause");
    for (const a of atoms(q)) {
      if (!isFilter(a))
        assert.ok(
          a.words.every((w) => w === word || w === other),
          `only the two words: ${a.words}`,
        );
    }
  }
});

test("the warm-up runs every form in every sort on a store with posts, and each finds nothing", async () => {
  const found: number[] = [];
  const searchPosts = store.searchPosts.bind(store);
  store.searchPosts = async (page) => {
    const rows = await searchPosts(page);
    found.push(rows.length);
    return rows;
  };
  const word = absentWord();
  try {
    await warmHeavyThread(store, word, absentWord());
  } finally {
    delete (store as Partial<SqliteStore>).searchPosts;
  }
  assert.equal(found.length, warmSearchTexts(word, "x").length * 6);
  assert.deepEqual(
    found.filter((n) => n > 0),
    [],
  );
  // The same forms on a word the posts hold do find posts: the empty answers above are the words'.
  const common = await store.searchPosts({
    query: parseSearchQuery(warmSearchTexts("the", absentWord()).at(-1)!),
    sort: "date",
    limit: 10,
    offset: 0,
    languageIds: null,
  });
  assert.equal(common.length, 10);
});

test("a query thread's warm-up, light or heavy, ends with one full collection of its heap", async () => {
  for (const heavy of [false, true]) {
    assert.equal(await forcedCollections(() => warmQueryThread(store, heavy)), 1, `heavy: ${heavy}`);
  }
});
