// The id blocks' copy that a query thread keeps: reused across writes of other tables (a recorded
// search), reread when the blocks change (a post moved to an older date widens its block).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import Database from "better-sqlite3";
import { loadDemoData } from "../../demo/load-demo-data.js";
import { openSqliteReader, StatementCache } from "./sqlite-connection.js";
import { loadBlocks } from "./sqlite-id-blocks.js";
import { openSqliteStore, type SqliteStore } from "./sqlite-store.js";

describe("SQLite id blocks as a reader keeps them", () => {
  const dir = mkdtempSync(join(tmpdir(), "id-blocks-"));
  const path = join(dir, "feeds.db");
  let store: SqliteStore;
  let reader: Database.Database;
  before(async () => {
    store = openSqliteStore(path);
    await loadDemoData(store, { posts: 3000, now: Date.parse("2026-01-10T12:00:00Z") });
    reader = openSqliteReader(path);
  });
  after(async () => {
    reader.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("keeps its copy across writes of other tables and rereads it when a block's bounds widen", async () => {
    const stmts = new StatementCache(reader);
    const first = loadBlocks(stmts);
    assert.equal(first.block.length, 3, "3,000 posts in blocks of 1,024 ids");
    assert.equal(loadBlocks(stmts), first, "nothing written: the same copy");
    await store.recordSearch("blocks", Date.now());
    assert.equal(loadBlocks(stmts), first, "a recorded search leaves the blocks as they were");

    const writer = new Database(path);
    try {
      const { id, date } = writer
        .prepare("SELECT id, post_date AS date FROM posts WHERE id >> 10 = 1 ORDER BY post_date LIMIT 1")
        .get() as { id: number; date: number };
      writer.prepare("UPDATE posts SET post_date = ? WHERE id = ?").run(date - 86_400_000 * 365, id);
    } finally {
      writer.close();
    }
    const second = loadBlocks(stmts);
    assert.notEqual(second, first, "a widened block: read again");
    assert.equal(second.minDate[1], first.minDate[1]! - 86_400_000 * 365);
    assert.deepEqual(second.maxDate, first.maxDate);
    assert.equal(loadBlocks(stmts), second);
  });
});
