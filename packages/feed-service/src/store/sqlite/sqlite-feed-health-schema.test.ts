/**
 * The feed health migration on a database that older versions wrote: a failing feed's
 * `<stage>: <message>` becomes its stage and message with the failure's time, a healthy feed's
 * last fetch becomes its last success, and the store reads them back.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import Database from "better-sqlite3";
import { addFeedHealthColumns } from "./sqlite-feed-health-schema.js";
import { migrateSqlite, sqliteMigrations } from "./sqlite-migrations.js";

test("older feed rows get their last success, and their last error's time and stage", () => {
  const version = sqliteMigrations.find((m) => m.up === addFeedHealthColumns)!.version;
  const db = new Database(":memory:");
  try {
    migrateSqlite(db, version - 1);
    const insert = db.prepare(
      "INSERT INTO feeds (url, name, name_key, language_id, last_fetched_at, error_count, last_error) VALUES (?, ?, ?, 1, ?, ?, ?)",
    );
    insert.run("https://a.example/feed", "A", "a", 1000, 2, "fetch: The server answered HTTP 500.");
    insert.run("https://b.example/feed", "B", "b", 2000, 0, null);
    insert.run("https://c.example/feed", "C", "c", 3000, 1, "Something without a stage.");
    migrateSqlite(db, version);
    const rows = db
      .prepare(
        "SELECT name, last_success_at, last_error_at, last_error_stage, last_error_code, last_error, error_count FROM feeds ORDER BY name",
      )
      .raw()
      .all();
    assert.deepEqual(rows, [
      ["A", null, 1000, "fetch", null, "The server answered HTTP 500.", 2],
      ["B", 2000, null, null, null, null, 0],
      ["C", null, null, null, null, "Something without a stage.", 1],
    ]);
  } finally {
    db.close();
  }
});
