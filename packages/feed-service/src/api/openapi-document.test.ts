// The OpenAPI document of the JSON API: valid OpenAPI 3.1 by an independent validator
// (@seriousme/openapi-schema-validator), one path per operation of the table, and every documented
// route answering as documented: each of its documented statuses provoked where a request can,
// and each answer validated against the schema the document gives for that status.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { operationTable } from "../operations/operation-table.js";
import { getJson, jsonUrl } from "../test-support/operation-clients.js";
import {
  type Fixture,
  type RunningService,
  seedFixture,
  startTestService,
} from "../test-support/service-fixture.js";

interface Operation {
  operationId: string;
  parameters?: Array<{ name: string; in: string; required?: boolean }>;
  responses: Record<string, { content?: Record<string, { schema: object }> }>;
}

let service: RunningService;
let fx: Fixture;
let doc: { openapi: string; paths: Record<string, { get: Operation }> };

before(async () => {
  service = await startTestService();
  fx = await seedFixture(service.store);
  doc = (await getJson(service.baseUrl, "/api/v1/openapi.json")).json as typeof doc;
});
after(() => service.close());

test("the document is valid OpenAPI 3.1", async () => {
  const validator = new Validator();
  const result = await validator.validate(structuredClone(doc) as Parameters<Validator["validate"]>[0]);
  assert.equal(validator.version, "3.1");
  assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2)?.slice(0, 3000));
});

test("one documented path per operation of the table, and the docs page serves its assets itself", async () => {
  const ids = Object.values(doc.paths).map((p) => p.get.operationId);
  assert.deepEqual([...ids].sort(), operationTable.map((op) => op.name).sort());
  const page = await fetch(`${service.baseUrl}/api/docs`);
  assert.equal(page.status, 200);
  const html = await page.text();
  const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
  assert.ok(assets.length >= 3, html.slice(0, 500));
  for (const asset of assets) {
    assert.doesNotMatch(asset, /^(?:https?:)?\/\//, `an asset from elsewhere: ${asset}`);
    const res = await fetch(new URL(asset, `${service.baseUrl}/api/docs/`));
    assert.equal(res.status, 200, asset);
  }
  const spec = await getJson(service.baseUrl, "/api/docs/json");
  assert.deepEqual(spec.json, doc);
});

/** A call of each operation that succeeds, and one per error status it documents. */
function requests(): Record<string, Record<string, string>> {
  const cat = fx.categories.apple;
  return {
    search: { 200: jsonUrl("search", { searchTerms: "flex" }), 400: "/api/v1/search?q=flex&sortBy=title" },
    getMostRecentPosts: { 200: "/api/v1/posts?limit=3", 400: "/api/v1/posts?limit=-1" },
    getPostsByCategory: {
      200: `/api/v1/categories/${cat}/posts?since=1`,
      400: `/api/v1/categories/${cat}/posts?since=yesterday`,
      404: "/api/v1/categories/99/posts",
    },
    getPostsByFeed: {
      200: `/api/v1/feeds/${fx.feeds.zeta}/posts`,
      400: "/api/v1/feeds/x/posts",
      404: "/api/v1/feeds/99/posts",
    },
    getPostsBySmartCategory: {
      200: `/api/v1/smart-categories/${fx.smart.key}/posts`,
      400: "/api/v1/smart-categories/x/posts",
      404: "/api/v1/smart-categories/99/posts",
    },
    getMostPopularPosts: {
      200: "/api/v1/posts/popular?daysBack=30",
      400: "/api/v1/posts/popular?daysBack=0",
      404: "/api/v1/posts/popular?categoryId=99",
    },
    getCategories: { 200: "/api/v1/categories" },
    getSmartCategories: { 200: "/api/v1/smart-categories" },
    getLanguages: { 200: "/api/v1/languages" },
    getMostPopularFeeds: {
      200: "/api/v1/feeds/popular?daysBack=30",
      400: "/api/v1/feeds/popular?limit=1001",
    },
    getMostProlificFeeds: { 200: "/api/v1/feeds/prolific", 400: "/api/v1/feeds/prolific?daysBack=x" },
    getFeeds: { 200: "/api/v1/feeds" },
    getFeedsByCategory: {
      200: `/api/v1/categories/${cat}/feeds`,
      400: "/api/v1/categories/1.5/feeds",
      404: "/api/v1/categories/99/feeds",
    },
    getSearchHistory: { 200: "/api/v1/search/history" },
    getFeedsByLanguage: {
      200: "/api/v1/languages/1/feeds",
      400: "/api/v1/languages/en/feeds",
      404: "/api/v1/languages/99/feeds",
    },
    getAggregateLanguageData: { 200: "/api/v1/languages/stats" },
  };
}

test("every documented route answers as documented: statuses, content types and schemas", async () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  const calls = requests();
  for (const [path, { get: op }] of Object.entries(doc.paths)) {
    const byStatus = calls[op.operationId];
    assert.ok(byStatus, `no requests for ${op.operationId}`);
    const template = new RegExp(`^${path.replace(/\{\w+\}/g, "[^/]+")}(?:\\?|$)`);
    for (const [status, url] of Object.entries(byStatus)) {
      assert.ok(template.test(url), `${url} is not a ${path} request`);
      const documented = op.responses[status];
      assert.ok(documented, `${op.operationId} does not document ${status}`);
      const answer = await getJson(service.baseUrl, url);
      assert.equal(String(answer.status), status, `${url}: ${answer.text.slice(0, 200)}`);
      const [mediaType, { schema }] = Object.entries(documented.content ?? {})[0];
      assert.equal(answer.headers.get("content-type"), `${mediaType}; charset=utf-8`, url);
      const validate = ajv.compile(schema);
      assert.ok(validate(answer.json), `${url}: ${JSON.stringify(validate.errors)}`);
      if (status === "200") {
        assert.ok(answer.headers.get("etag"), url);
        const again = await getJson(service.baseUrl, url, { "If-None-Match": answer.headers.get("etag")! });
        assert.equal(again.status, 304, `${url} with its ETag`);
        assert.ok(op.responses["304"], `${op.operationId} does not document 304`);
      }
    }
    // Every documented parameter is one the route reads: a required one missing is refused.
    for (const parameter of op.parameters ?? []) {
      if (parameter.in !== "query" || !parameter.required) continue;
      const r = await getJson(service.baseUrl, path);
      assert.equal(r.status, 400, `${path} without ${parameter.name}`);
    }
  }
});
