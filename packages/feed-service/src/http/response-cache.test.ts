import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { openStore } from "../store/open-store.js";
import { ResponseCache } from "./response-cache.js";
import { type Fixture, type RunningService, seedFixture, startTestService } from "./service-fixture.js";
import { buildRequest, callOperation, postSoap } from "./soap-test-client.js";

const entry = (version: string, size: number) => ({
  version,
  contentType: "text/xml",
  body: Buffer.alloc(size),
});

test("entries are valid only under their data version, and the cache stays within its bounds", () => {
  const cache = new ResponseCache({ maxRequestBytes: 100, maxEntries: 3, maxTotalBytes: 10_000 });
  assert.equal(cache.key(Buffer.alloc(101), "text/xml", "http://x"), undefined);
  const k = (n: number) => cache.key(Buffer.from(`<call n="${n}"/>`), "text/xml", "http://x")!;
  assert.notEqual(
    cache.key(Buffer.from("<a/>"), "text/xml", "http://x"),
    cache.key(Buffer.from("<a/>"), "text/xml", "http://y"),
  );
  cache.set(k(1), entry("v1", 10));
  assert.ok(cache.get(k(1), "v1"));
  assert.equal(cache.get(k(1), "v2"), undefined, "a newer data version makes the entry stale");
  assert.equal(cache.size, 0, "and drops it");
  for (let i = 0; i < 5; i++) cache.set(k(i), entry("v", 10));
  assert.equal(cache.size, 3);
  assert.equal(cache.get(k(0), "v"), undefined, "the oldest went first");
  assert.ok(cache.get(k(4), "v"));
  cache.set(k(9), entry("v", 2400));
  cache.set(k(10), entry("v", 2400));
  cache.set(k(11), entry("v", 2400));
  cache.set(k(12), entry("v", 2400));
  assert.ok(cache.size <= 3);
  cache.set(k(13), entry("v", 5000));
  assert.equal(cache.get(k(13), "v"), undefined, "an entry over a quarter of the budget is not kept");
});

let service: RunningService;
let fx: Fixture;
before(async () => {
  service = await startTestService();
  fx = await seedFixture(service.store);
});
after(() => service.close());

test("through the server: repeated calls are answered alike, and any write is seen at once", async () => {
  const categories = async () =>
    (await callOperation(service.baseUrl, "getCategories")).rows!.map((r) => r[1]);
  assert.deepEqual(await categories(), ["Apple", "banana", "cherry"]);
  assert.deepEqual(await categories(), ["Apple", "banana", "cherry"]);
  await service.store.addCategory("Durian");
  assert.deepEqual(await categories(), ["Apple", "banana", "cherry", "Durian"]);
  // A write by another connection (another process of the same install) is seen too.
  const other = await openStore(`${service.folder}/feeds.db`);
  await other.addCategory("Elderberry");
  await other.close();
  assert.deepEqual(await categories(), ["Apple", "banana", "cherry", "Durian", "Elderberry"]);
  // A click changes the clicks column of the next answer.
  const clicksOfD1 = async () => {
    const r = await callOperation(service.baseUrl, "getPostsByFeed", {
      limit: 5,
      offset: 0,
      feedId: fx.feeds.zeta,
    });
    return r.rows![0][10];
  };
  assert.equal(await clicksOfD1(), 0);
  await fetch(`${service.baseUrl}/click/${fx.posts.d1}`, { redirect: "manual" });
  assert.equal(await clicksOfD1(), 1);
});

test("impure operations are never reused: every identical search is recorded", async () => {
  const body = buildRequest("search", {
    limit: 5,
    offset: 0,
    searchTerms: "cache probe",
    sortBy: "",
    languageIds: "",
  });
  for (let i = 0; i < 3; i++) await postSoap(`${service.baseUrl}/webservices/FeedAggregator`, body);
  const h = await callOperation(service.baseUrl, "getSearchHistory");
  const row = h.rows!.find((r) => r[0] === "cache probe");
  assert.equal(row?.[1], 3);
});
