/**
 * A pass given a stop signal (what serve's scheduler hands it when the process stops) ends at
 * once: fetches in flight and fetches still waiting for a slot are cut, no failure is recorded on
 * their feeds, and every claim of the pass is released, so another worker can take the feeds at
 * once; on SQLite and on a real PostgreSQL.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { openStore } from "../store/open-store.js";
import { postgresBackend, sqliteBackend } from "../test-support/test-backends.js";
import { runIngestPass } from "./ingest-pass.js";

let server: Server;
let base: string;
let requests = 0;
const postgres = postgresBackend();

before(async () => {
  // Takes every request and never answers: only a stop (or the fetch's own 30 s) ends them.
  server = createServer(() => {
    requests += 1;
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  server.closeAllConnections();
  server.close();
  await postgres.stop();
});

for (const backend of [sqliteBackend, postgres]) {
  test(`a stopped pass cuts its fetches, records nothing on the feeds and releases its claims (${backend.name})`, async () => {
    const database = await backend.newDatabase();
    const store = await openStore(database.location);
    try {
      // One host, one fetch at a time: the first feed's fetch hangs, the other two wait for a slot.
      for (const n of [1, 2, 3]) await store.addFeed({ feedUrl: `${base}/f/${n}`, feedName: `F${n}` });
      const stop = new AbortController();
      requests = 0;
      const pass = runIngestPass(store, { signal: stop.signal, perHost: 1, parseWorkers: 0 });
      while (requests === 0) await new Promise((r) => setTimeout(r, 10));
      stop.abort();
      const summary = await pass;
      assert.equal(summary.stopped, summary.feeds, JSON.stringify(summary));
      assert.ok(summary.feeds >= 1);
      assert.deepEqual([summary.failed, summary.updated], [0, 0]);
      assert.equal(requests, 1, "a fetch started after the stop");
      for (const feed of await store.adminFeeds()) {
        assert.equal(feed.errorCount, 0, feed.feedName);
        assert.equal(feed.lastErrorCode, null, feed.feedName);
      }
      const claimed = await store.claimDueFeeds(Date.now(), {
        worker: "another-host/1/test",
        leaseMs: 60_000,
        limit: 10,
        isAbandoned: () => false,
      });
      assert.equal(claimed.length, 3, "some claims of the stopped pass were kept");
    } finally {
      await store.close();
      database.drop();
    }
  });
}
