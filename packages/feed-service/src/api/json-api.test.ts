// The JSON API suite (json-api.suite.ts) on SQLite (postgres-service.test.ts runs it on
// PostgreSQL); then the 503 answers: the problem document and Retry-After of each cause, and a
// real full query queue on SQLite's query threads.
import assert from "node:assert/strict";
import { test } from "node:test";
import { FeedServiceError } from "../errors.js";
import { problemFor } from "../http/problem-details.js";
import { getJson } from "../test-support/operation-clients.js";
import { seedFixture, startTestService } from "../test-support/service-fixture.js";
import { sqliteBackend } from "../test-support/test-backends.js";
import { jsonApiSuite } from "./json-api.suite.js";

jsonApiSuite(sqliteBackend);

test("each error code has its status, Retry-After and detail; anything else is a generic 500", () => {
  const cases: Array<[unknown, number, number | undefined, string]> = [
    [
      new FeedServiceError("FEED_BAD_ARGUMENT", "The limit argument ..."),
      400,
      undefined,
      "The limit argument ...",
    ],
    [new FeedServiceError("FEED_NOT_FOUND", "No feed has id 9."), 404, undefined, "No feed has id 9."],
    [
      new FeedServiceError("FEED_OVERLOADED", "The service is busy; try again in a moment."),
      503,
      1,
      "The service is busy; try again in a moment.",
    ],
    [
      new FeedServiceError("FEED_QUERY_TIMEOUT", "The query ran past the 10 s query deadline ..."),
      503,
      10,
      "The query ran past the 10 s query deadline ...",
    ],
    [
      new FeedServiceError("FEED_STORE_UNAVAILABLE", "connect ECONNREFUSED 10.0.0.5:5432"),
      503,
      5,
      "The database is not answering; try again later.",
    ],
    [new FeedServiceError("FEED_CONFLICT", "duplicate"), 500, undefined, "internal"],
    [new Error("SQLITE_CORRUPT at /var/lib/feeds.db"), 500, undefined, "internal"],
  ];
  for (const [error, status, retryAfter, detail] of cases) {
    const { problem, retryAfter: wait } = problemFor(error);
    assert.equal(problem.status, status, String(error));
    assert.equal(wait, retryAfter, String(error));
    if (detail === "internal") assert.match(problem.detail, /internal error/);
    else assert.equal(problem.detail, detail);
    assert.doesNotMatch(problem.detail, /ECONNREFUSED|10\.0\.0\.5|\/var\/|SQLITE/);
  }
});

test("a full query queue: 503 problem with Retry-After: 1 at once, and the others answered", async () => {
  // One query thread and no room to wait: while one search runs, the next is refused at once.
  const service = await startTestService({ queryLimits: { threads: 1, maxQueued: 0 } });
  try {
    await seedFixture(service.store);
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        getJson(service.baseUrl, `/api/v1/search?q=flex+OR+berlin+OR+n${i}&sortBy=date`),
      ),
    );
    const refused = answers.filter((r) => r.status === 503);
    assert.ok(refused.length > 0, `no call was refused: ${answers.map((r) => r.status).join()}`);
    assert.ok(answers.some((r) => r.status === 200));
    for (const r of refused) {
      assert.equal(r.headers.get("retry-after"), "1");
      assert.equal(r.headers.get("content-type"), "application/problem+json; charset=utf-8");
      assert.deepEqual(r.json, {
        type: "about:blank",
        title: "Service Unavailable",
        status: 503,
        detail: "The service is busy; try again in a moment.",
        code: "FEED_OVERLOADED",
      });
    }
  } finally {
    await service.close();
  }
});
