/**
 * Every operation through real HTTP, the real SOAP decoder/encoder and a real database: the shared
 * expectations of operation-expectations.ts (columns, order, filters, paging, empty results)
 * through the SOAP client, read back by a namespace-aware parser, and what only SOAP has (cells
 * typed by column, a sincepost sent as xsd:dateTime).
 *
 * The suite runs once per backend (SQLite and PostgreSQL): one body, the same assertions.
 *
 * @example
 * soapOperationsSuite(sqliteBackend);
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { soapClient } from "../test-support/operation-clients.js";
import { operationExpectations } from "../test-support/operation-expectations.js";
import {
  type Fixture,
  fixtureNow,
  hour,
  type RunningService,
  seedFixture,
  startTestService,
} from "../test-support/service-fixture.js";
import { buildRequest, callOperation, postSoap } from "../test-support/soap-test-client.js";
import type { TestBackend } from "../test-support/test-backends.js";

export function soapOperationsSuite(backend: TestBackend): void {
  describe(`SOAP operations (${backend.name})`, () => {
    let service: RunningService;
    let fx: Fixture;
    let clock = fixtureNow;

    before(async () => {
      service = await startTestService({ backend, now: () => clock });
      fx = await seedFixture(service.store);
    });
    after(() => service.close());

    operationExpectations(() => ({
      client: soapClient(service.baseUrl),
      fx,
      baseUrl: service.baseUrl,
      setClock: (ms) => {
        clock = ms;
      },
      now: () => clock,
    }));

    test("SOAP only: every cell typed by its column, nil cells without a type", async () => {
      const r = await callOperation(service.baseUrl, "getMostRecentPosts", {
        limit: 20,
        offset: 0,
        languageIds: "",
      });
      assert.deepEqual(r.cellTypes![0], [
        "xsd:int",
        "xsd:string",
        "xsd:string",
        "xsd:string",
        "xsd:dateTime",
        "xsd:int",
        "xsd:string",
        "xsd:int",
        "xsd:string",
        "xsd:int",
        "xsd:int",
        "xsd:string",
      ]);
      const d1 = r.rows!.findIndex((row) => row[0] === fx.posts.d1);
      assert.deepEqual(r.cellTypes![d1].slice(7, 9), [null, null]);
      const search = await callOperation(service.baseUrl, "search", {
        limit: 20,
        offset: 0,
        searchTerms: "flex",
        sortBy: "",
        languageIds: "",
      });
      for (const types of search.cellTypes!) assert.equal(types[12], "xsd:double");
    });

    test("SOAP only: a sincepost sent as xsd:dateTime is read as an instant", async () => {
      const base = { limit: 20, offset: 0, categoryId: fx.categories.apple, languageIds: "" };
      const typed = `<sincepost xsi:type="xsd:dateTime">${new Date(fixtureNow - 2.5 * hour).toISOString()}</sincepost>`;
      const body = buildRequest("getPostsByCategory", base).replace(
        "</ns1:getPostsByCategory>",
        `${typed}</ns1:getPostsByCategory>`,
      );
      const r = await postSoap(`${service.baseUrl}/webservices/FeedAggregator`, body);
      assert.deepEqual(
        r.rows!.map((row) => row[0]),
        ["b2", "a1", "b1"].map((n) => fx.posts[n]),
      );
    });
  });
}
