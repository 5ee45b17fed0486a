// The cache on its own, then through the server on SQLite (response-cache.suite.ts;
// postgres-service.test.ts runs that suite on PostgreSQL).
import assert from "node:assert/strict";
import { test } from "node:test";
import { sqliteBackend } from "../test-support/test-backends.js";
import { defaultCacheLimits, ResponseCache } from "./response-cache.js";
import { responseCacheSuite } from "./response-cache.suite.js";

const entry = (version: string, size: number) => ({
  version,
  contentType: "text/xml",
  body: Buffer.alloc(size),
});

test("entries are valid only under their data version, and the cache stays within its bounds", () => {
  const cache = new ResponseCache({
    maxRequestBytes: 100,
    maxEntries: 3,
    maxTotalBytes: 10_000,
    seenSlots: 0,
  });
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

test("a request's answer is wanted from the second time the request comes", () => {
  const cache = new ResponseCache({ ...defaultCacheLimits, seenSlots: 8 });
  const k = (n: number) => cache.key(Buffer.from(`<call n="${n}"/>`), "text/xml", "http://x")!;
  assert.equal(cache.wanted(k(1)), false, "the first time: not wanted");
  assert.equal(cache.wanted(k(1)), true, "the second time: wanted");
  cache.set(k(1), entry("v", 10));
  assert.ok(cache.get(k(1), "v"));
  // Another request taking its slot in the table does not make a kept answer unwanted.
  for (let i = 100; i < 200; i++) assert.equal(cache.wanted(k(i)), false);
  assert.equal(cache.wanted(k(1)), true, "kept: wanted");
  assert.throws(() => new ResponseCache({ ...defaultCacheLimits, seenSlots: 6 }), /power of two; got 6/);
  const all = new ResponseCache({ ...defaultCacheLimits, seenSlots: 0 });
  assert.equal(all.wanted(k(2)), true, "no table: every request is wanted");
});

test("a lookup reads the data version only for a wanted request, and finds what was kept under it", async () => {
  const cache = new ResponseCache({ ...defaultCacheLimits, seenSlots: 8 });
  const k = cache.key(Buffer.from("<call/>"), "text/xml", "http://x")!;
  let reads = 0;
  const version = async () => {
    reads++;
    return "v";
  };
  assert.deepEqual(await cache.lookup(undefined, version), {}, "too large to key");
  assert.deepEqual(await cache.lookup(k, version), {}, "the first time");
  assert.equal(reads, 0);
  assert.deepEqual(await cache.lookup(k, version), { version: "v", hit: undefined }, "the second time");
  cache.set(k, entry("v", 10));
  assert.equal((await cache.lookup(k, version)).hit?.body.length, 10);
  assert.equal(reads, 2);
  assert.deepEqual(
    await cache.lookup(k, () => Promise.reject(new Error("store down"))),
    {},
    "no version: answered afresh and not kept",
  );
});

responseCacheSuite(sqliteBackend);
