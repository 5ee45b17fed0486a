/**
 * The response cache behind a running server: identical calls are answered alike, and a write by
 * this process or by any other connection to the same database is seen by the very next call.
 *
 * The suite runs once per backend (SQLite and PostgreSQL): one body, the same assertions.
 *
 * @example
 * responseCacheSuite(sqliteBackend);
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { openStore } from "../store/open-store.js";
import {
  type Fixture,
  type RunningService,
  seedFixture,
  startTestService,
} from "../test-support/service-fixture.js";
import { buildRequest, callOperation, postSoap } from "../test-support/soap-test-client.js";
import type { TestBackend } from "../test-support/test-backends.js";

export function responseCacheSuite(backend: TestBackend): void {
  describe(`response cache through the server (${backend.name})`, () => {
    let service: RunningService;
    let fx: Fixture;
    before(async () => {
      service = await startTestService({ backend });
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
      const other = await openStore(service.database);
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
  });
}
