/**
 * A paused feed (spec §5.5, the admin store's `setFeedPaused`) is fetched by no ingest path: not a
 * pass over due feeds, not `--all`, not the background scheduler; and a refresh already running
 * when the feed is paused leaves the pause and its next check as the pause set them. On SQLite and
 * PostgreSQL, against a local server that counts every request.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { pausedUntil } from "../store/admin-fields.js";
import { openStore } from "../store/open-store.js";
import { postgresBackend, sqliteBackend, type TestBackend } from "../test-support/test-backends.js";
import { runIngestPass } from "./ingest-pass.js";
import { IngestScheduler } from "./ingest-scheduler.js";

const rss = (title: string) =>
  `<rss version="2.0"><channel><title>${title}</title><item><title>A</title><guid>a</guid></item></channel></rss>`;

const requests = new Map<string, number>();
/** Paths whose answer waits until the test lets it go; `arrived` says the request is in. */
const held = new Map<string, { arrived: () => void; release: Promise<void> }>();
let server: Server;
let base: string;

before(async () => {
  server = createServer(async (req, res) => {
    const path = req.url ?? "/";
    requests.set(path, (requests.get(path) ?? 0) + 1);
    const hold = held.get(path);
    if (hold) {
      hold.arrived();
      await hold.release;
    }
    res.writeHead(200, { "content-type": "application/rss+xml" }).end(rss(path));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

const count = (path: string) => requests.get(path) ?? 0;
const backends: TestBackend[] = [sqliteBackend, postgresBackend()];
after(() => Promise.all(backends.map((b) => b.stop())));

for (const backend of backends) {
  describe(`paused feeds and ingest (${backend.name})`, () => {
    it("no pass fetches a paused feed: due, --all or the scheduler; resuming brings it back", async () => {
      const db = await backend.newDatabase();
      const store = await openStore(db.location);
      try {
        const paused = await store.addFeed({ feedUrl: `${base}/${backend.name}/paused`, feedName: "P" });
        const running = await store.addFeed({ feedUrl: `${base}/${backend.name}/running`, feedName: "R" });
        await store.admin.setFeedPaused("test", paused.feedId, true, Date.now());
        const due = await runIngestPass(store, {});
        const all = await runIngestPass(store, { all: true });
        // The background scheduler passes over due feeds: the running one is made due again.
        await store.admin.refreshFeedNow("test", running.feedId, Date.now());
        const scheduler = new IngestScheduler(store, { tickMs: 60_000 });
        const background = await scheduler.runOnce();
        await scheduler.stop();
        assert.equal(due.feeds, 1);
        assert.equal(all.feeds, 1);
        assert.equal(background.feeds, 1);
        assert.equal(count(`/${backend.name}/paused`), 0, "the paused feed was never fetched");
        assert.equal(count(`/${backend.name}/running`), 3);
        assert.equal((await store.dueFeeds(Date.now(), { all: true })).length, 1);
        assert.equal((await store.feedById(paused.feedId))?.nextFetchAt, pausedUntil);
        assert.ok((await store.feedById(running.feedId))!.nextFetchAt < pausedUntil);

        await store.admin.setFeedPaused("test", paused.feedId, false, Date.now());
        const resumed = await runIngestPass(store, {});
        assert.equal(resumed.updated, 1);
        assert.equal(count(`/${backend.name}/paused`), 1);
      } finally {
        await store.close();
        db.drop();
      }
    });

    it("a refresh that ends after the feed was paused keeps the pause and its next check", async () => {
      const db = await backend.newDatabase();
      const store = await openStore(db.location);
      const path = `/${backend.name}/slow`;
      let arrived!: () => void;
      let release!: () => void;
      const inFlight = new Promise<void>((r) => {
        arrived = r;
      });
      held.set(path, { arrived, release: new Promise<void>((r) => (release = r)) });
      try {
        const feed = await store.addFeed({ feedUrl: `${base}${path}`, feedName: "Slow" });
        const pass = runIngestPass(store, {});
        await inFlight;
        await store.admin.setFeedPaused("test", feed.feedId, true, Date.now());
        release();
        const summary = await pass;
        assert.equal(summary.updated, 1, JSON.stringify(summary.failures));
        const after = await store.feedById(feed.feedId);
        assert.equal(
          after?.nextFetchAt,
          pausedUntil,
          "the refresh did not move the paused feed's next check",
        );
        assert.equal(after?.feedName, "Slow");
        assert.ok((await store.admin.pausedFeeds()).has(feed.feedId), "still paused");
        assert.equal((await runIngestPass(store, { all: true })).feeds, 0);
        assert.equal(count(path), 1);
      } finally {
        held.delete(path);
        await store.close();
        db.drop();
      }
    });
  });
}
