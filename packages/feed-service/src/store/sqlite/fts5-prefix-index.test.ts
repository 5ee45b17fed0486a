/**
 * Schema 17: the full-text index gains a prefix index of 3 characters, declared on the table and
 * filled from the posts, on a database whose index had none; prefix searches find the same posts
 * before and after.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import Database from "better-sqlite3";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { sqliteBackend } from "../../test-support/test-backends.js";
import { storeTitledPosts, titlesFound } from "../../test-support/titled-posts.js";
import { openStore } from "../open-store.js";
import { withPrefixIndex } from "./fts5-prefix-index.js";
import { fillIndexByKey } from "./sqlite-date-key-migration.js";
import { sqliteMigrations } from "./sqlite-migrations.js";

const titles = ["Theory of everything", "The end", "Other things", "Thermal paste"];

function declaration(db: Database.Database): string {
  return (db.prepare("SELECT sql FROM sqlite_master WHERE name = 'posts_fts'").get() as { sql: string }).sql;
}

describe("prefix index migration (SQLite 17)", () => {
  it("adds prefix = '3' to the declaration once", () => {
    const plain = "CREATE VIRTUAL TABLE posts_fts USING fts5 (title, body, content = '')";
    const added = withPrefixIndex(plain);
    assert.equal(
      added,
      "CREATE VIRTUAL TABLE posts_fts USING fts5 ( prefix = '3', title, body, content = '')",
    );
    assert.equal(withPrefixIndex(added), added);
  });

  it("rebuilds an index without one, and prefix searches find the same posts", async () => {
    const db = await sqliteBackend.newDatabase();
    try {
      const store = await openStore(db.location);
      await storeTitledPosts(store, titles);
      const found = (terms: string) => titlesFound(store, terms);
      const expected = ["Theory of everything", "The end", "Thermal paste"];
      assert.deepEqual(await found("the*"), expected);
      await store.close();

      const raw = new Database(db.location);
      assert.match(declaration(raw), /prefix = '3'/, "a new database has the prefix index");
      // Back to version 16 as schema 14 left it before it declared the prefix index itself: the
      // same table (rows keyed by date key, with the language column) without `prefix`.
      const steps: Array<[string, number, number]> = [];
      const plain = declaration(raw).replace(/prefix\s*=\s*'3'\s*,\s*/u, "");
      assert.notEqual(plain, declaration(raw));
      raw.transaction(() => {
        raw.exec(`DROP TABLE posts_fts; ${plain}`);
        fillIndexByKey(raw, () => {});
      })();
      assert.doesNotMatch(declaration(raw), /prefix/);
      raw.transaction(() =>
        sqliteMigrations.find((m) => m.version === 17)!.up(raw, (...s) => steps.push(s)),
      )();
      assert.match(declaration(raw), /prefix = '3'/);
      assert.deepEqual(steps.at(-1)?.slice(1), [titles.length, titles.length]);
      raw.close();

      const again = await openStore(db.location);
      try {
        const after = await again.searchPosts({
          limit: 10,
          offset: 0,
          languageIds: null,
          query: parseSearchQuery("the*"),
          sort: "relevance",
        });
        assert.deepEqual(after.map((p) => p.postTitle).sort(), [...expected].sort());
        const four = await again.searchPosts({
          limit: 10,
          offset: 0,
          languageIds: null,
          query: parseSearchQuery("therm*"),
          sort: "date",
        });
        assert.deepEqual(
          four.map((p) => p.postTitle),
          ["Thermal paste"],
        );
        // The rebuilt rows keep the language column: a language filter in the MATCH still holds.
        const inLanguage = async (languageIds: number[]) =>
          (
            await again.searchPosts({
              limit: 10,
              offset: 0,
              languageIds,
              query: parseSearchQuery("the*"),
              sort: "date",
            })
          ).map((p) => p.postTitle);
        assert.deepEqual(await inLanguage([1]), expected);
        assert.deepEqual(await inLanguage([2]), []);
      } finally {
        await again.close();
      }
    } finally {
      db.drop();
    }
  });
});
