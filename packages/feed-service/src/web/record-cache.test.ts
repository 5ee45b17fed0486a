import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createOperationRunner } from "../operations/operation-runner.js";
import { parseSearchQuery } from "../search/parse-search-query.js";
import { type RunningService, seedFixture, startTestService } from "../test-support/service-fixture.js";
import { cachingRunner } from "./record-cache.js";

let service: RunningService;
before(async () => {
  service = await startTestService();
  await seedFixture(service.store);
});
after(() => service.close());

const context = { baseUrl: "http://127.0.0.1" };

test("pure operations are read once while the data is unchanged; any write makes them fresh", async () => {
  const runner = cachingRunner(
    createOperationRunner({ store: service.store, parseSearch: parseSearchQuery }),
    () => service.store.dataVersion(),
  );
  const first = await runner.call("getCategories", {}, context);
  assert.equal(await runner.call("getCategories", {}, context), first, "the same records, not a new read");
  assert.notEqual(await runner.call("getCategories", {}, { baseUrl: "https://other.example" }), first);
  await service.store.addCategory("Dates");
  const after = await runner.call("getCategories", {}, context);
  assert.notEqual(after, first);
  assert.deepEqual(
    after.map((c) => c.categoryName),
    ["Apple", "banana", "cherry", "Dates"],
  );
});

test("operations with a clock or a side effect always run", async () => {
  const runner = cachingRunner(
    createOperationRunner({ store: service.store, parseSearch: parseSearchQuery }),
    () => service.store.dataVersion(),
  );
  const args = { limit: 5, offset: 0, searchTerms: "flex", sortBy: "", languageIds: "" };
  const first = await runner.call("search", args, context);
  assert.notEqual(await runner.call("search", args, context), first);
  const history = await runner.call("getSearchHistory", {}, context);
  assert.equal(history[0]?.searchCount, 2, "both searches were recorded");
});

test("operations that only read the clock serve for 10 s while the data is unchanged", async () => {
  let clock = 1_000_000;
  const runner = cachingRunner(
    createOperationRunner({ store: service.store, parseSearch: parseSearchQuery }),
    () => service.store.dataVersion(),
    100,
    () => clock,
  );
  const data = await runner.call("getAggregateLanguageData", {}, context);
  clock += 9_999;
  assert.equal(await runner.call("getAggregateLanguageData", {}, context), data);
  clock += 1;
  const later = await runner.call("getAggregateLanguageData", {}, context);
  assert.notEqual(later, data);
  await service.store.addCategory("Elderberry");
  assert.notEqual(
    await runner.call("getAggregateLanguageData", {}, context),
    later,
    "a write ends it at once",
  );
});

test("a store that cannot tell its version turns the cache off", async () => {
  const runner = cachingRunner(
    createOperationRunner({ store: service.store, parseSearch: parseSearchQuery }),
    () => Promise.reject(new Error("no version")),
  );
  const first = await runner.call("getLanguages", {}, context);
  assert.notEqual(await runner.call("getLanguages", {}, context), first);
});

test("a search this process records makes only the search history's records stale", async () => {
  const store = service.store;
  assert.ok(store.dataVersionBesidesSearchHistory, "the test service's store tells the narrower version");
  const runner = cachingRunner(createOperationRunner({ store, parseSearch: parseSearchQuery }), (scope) =>
    scope === "besides-search-history" ? store.dataVersionBesidesSearchHistory!() : store.dataVersion(),
  );
  const languages = await runner.call("getLanguages", {}, context);
  const history = await runner.call("getSearchHistory", {}, context);
  const args = { limit: 5, offset: 0, searchTerms: "elderberry scope", sortBy: "", languageIds: "" };
  await runner.call("search", args, context);
  assert.equal(await runner.call("getLanguages", {}, context), languages, "not read again after a search");
  const fresh = await runner.call("getSearchHistory", {}, context);
  assert.notEqual(fresh, history);
  assert.equal(fresh[0]?.searchTerms, "elderberry scope", "the history shows the search just made");
  await store.addCategory("Elderberries");
  assert.notEqual(
    await runner.call("getLanguages", {}, context),
    languages,
    "any other write makes it fresh",
  );
});
