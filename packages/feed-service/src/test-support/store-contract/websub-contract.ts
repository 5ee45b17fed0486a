/** Contract: WebSub subscriptions — discovery, the subscription's changes, lookups and removal. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type StoreFactory, T0, withStore } from "./contract-fixture.js";

const hub = { hubUrl: "https://hub.test/", topicUrl: "https://alpha.test/feed" };

export function webSubContract(factory: StoreFactory): void {
  describe("websub subscriptions", () => {
    it(
      "a discovered hub is a row due at once; finding it again changes nothing",
      withStore(factory, async (store) => {
        const feed = await store.addFeed({ feedUrl: hub.topicUrl, feedName: "Alpha" });
        const row = await store.websub.recordHubLink(feed.feedId, hub, T0);
        assert.deepEqual(row, {
          feedId: feed.feedId,
          ...hub,
          state: "discovered",
          callbackId: null,
          secret: null,
          leaseSeconds: null,
          leaseExpiresAt: null,
          nextAttemptAt: T0,
          attempts: 0,
          lastError: null,
          discoveredAt: T0,
          verifiedAt: null,
          lastPushAt: null,
        });
        assert.ok(
          await store.websub.updateSubscription(feed.feedId, { state: "active", callbackId: "cb-1" }),
        );
        const again = await store.websub.recordHubLink(feed.feedId, { ...hub }, T0 + 1000);
        assert.equal(again?.state, "active");
        assert.equal(again?.callbackId, "cb-1");
        assert.equal(again?.discoveredAt, T0);
      }),
    );

    it(
      "saves each step's fields and finds the row by callback; unknown rows are not updated",
      withStore(factory, async (store) => {
        const feed = await store.addFeed({ feedUrl: hub.topicUrl, feedName: "Alpha" });
        await store.websub.recordHubLink(feed.feedId, hub, T0);
        const changes = {
          state: "active" as const,
          callbackId: "Zr7QWJ0kq9wX8uVd3mN1bHc5TfYgLs2A",
          secret: "s3cret",
          leaseSeconds: 864_000,
          leaseExpiresAt: T0 + 864_000_000,
          nextAttemptAt: T0 + 734_400_000,
          attempts: 2,
          lastError: "The hub answered HTTP 500.",
          verifiedAt: T0 + 5,
          lastPushAt: T0 + 9,
        };
        assert.ok(await store.websub.updateSubscription(feed.feedId, changes));
        const byCallback = await store.websub.subscriptionByCallback(changes.callbackId);
        assert.deepEqual(byCallback, { feedId: feed.feedId, ...hub, discoveredAt: T0, ...changes });
        assert.deepEqual(await store.websub.subscriptionByFeed(feed.feedId), byCallback);
        assert.ok(await store.websub.updateSubscription(feed.feedId, { lastError: null }));
        assert.equal((await store.websub.subscriptionByFeed(feed.feedId))?.lastError, null);
        assert.equal(await store.websub.subscriptionByCallback("no-such-callback"), undefined);
        assert.equal(await store.websub.updateSubscription(feed.feedId + 99, { state: "denied" }), false);
      }),
    );

    it(
      "a new hub or topic starts over; no hub any more, or removing the feed, forgets the row",
      withStore(factory, async (store) => {
        const feed = await store.addFeed({ feedUrl: hub.topicUrl, feedName: "Alpha" });
        await store.websub.recordHubLink(feed.feedId, hub, T0);
        await store.websub.updateSubscription(feed.feedId, {
          state: "active",
          callbackId: "old-callback-id-0123456789",
          secret: "old",
          leaseExpiresAt: T0 + 1000,
          nextAttemptAt: T0 + 900,
        });
        const moved = await store.websub.recordHubLink(
          feed.feedId,
          { ...hub, hubUrl: "https://other-hub.test/" },
          T0 + 50,
        );
        assert.equal(moved?.state, "discovered");
        assert.equal(moved?.hubUrl, "https://other-hub.test/");
        assert.equal(moved?.callbackId, null);
        assert.equal(moved?.secret, null);
        assert.equal(moved?.leaseExpiresAt, null);
        assert.equal(moved?.nextAttemptAt, T0 + 50);
        assert.equal(moved?.discoveredAt, T0 + 50);
        const retopic = await store.websub.recordHubLink(
          feed.feedId,
          { hubUrl: "https://other-hub.test/", topicUrl: "https://alpha.test/self" },
          T0 + 60,
        );
        assert.equal(retopic?.topicUrl, "https://alpha.test/self");
        assert.equal(await store.websub.recordHubLink(feed.feedId, null, T0 + 70), undefined);
        assert.equal(await store.websub.subscriptionByFeed(feed.feedId), undefined);
        await store.websub.recordHubLink(feed.feedId, hub, T0 + 80);
        assert.ok(await store.removeFeed(feed.feedId));
        assert.deepEqual(await store.websub.subscriptions(), []);
      }),
    );

    it(
      "due rows soonest first, with a limit; every row by feed id",
      withStore(factory, async (store) => {
        const ids: number[] = [];
        for (const name of ["a", "b", "c"]) {
          const feed = await store.addFeed({ feedUrl: `https://${name}.test/feed`, feedName: name });
          await store.websub.recordHubLink(feed.feedId, { ...hub, topicUrl: feed.feedUrl }, T0);
          ids.push(feed.feedId);
        }
        await store.websub.updateSubscription(ids[0]!, { nextAttemptAt: T0 + 500 });
        await store.websub.updateSubscription(ids[2]!, { nextAttemptAt: T0 - 500 });
        assert.deepEqual(
          (await store.websub.dueSubscriptions(T0, 10)).map((s) => s.feedId),
          [ids[2], ids[1]],
        );
        assert.deepEqual(
          (await store.websub.dueSubscriptions(T0 + 500, 2)).map((s) => s.feedId),
          [ids[2], ids[1]],
        );
        assert.deepEqual(
          (await store.websub.subscriptions()).map((s) => s.feedId),
          ids,
        );
      }),
    );
  });
}
