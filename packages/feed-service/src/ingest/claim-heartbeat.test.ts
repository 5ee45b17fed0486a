/**
 * The claim heartbeat with real workers: two schedulers, each with its own store connection (as
 * two processes would have), over one SQLite file and over a real PostgreSQL, and a feed served by
 * a local HTTP server that takes longer to answer than the claim's lease. The feed must be fetched
 * exactly once. Then a refresh whose claim another worker takes mid-fetch stops without storing.
 */
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { openStore } from "../store/open-store.js";
import type { Store } from "../store/store.js";
import { postgresBackend, sqliteBackend, type TestBackend } from "../test-support/test-backends.js";
import { runIngestPass } from "./ingest-pass.js";
import { IngestScheduler } from "./ingest-scheduler.js";

const LEASE_MS = 400;
/** Longer than two leases: without renewals another worker would take the feed meanwhile. */
const SLOW_MS = 3 * LEASE_MS;

let server: Server;
let base: string;
const fetches = new Map<string, number>();
let inFlight = 0;
let maxInFlight = 0;
/** Requests held open until a test answers them. */
const held: Array<{ req: IncomingMessage; res: ServerResponse }> = [];

const rss = `<rss version="2.0"><channel><title>Slow</title><language>en</language>
  <item><title>One</title><link>https://slow.example/1</link><guid>s1</guid></item>
  <item><title>Two</title><link>https://slow.example/2</link><guid>s2</guid></item></channel></rss>`;

before(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? "";
    fetches.set(path, (fetches.get(path) ?? 0) + 1);
    if (path.startsWith("/held/")) return void held.push({ req, res });
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    setTimeout(() => {
      inFlight--;
      res.writeHead(200, { "content-type": "application/rss+xml" }).end(rss);
    }, SLOW_MS);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

const backends: TestBackend[] = [sqliteBackend, postgresBackend()];
after(async () => {
  server.closeAllConnections();
  server.close();
  for (const backend of backends) await backend.stop();
});

async function until(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await sleep(20);
  }
}

for (const backend of backends) {
  describe(`claim heartbeat (${backend.name})`, () => {
    it("a feed slower than the lease is fetched exactly once by two workers", async () => {
      const db = await backend.newDatabase();
      const stores: Store[] = [await openStore(db.location), await openStore(db.location)];
      try {
        const path = `/slow/${backend.name}`;
        const feed = await stores[0]!.addFeed({ feedUrl: `${base}${path}`, feedName: "Slow" });
        fetches.delete(path);
        maxInFlight = 0;
        const schedulers = stores.map(
          (store) => new IngestScheduler(store, { tickMs: 25, claimLeaseMs: LEASE_MS, parseWorkers: 0 }),
        );
        for (const s of schedulers) s.start();
        await until(async () => (await stores[1]!.feedById(feed.feedId))!.postCount === 2, SLOW_MS * 10);
        // Two more leases of both schedulers polling: a second fetch would start now if it could.
        await sleep(2 * LEASE_MS);
        await Promise.all(schedulers.map((s) => s.stop()));
        assert.equal(fetches.get(path), 1, "fetched once");
        assert.equal(maxInFlight, 1);
        const stored = (await stores[0]!.feedById(feed.feedId))!;
        assert.equal(stored.errorCount, 0);
        assert.ok(stored.lastSuccessAt !== null && stored.nextFetchAt > Date.now());
      } finally {
        await Promise.all(stores.map((s) => s.close()));
        db.drop();
      }
    });

    it("a refresh whose claim another worker took stops its fetch and stores nothing", async () => {
      const db = await backend.newDatabase();
      const store = await openStore(db.location);
      try {
        const path = `/held/${backend.name}`;
        const feed = await store.addFeed({ feedUrl: `${base}${path}`, feedName: "Held" });
        const pass = runIngestPass(store, { claimLeaseMs: LEASE_MS, parseWorkers: 0 });
        await until(async () => held.some((h) => h.req.url === path), 5000);
        const request = held.find((h) => h.req.url === path)!;
        const aborted = new Promise<void>((resolve) => request.res.once("close", resolve));
        // Another worker whose clock is past the lease takes the feed (as after a stalled process).
        const thief = "thief/1/x";
        const taken = await store.claimDueFeeds(Date.now() + 10 * LEASE_MS, {
          worker: thief,
          leaseMs: 60_000,
          limit: 10,
          all: true,
        });
        assert.deepEqual(
          taken.map((f) => f.feedId),
          [feed.feedId],
        );
        await aborted;
        const summary = await pass;
        assert.equal(summary.claimLost, 1);
        assert.equal(summary.failed, 0);
        assert.equal(summary.postsInserted, 0);
        const after = (await store.feedById(feed.feedId))!;
        assert.deepEqual(
          [after.lastFetchedAt, after.errorCount, after.lastErrorCode, after.postCount],
          [null, 0, null, 0],
        );
        // The claim stayed the thief's: the stopped refresh neither renewed nor released it.
        assert.equal(await store.renewFeedClaim(feed.feedId, thief, Date.now(), 60_000), true);
      } finally {
        await store.close();
        db.drop();
      }
    });
  });
}
