/**
 * Several processes writing one SQLite file at once (WAL, busy timeout, IMMEDIATE transactions):
 * no write fails, and every denormalised counter (post clicks, language posts and clicks, feed
 * post counts) still equals what the rows say.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import { loadDemoData } from "../../demo/load-demo-data.js";
import { openStore } from "../open-store.js";

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), "feed-concurrency-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const writer = fileURLToPath(new URL("../../test-support/sqlite-concurrent-writer.ts", import.meta.url));

const opener = fileURLToPath(new URL("../../test-support/sqlite-open-new.ts", import.meta.url));

describe("sqlite store across processes", () => {
  it("opens a new database that three processes create at once (serve --workers on a new file)", async () => {
    // The switch of a new file to WAL can meet another process's lock where SQLite does not wait:
    // each round races three first opens; every one must succeed.
    for (let round = 0; round < 12; round++) {
      const path = join(dir, `new-${round}.db`);
      const outcomes = await Promise.allSettled(
        [0, 1, 2].map(() => run(process.execPath, ["--conditions=source", "--import", "tsx", opener, path])),
      );
      for (const o of outcomes)
        assert.equal(o.status, "fulfilled", o.status === "rejected" ? String(o.reason) : "");
    }
  });

  it("keeps every counter exact while three processes write at once", async () => {
    const path = join(dir, "shared.db");
    const store = await openStore(path);
    await loadDemoData(store, { posts: 300, now: Date.UTC(2026, 0, 10) });
    await store.close();

    const rounds = 150;
    const outputs = await Promise.all(
      ["a", "b", "c"].map((name) =>
        run(process.execPath, ["--conditions=source", "--import", "tsx", writer, path, name, String(rounds)]),
      ),
    );
    const summaries = outputs.map((o) => JSON.parse(o.stdout) as { clicks: number; inserted: number });
    assert.deepEqual(
      summaries.map((s) => s.inserted),
      [15, 15, 15],
    );

    const db = new Database(path, { readonly: true });
    const one = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    const clickRows = one("SELECT count(*) AS n FROM clicks");
    assert.equal(one("SELECT sum(clicks) AS n FROM posts"), clickRows, "post click counters");
    assert.equal(one("SELECT sum(clicks) AS n FROM languages"), clickRows, "language click counters");
    assert.equal(one("SELECT sum(post_count) AS n FROM languages"), one("SELECT count(*) AS n FROM posts"));
    assert.equal(one("SELECT sum(post_count) AS n FROM feeds"), one("SELECT count(*) AS n FROM posts"));
    assert.equal(one("SELECT count(*) AS n FROM posts WHERE title LIKE 'Concurrent %'"), 45);
    assert.equal(one("SELECT count(*) AS n FROM clicks WHERE client_hash GLOB '[abc]-*'"), 3 * rounds);
    db.close();
  });
});
