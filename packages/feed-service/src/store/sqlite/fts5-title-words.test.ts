/**
 * Schema 28: posts_fts and the clicked posts' index get the title_words column, built from the
 * posts on a database whose indexes had none (as schema 26 left them) and built afresh when the
 * migration runs again; `title:` finds and ranks the same posts through it as through the title
 * column's filter, and the scores leave the column out.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import Database from "better-sqlite3";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { incoming, T0 } from "../../test-support/store-contract/contract-fixture.js";
import { sqliteBackend } from "../../test-support/test-backends.js";
import type { SearchSort, Store } from "../store.js";
import { FTS5_TEXT_COLUMNS } from "./fts5-index-row.js";
import { CLICKED_FTS } from "./sqlite-clicked-index.js";
import { forEachIndexRowByKey } from "./sqlite-date-key-migration.js";
import { migrateSqlite } from "./sqlite-migrations.js";

const posts: Array<[title: string, content: string]> = [
  ["The end", "nothing more"],
  ["Other things", "the body says the and the"],
  ["Theory of the world", "the whole of it"],
  ["北京的天气", "晴天 the"],
  ["The end of the theory", "short"],
  ["Paste", "thermal the end"],
];

const queries = [
  "title:the",
  'title:"the end"',
  "title:the end",
  "title:北京",
  "title:the* the",
  "-title:the the",
];

/** Every query's page under every sort: ids and scores. */
async function pages(store: Store): Promise<string[]> {
  const out: string[] = [];
  for (const terms of queries) {
    for (const sort of ["relevance", "date", "clicks"] as SearchSort[]) {
      const found = await store.searchPosts({
        limit: 10,
        offset: 0,
        languageIds: null,
        query: parseSearchQuery(terms),
        sort,
      });
      out.push(`${terms} ${sort}: ${found.map((p) => `${p.postTitle}=${p.score}`).join(", ")}`);
    }
  }
  return out;
}

function declarations(db: Database.Database): string[] {
  return db
    .prepare("SELECT sql FROM sqlite_master WHERE name IN ('posts_fts', ?) ORDER BY name")
    .pluck()
    .all(CLICKED_FTS) as string[];
}

describe("title words migration (SQLite 28)", () => {
  it("builds both indexes anew with title words, and `title:` finds and ranks as before", async () => {
    const db = await sqliteBackend.newDatabase();
    try {
      const { openStore } = await import("../open-store.js");
      const store = await openStore(db.location);
      const { feedId } = await store.addFeed({ feedUrl: "https://feeds.test/a", feedName: "Notes" });
      await store.applyFeedUpdate(feedId, {
        fetchState: {},
        posts: posts.map(([title, content], i) =>
          incoming(`p${i}`, {
            title,
            excerpt: "",
            content: `<p>${content}</p>`,
            publishedAt: T0 - i * 60_000,
          }),
        ),
      });
      const ids = (await store.recentPosts({ limit: 10, offset: 0, languageIds: null })).map((p) => p.postId);
      for (const [i, id] of ids.entries()) {
        for (let k = 0; k <= i % 3; k++) await store.insertClick(id, `c${i}-${k}`, T0);
      }
      const expected = await pages(store);
      assert.match(expected[0]!, /The end=.*Theory of the world=/u);
      assert.doesNotMatch(expected[0]!, /Other things|Paste/u, "body words are not titles");
      await store.close();

      // Back to version 27 as schema 26 left both indexes: the text's columns only.
      const raw = new Database(db.location);
      const old = declarations(raw).map((sql) => sql.replace(/,\s*title_words/u, ""));
      assert.equal(old.length, 2);
      assert.ok(declarations(raw).every((sql) => sql.includes("title_words")));
      raw.transaction(() => {
        raw.exec(`DROP TABLE posts_fts; DROP TABLE ${CLICKED_FTS}; ${old.join("; ")}`);
        const insert = raw.prepare(
          `INSERT INTO posts_fts (rowid, ${FTS5_TEXT_COLUMNS}) VALUES (?, ?, ?, ?, ?)`,
        );
        forEachIndexRowByKey(
          raw,
          "",
          () => {},
          (row) => insert.run(...row.slice(0, 5)),
        );
        raw.exec("DELETE FROM schema_migrations WHERE version >= 28");
      })();
      assert.ok(declarations(raw).every((sql) => !sql.includes("title_words")));
      const steps: string[] = [];
      migrateSqlite(raw, undefined, (step) => steps.push(step));
      assert.ok(steps.some((s) => s.includes("schema 28")));
      assert.ok(declarations(raw).every((sql) => sql.includes("title_words")));
      // Run again (put back once more), it builds them afresh, to the same rows.
      const rows = () => raw.prepare("SELECT id, hex(sz) FROM posts_fts_docsize ORDER BY id").raw().all();
      const before = rows();
      raw.exec("DELETE FROM schema_migrations WHERE version >= 28");
      migrateSqlite(raw, undefined, () => {});
      assert.deepEqual(rows(), before);
      raw.close();

      const again = await openStore(db.location);
      try {
        assert.deepEqual(await pages(again), expected);
      } finally {
        await again.close();
      }
    } finally {
      db.drop();
    }
  });
});
