/**
 * Ingest with several workers over one database: three passes at once, each with its own store
 * connection pool (as three processes or machines would have), over 200 feeds served by a real
 * HTTP server on 127.0.0.1. Every feed must be fetched exactly once and every post stored exactly
 * once. Then the lease: a worker that claims feeds and dies holds them only until its lease ends.
 * The lease test also runs on SQLite (several processes over one file).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { runIngestPass } from "../../ingest/ingest-pass.js";
import { startTestPostgres, type TestPostgres } from "../../test-support/test-postgres-server.js";
import { openStore } from "../open-store.js";
import type { Store } from "../store.js";
import { openPostgresStore } from "./postgres-store.js";

const FEEDS = 200;
const ITEMS = 5;
let pgServer: TestPostgres;
let http: Server;
let base: string;
const fetches = new Map<number, number>();
const dir = mkdtempSync(join(tmpdir(), "feed-claims-"));

function feedDocument(n: number): string {
  const items = Array.from(
    { length: ITEMS },
    (_, i) =>
      `<item><title>Feed ${n} item ${i}</title><link>${base}/p/${n}/${i}</link><guid>g-${n}-${i}</guid>` +
      `<pubDate>Mon, 05 Jan 2026 10:${String(i).padStart(2, "0")}:00 GMT</pubDate><description>Words ${n} ${i}</description></item>`,
  ).join("");
  return `<rss version="2.0"><channel><title>Feed ${n}</title><language>en</language>${items}</channel></rss>`;
}

before(async () => {
  pgServer = await startTestPostgres();
  http = createServer((req, res) => {
    const n = Number(/^\/f\/(\d+)$/.exec(req.url ?? "")?.[1] ?? Number.NaN);
    if (!Number.isInteger(n)) return void res.writeHead(404).end();
    fetches.set(n, (fetches.get(n) ?? 0) + 1);
    // A little latency, so that the three passes really overlap.
    setTimeout(() => res.writeHead(200, { "content-type": "application/rss+xml" }).end(feedDocument(n)), 5);
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
});
after(async () => {
  http?.closeAllConnections();
  http?.close();
  await pgServer?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function addFeeds(store: Store, count: number): Promise<void> {
  for (let n = 0; n < count; n++) await store.addFeed({ feedUrl: `${base}/f/${n}`, feedName: `Feed ${n}` });
}

describe("ingest with several workers", () => {
  it("three concurrent passes fetch every one of 200 feeds once and store every post once", async () => {
    const url = await pgServer.createDatabase("three_workers");
    const setup = await openPostgresStore({ url });
    await addFeeds(setup, FEEDS);
    fetches.clear();
    const workers = await Promise.all([1, 2, 3].map(() => openPostgresStore({ url, poolSize: 4 })));
    try {
      const summaries = await Promise.all(
        workers.map((store) => runIngestPass(store, { overall: 4, perHost: 4, parseWorkers: 0 })),
      );
      assert.equal(fetches.size, FEEDS, "every feed fetched");
      const twice = [...fetches].filter(([, count]) => count !== 1);
      assert.deepEqual(twice, [], "no feed fetched more than once");
      assert.equal(
        summaries.reduce((sum, s) => sum + s.feeds, 0),
        FEEDS,
        "the passes' feed counts add up to the feeds",
      );
      assert.ok(summaries.filter((s) => s.feeds > 0).length >= 2, "the work was shared");
      assert.equal(
        summaries.reduce((sum, s) => sum + s.postsInserted, 0),
        FEEDS * ITEMS,
      );
      const posts = await setup.recentPosts({ limit: 1000, offset: 0, languageIds: null });
      assert.equal(posts.length, FEEDS * ITEMS);
      assert.equal(new Set(posts.map((p) => p.postLink)).size, FEEDS * ITEMS, "no post stored twice");
      for (const feed of await setup.adminFeeds()) {
        assert.equal(feed.postCount, ITEMS, `feed ${feed.feedId}`);
        assert.ok(feed.nextFetchAt > Date.now(), "the next fetch is scheduled");
      }

      // A second round finds nothing due: the feeds were rescheduled, not left claimed or due.
      fetches.clear();
      const again = await Promise.all(workers.map((store) => runIngestPass(store, { parseWorkers: 0 })));
      assert.deepEqual(
        again.map((s) => s.feeds),
        [0, 0, 0],
      );
      assert.equal(fetches.size, 0);
    } finally {
      await Promise.all([setup, ...workers].map((s) => s.close()));
    }
  });

  for (const dialect of ["postgres", "sqlite"] as const) {
    it(`a crashed worker's claims hold until their lease ends, then others take them (${dialect})`, async () => {
      const open = async () =>
        dialect === "postgres"
          ? openStore(await pgServer.createDatabase(`lease_${Date.now()}`))
          : openStore(join(dir, `lease-${Date.now()}.db`));
      const store = await open();
      try {
        await addFeeds(store, 10);
        const now = Date.now();
        const crashed = await store.claimDueFeeds(now, { worker: "gone/1/a", leaseMs: 60_000, limit: 4 });
        assert.equal(crashed.length, 4);
        // Another worker, claiming everything it can, gets only the six others.
        const other = await store.claimDueFeeds(now, { worker: "alive/2/b", leaseMs: 120_000, limit: 100 });
        assert.deepEqual(
          other.map((f) => f.feedId).sort((a, b) => a - b),
          (await store.adminFeeds())
            .map((f) => f.feedId)
            .filter((id) => !crashed.some((c) => c.feedId === id))
            .sort((a, b) => a - b),
        );
        // Nothing is handed out twice while the leases hold, not even to the same worker.
        assert.deepEqual(
          await store.claimDueFeeds(now + 1000, { worker: "alive/2/b", leaseMs: 60_000, limit: 100 }),
          [],
        );
        assert.deepEqual(
          await store.claimDueFeeds(now + 1000, { worker: "third/3/c", leaseMs: 60_000, limit: 100 }),
          [],
        );
        // The lease ends: the crashed worker's feeds go to the next claimant.
        const later = await store.claimDueFeeds(now + 60_001, {
          worker: "third/3/c",
          leaseMs: 60_000,
          limit: 100,
        });
        assert.deepEqual(
          later.map((f) => f.feedId).sort((a, b) => a - b),
          crashed.map((f) => f.feedId).sort((a, b) => a - b),
        );
        // A claimant known to be gone loses its claims at once; a release frees a claim too.
        await store.releaseFeedClaim(later[0]!.feedId, "third/3/c");
        const freed = await store.claimDueFeeds(now + 60_002, {
          worker: "fourth/4/d",
          leaseMs: 60_000,
          limit: 100,
          isAbandoned: (worker) => worker === "alive/2/b",
        });
        assert.equal(freed.length, 1 + other.length);
      } finally {
        await store.close();
      }
    });
  }
});
