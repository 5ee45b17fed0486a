/**
 * WebSub end to end, on a given backend: a real local publisher and hub (test-websub-hub.ts), the
 * real fetcher and ingest, the subscriber, and the service's callback routes on a real socket.
 * Discovery (document links and Link headers), subscription with the hub's verification,
 * renewal, signed pushes stored through the ingest pipeline, and every push or verification that
 * must store nothing.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createFeedServer, type FeedServer } from "../http/feed-server.js";
import { FetchLimiter } from "../ingest/fetch-limiter.js";
import { refreshFeed } from "../ingest/refresh-feed.js";
import { createOperationRunner } from "../operations/operation-runner.js";
import { parseSearchQuery } from "../search/parse-search-query.js";
import { openStore } from "../store/open-store.js";
import type { FeedAdminRecord, Store } from "../store/store.js";
import type { TestBackend, TestDatabase } from "../test-support/test-backends.js";
import { freePort, startTestHub, type TestHub } from "../test-support/test-websub-hub.js";
import { callbackUrl, WebSubSubscriber } from "./websub-subscriber.js";
import { webSubTimings } from "./websub-timings.js";

const T0 = Date.UTC(2026, 0, 10, 12);

export function webSubSuite(backend: TestBackend): void {
  describe(`WebSub subscriber (${backend.name})`, () => {
    let now = T0;
    const clock = () => now;
    let database: TestDatabase;
    let store: Store;
    let hub: TestHub;
    let service: FeedServer;
    let publicUrl: string;
    let subscriber: WebSubSubscriber;
    let feed: FeedAdminRecord;

    const refresh = async (f: FeedAdminRecord) =>
      refreshFeed((await store.feedById(f.feedId))!, { store, limiter: new FetchLimiter(), now: clock });
    const subscription = async () => (await store.websub.subscriptionByFeed(feed.feedId))!;
    const callback = async () => callbackUrl(publicUrl, (await subscription()).callbackId!);
    const titles = async () =>
      (await store.postsByFeed({ feedId: feed.feedId, limit: 50, offset: 0 })).map((p) => p.postTitle).sort();

    before(async () => {
      database = await backend.newDatabase();
      store = await openStore(database.location);
      hub = await startTestHub();
      const port = await freePort();
      publicUrl = `http://127.0.0.1:${port}/`;
      service = createFeedServer({
        store,
        runner: createOperationRunner({ store, parseSearch: parseSearchQuery, now: clock }),
        publicUrl,
        now: clock,
        logError: () => {},
      });
      await service.listen(port, "127.0.0.1");
      publicUrl = publicUrl.replace(/\/$/, "");
      subscriber = new WebSubSubscriber({ subscriptions: store.websub, publicUrl, now: clock });
      feed = await store.addFeed({ feedUrl: `${hub.base}/atom`, feedName: "hubbed" });
    });
    after(async () => {
      await service?.close();
      await hub?.close();
      await store?.close();
      database?.drop();
    });

    it("a fetch records the hub and self link of the document; the Link headers of another feed", async () => {
      assert.equal((await refresh(feed)).outcome, "updated");
      const row = await subscription();
      assert.equal(row.state, "discovered");
      assert.equal(row.hubUrl, `${hub.base}/hub`);
      assert.equal(row.topicUrl, `${hub.base}/atom`);
      const linked = await store.addFeed({ feedUrl: `${hub.base}/linked.rss`, feedName: "linked" });
      assert.equal((await refresh(linked)).outcome, "updated");
      const linkedRow = await store.websub.subscriptionByFeed(linked.feedId);
      assert.equal(linkedRow?.hubUrl, `${hub.base}/hub`);
      assert.equal(linkedRow?.topicUrl, `${hub.base}/linked.rss`);
      // Only one subscription for this suite: the Link-header feed leaves.
      await store.removeFeed(linked.feedId);
    });

    it("subscribes: the hub's synchronous verification gets the challenge back; the lease is kept", async () => {
      const round = await subscriber.runOnce();
      assert.deepEqual(round, { requested: 1, failed: 0 });
      assert.equal(hub.requests.length, 1);
      const { params, verification } = hub.requests[0]!;
      assert.equal(params["hub.mode"], "subscribe");
      assert.equal(params["hub.topic"], `${hub.base}/atom`);
      assert.equal(params["hub.lease_seconds"], String(webSubTimings.requestedLeaseSeconds));
      assert.match(params["hub.callback"]!, new RegExp(`^${publicUrl}/websub/[A-Za-z0-9_-]{32}$`));
      assert.ok(params["hub.secret"]!.length >= 32);
      assert.deepEqual(verification, { status: 200, echoed: true, nosniff: true });
      const row = await subscription();
      assert.equal(row.state, "active");
      assert.equal(row.secret, params["hub.secret"]);
      assert.equal(row.leaseSeconds, 1000);
      assert.equal(row.leaseExpiresAt, T0 + 1_000_000);
      assert.equal(row.nextAttemptAt, T0 + 850_000);
      // Nothing is due before 85% of the lease.
      now = T0 + 800_000;
      assert.deepEqual(await subscriber.runOnce(), { requested: 0, failed: 0 });
    });

    it("while subscribed, the feed is polled only as a safety net", async () => {
      assert.equal((await refresh(feed)).outcome, "updated");
      const polled = (await store.feedById(feed.feedId))!;
      assert.ok(
        polled.nextFetchAt >= now + webSubTimings.safetyNetPollMs,
        "next poll after the safety-net interval",
      );
    });

    it("renews at 85% of the lease with the same callback and secret", async () => {
      now = T0 + 860_000;
      hub.leaseSeconds = 2000;
      const before = await subscription();
      assert.deepEqual(await subscriber.runOnce(), { requested: 1, failed: 0 });
      const renewal = hub.requests[1]!;
      assert.equal(renewal.params["hub.callback"], hub.requests[0]!.params["hub.callback"]);
      assert.equal(renewal.params["hub.secret"], before.secret);
      assert.deepEqual(renewal.verification, { status: 200, echoed: true, nosniff: true });
      const row = await subscription();
      assert.equal(row.state, "active");
      assert.equal(row.leaseExpiresAt, now + 2_000_000);
      assert.equal(row.nextAttemptAt, now + 1_700_000);
    });

    it("a signed push is stored through the ingest pipeline (sha1, sha256 and sha512 signatures)", async () => {
      const { secret } = await subscription();
      const url = await callback();
      const body = hub.atomFeed([
        { id: "urn:pushed-1", title: "Pushed one" },
        { id: "urn:pushed-2", title: "Pushed two" },
      ]);
      assert.equal(await hub.push(url, body, { secret: secret!, method: "sha256" }), 202);
      assert.deepEqual(await titles(), ["Polled one", "Pushed one", "Pushed two"]);
      assert.equal((await subscription()).lastPushAt, now);
      const third = hub.atomFeed([{ id: "urn:pushed-3", title: "Pushed three" }]);
      assert.equal(await hub.push(url, third, { secret: secret!, method: "sha1" }), 202);
      const fourth = hub.atomFeed([{ id: "urn:pushed-4", title: "Pushed four" }]);
      assert.equal(await hub.push(url, fourth, { secret: secret!, method: "sha512" }), 202);
      assert.deepEqual(await titles(), [
        "Polled one",
        "Pushed four",
        "Pushed one",
        "Pushed three",
        "Pushed two",
      ]);
    });

    it("a bad, missing or foreign signature is acknowledged but stores nothing", async () => {
      const url = await callback();
      const forged = hub.atomFeed([{ id: "urn:forged", title: "Forged" }]);
      const before = await titles();
      assert.equal(await hub.push(url, forged, { secret: "not-the-secret" }), 202);
      assert.equal(await hub.push(url, forged, null), 202);
      assert.equal(await hub.push(url, forged, { header: "md5=00ff" }), 202);
      assert.equal(await hub.push(url, forged, { header: "sha256=zz" }), 202);
      assert.deepEqual(await titles(), before);
    });

    it("unknown callbacks are 404 for pushes and verifications; nothing is stored", async () => {
      const { secret } = await subscription();
      const body = hub.atomFeed([{ id: "urn:lost", title: "Lost" }]);
      const before = await titles();
      // An encoded traversal: a client would resolve a plain "../" before sending it.
      for (const id of ["AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "x", "..%2Fadmin", "%2E%2E%2Fhealth"]) {
        const url = `${publicUrl}/websub/${id}`;
        assert.equal(await hub.push(url, body, { secret: secret! }), 404);
        const answer = await hub.verify(url, {
          "hub.mode": "subscribe",
          "hub.topic": `${hub.base}/atom`,
          "hub.challenge": "c",
        });
        assert.equal(answer.status, 404);
      }
      assert.deepEqual(await titles(), before);
    });

    it("an oversized push is 413 and stores nothing", async () => {
      const { secret } = await subscription();
      const entries = [{ id: "urn:huge", title: `Huge ${"x".repeat(1024 * 1024)}` }];
      const body = hub.atomFeed(entries);
      const before = await titles();
      assert.equal(await hub.push(await callback(), body, { secret: secret! }), 413);
      assert.deepEqual(await titles(), before);
    });

    it("verifications: unsubscribe is refused, a wrong topic is 404, a missing challenge 400", async () => {
      const url = await callback();
      const topic = `${hub.base}/atom`;
      const unsubscribe = await hub.verify(url, {
        "hub.mode": "unsubscribe",
        "hub.topic": topic,
        "hub.challenge": "c",
      });
      assert.equal(unsubscribe.status, 404);
      assert.notEqual(unsubscribe.body, "c");
      const wrongTopic = await hub.verify(url, {
        "hub.mode": "subscribe",
        "hub.topic": `${hub.base}/other`,
        "hub.challenge": "c",
      });
      assert.equal(wrongTopic.status, 404);
      assert.equal((await hub.verify(url, { "hub.mode": "subscribe", "hub.topic": topic })).status, 400);
      assert.equal((await hub.verify(url, { "hub.mode": "publish", "hub.topic": topic })).status, 400);
      assert.equal((await subscription()).state, "active");
    });

    it("a denial is recorded; pushes are then 410 and the hub is asked again a day later", async () => {
      const url = await callback();
      const denied = await hub.verify(url, {
        "hub.mode": "denied",
        "hub.topic": `${hub.base}/atom`,
        "hub.reason": "no\u0000 thanks",
      });
      assert.equal(denied.status, 200);
      const row = await subscription();
      assert.equal(row.state, "denied");
      assert.equal(row.lastError, "The hub denied the subscription: no thanks.");
      assert.equal(row.nextAttemptAt, now + webSubTimings.deniedRetryMs);
      const body = hub.atomFeed([{ id: "urn:late", title: "Late" }]);
      assert.equal(await hub.push(url, body, { secret: row.secret! }), 410);
    });

    it("a hub that refuses the request: the reason is kept and the request retried later", async () => {
      now += webSubTimings.deniedRetryMs;
      hub.refuseWith = 403;
      assert.deepEqual(await subscriber.runOnce(), { requested: 1, failed: 1 });
      const row = await subscription();
      assert.equal(row.state, "pending");
      assert.equal(row.attempts, 1);
      assert.equal(row.lastError, "The hub answered HTTP 403: Topic not allowed here.");
      assert.equal(row.nextAttemptAt, now + webSubTimings.retryAfterMs(1));
      hub.refuseWith = null;
      now = row.nextAttemptAt;
      assert.deepEqual(await subscriber.runOnce(), { requested: 1, failed: 0 });
      assert.equal((await subscription()).state, "active");
      assert.equal((await subscription()).attempts, 0);
    });

    it("a hub that accepts but never verifies: asked again after 15 minutes, with the likely cause", async () => {
      hub.silent = true;
      now = (await subscription()).nextAttemptAt;
      assert.deepEqual(await subscriber.runOnce(), { requested: 1, failed: 0 });
      let row = await subscription();
      assert.deepEqual([row.state, row.attempts, row.lastError], ["active", 1, null]);
      assert.equal(row.nextAttemptAt, now + webSubTimings.verifyWithinMs);
      now = row.nextAttemptAt;
      assert.deepEqual(await subscriber.runOnce(), { requested: 1, failed: 0 });
      row = await subscription();
      assert.equal(row.attempts, 2);
      assert.equal(
        row.lastError,
        `The hub accepted the last request but did not verify it; can it reach ${publicUrl}/websub/?`,
      );
      assert.equal(
        row.nextAttemptAt,
        now + Math.max(webSubTimings.verifyWithinMs, webSubTimings.retryAfterMs(1)),
      );
      // Past the lease, the subscription is asked for anew; the hub's verification makes it active.
      now = Math.max(row.nextAttemptAt, row.leaseExpiresAt! + 1);
      hub.silent = false;
      assert.deepEqual(await subscriber.runOnce(), { requested: 1, failed: 0 });
      row = await subscription();
      assert.deepEqual([row.state, row.attempts, row.lastError], ["active", 0, null]);
    });
  });
}
