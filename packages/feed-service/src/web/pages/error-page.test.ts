import assert from "node:assert/strict";
import { test } from "node:test";
import Fastify from "fastify";
import { FeedServiceError, type FeedServiceErrorCode } from "../../errors.js";
import type { OperationRunner } from "../../operations/operation-runner.js";
import { createWebPages } from "../web-pages.js";
import { pages } from "./page-table.js";

/**
 * A runner whose every call fails as given: the overloaded query lane, a query past its deadline or
 * a database that is down cannot be produced on demand by a real store in a unit test, and the
 * point here is only how the page adapter maps each failure.
 */
function failingRunner(error: unknown): OperationRunner {
  const fail = async (): Promise<never> => {
    throw error;
  };
  return {
    specs: [],
    call: fail,
    isPure: () => false,
    operation: () => undefined,
    pageReads: { countSearchMatches: fail, failingFeeds: fail, alsoIn: fail },
  };
}

async function pageFor(error: unknown, logged: string[] = []) {
  const app = Fastify();
  const web = createWebPages({ runner: failingRunner(error), logError: (m) => logged.push(m) });
  app.get("/", web.page(pages.recent));
  const response = await app.inject({ method: "GET", url: "/" });
  await app.close();
  return response;
}

test("overload, a query past its deadline and a database down give a 503 page with Retry-After", async () => {
  const cases: Array<[FeedServiceErrorCode, string, string]> = [
    ["FEED_OVERLOADED", "Too many queries are waiting; try again shortly.", "1"],
    ["FEED_QUERY_TIMEOUT", "The query ran past the 10 s deadline and was stopped.", "10"],
    ["FEED_STORE_UNAVAILABLE", "connect ECONNREFUSED 10.0.0.5:5432", "5"],
  ];
  for (const [code, message, retryAfter] of cases) {
    const response = await pageFor(new FeedServiceError(code, message));
    assert.equal(response.statusCode, 503, code);
    assert.equal(response.headers["retry-after"], retryAfter, code);
    assert.equal(response.headers["cache-control"], "no-store");
    assert.match(response.body, /<h1>Busy right now<\/h1>/);
    assert.match(response.body, new RegExp(`Please try again in ${retryAfter} seconds?\\.`));
    if (code === "FEED_STORE_UNAVAILABLE") {
      // The driver's text names a host: the page says what the SOAP fault says instead.
      assert.doesNotMatch(response.body, /10\.0\.0\.5|ECONNREFUSED/);
      assert.match(response.body, /The database is not answering; try again later\./);
    } else assert.ok(response.body.includes(message), code);
  }
});

test("any other failure is a generic 500 page: no message, stack or path reaches it, the log gets it", async () => {
  const logged: string[] = [];
  const error = new Error("SQLITE_CORRUPT at /var/lib/feeds/data/feeds.db: SELECT * FROM posts");
  const response = await pageFor(error, logged);
  assert.equal(response.statusCode, 500);
  assert.match(response.body, /<h1>Something went wrong<\/h1>/);
  assert.doesNotMatch(response.body, /SQLITE|\/var\/lib|SELECT|at .*\.ts:\d+/);
  assert.equal(response.headers["retry-after"], undefined);
  assert.match(logged.join("\n"), /page \/ failed: SQLITE_CORRUPT/);
  const conflict = await pageFor(new FeedServiceError("FEED_CONFLICT", "A feed with URL https://x/ exists."));
  assert.equal(conflict.statusCode, 500);
});
