// `GET /metrics` (spec §5.4) on a real server after real traffic: the counters each kind of request
// moves, the process's own figures, the Prometheus text format; refused (404) to an address the
// allow list does not name; the allow list on its own.
import assert from "node:assert/strict";
import { test } from "node:test";
import { FeedServiceError } from "../errors.js";
import { createFeedServer } from "../http/feed-server.js";
import { createOperationRunner } from "../operations/operation-runner.js";
import { parseSearchQuery } from "../search/parse-search-query.js";
import { openStore } from "../store/open-store.js";
import { forcedCollections } from "../test-support/forced-collections.js";
import { fixtureNow, seedFixture, startTestService } from "../test-support/service-fixture.js";
import { callOperation } from "../test-support/soap-test-client.js";
import { postgresBackend, sqliteBackend } from "../test-support/test-backends.js";
import { parseMetricsAllow } from "./metrics-access.js";

/** The value of one series in Prometheus text, or undefined when the series is absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const wanted = Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`));
    if (wanted) return Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return undefined;
}

test("after traffic: requests by route and status, SOAP calls by operation and fault, query times, cache, process", async () => {
  const service = await startTestService();
  try {
    const fx = await seedFixture(service.store);
    await service.store.applyFeedUpdate(fx.feeds.zeta, {
      posts: [],
      fetchState: { lastFetchedAt: Date.now(), errorCount: 2, lastError: "fetch: HTTP 500" },
    });
    for (let i = 0; i < 4; i++)
      assert.equal((await fetch(`${service.baseUrl}/api/v1/posts?limit=2`)).status, 200);
    assert.equal((await fetch(`${service.baseUrl}/api/v1/posts?limit=-1`)).status, 400);
    assert.equal((await fetch(`${service.baseUrl}/feeds/recent.atom`)).status, 200);
    assert.equal((await fetch(`${service.baseUrl}/no-such-page`)).status, 404);
    assert.equal((await callOperation(service.baseUrl, "getCategories")).status, 200);
    assert.equal((await callOperation(service.baseUrl, "getCategories")).status, 200);
    const fault = await callOperation(service.baseUrl, "getPostsByFeed", { limit: 1, offset: 0, feedId: 99 });
    assert.equal(fault.fault?.code, "soapenv:Server.userException");
    assert.equal((await callOperation(service.baseUrl, "dropTables")).fault?.code, "soapenv:Client");

    const res = await fetch(`${service.baseUrl}/metrics`);
    assert.equal(res.status, 200);
    assert.match(String(res.headers.get("content-type")), /^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    const http = (route: string, status: string, method = "GET") =>
      sample(text, "feed_service_http_requests_total", { route, method, status });
    assert.equal(http("/api/v1/posts", "200"), 4);
    assert.equal(http("/api/v1/posts", "400"), 1);
    assert.equal(http("/feeds/recent.:format", "200"), 1);
    assert.equal(http("unmatched", "404"), 1);
    assert.equal(http("/webservices/FeedAggregator", "200", "POST"), 2);
    assert.equal(http("/webservices/FeedAggregator", "500", "POST"), 2);
    assert.equal(
      sample(text, "feed_service_http_request_duration_seconds_count", {
        route: "/api/v1/posts",
        status: "200",
      }),
      4,
    );
    const soap = (operation: string, fault: string) =>
      sample(text, "feed_service_soap_calls_total", { operation, fault });
    assert.equal(soap("getCategories", "none"), 2);
    assert.equal(soap("getPostsByFeed", "server"), 1);
    assert.equal(soap("unknown", "client"), 1);
    const queries = (operation: string, outcome: string) =>
      sample(text, "feed_service_query_duration_seconds_count", { operation, outcome });
    // An answer is kept from its second request: the third and fourth identical API calls come
    // from the answer cache, without a query; both getCategories calls are queried.
    assert.equal(queries("getMostRecentPosts", "ok"), 3, "two API queries and one for the feed");
    assert.equal(queries("getMostRecentPosts", "bad_argument"), 1);
    assert.equal(queries("getPostsByFeed", "not_found"), 1);
    assert.equal(sample(text, "feed_service_answer_cache_lookups_total", { result: "hit" }), 2);
    assert.ok((sample(text, "feed_service_answer_cache_lookups_total", { result: "miss" }) ?? 0) >= 4);
    assert.equal(sample(text, "feed_service_broken_feeds"), 1);
    assert.equal(sample(text, "feed_service_feed_refreshes_total", { result: "failed" }), 0);
    assert.equal(sample(text, "feed_service_feed_refreshes_total", { result: "claim_lost" }), 0);
    assert.equal(sample(text, "feed_service_posts_ingested_total"), 0);
    // The process's figures under the standard names dashboards query, without the prefix.
    assert.ok((sample(text, "process_resident_memory_bytes") ?? 0) > 0);
    assert.ok((sample(text, "process_cpu_seconds_total") ?? 0) > 0);
    assert.ok(sample(text, "process_start_time_seconds") !== undefined);
    assert.ok(sample(text, "nodejs_eventloop_lag_seconds") !== undefined);
    assert.ok(sample(text, "nodejs_heap_size_used_bytes") !== undefined);
    assert.doesNotMatch(text, /^feed_service_(process|nodejs)_/m);
  } finally {
    await service.close();
  }
});

test("database connections: the query threads' and the writer's, busy and waiting", async () => {
  // As serve opens SQLite: one catalog thread, one heavy thread (here), the writer's connection.
  const service = await startTestService({ queryLimits: { threads: 1 } });
  try {
    await seedFixture(service.store);
    assert.equal((await fetch(`${service.baseUrl}/api/v1/categories`)).status, 200);
    const text = await (await fetch(`${service.baseUrl}/metrics`)).text();
    assert.equal(sample(text, "feed_service_database_connections", { state: "open" }), 3);
    assert.equal(sample(text, "feed_service_database_connections", { state: "busy" }), 0);
    assert.equal(sample(text, "feed_service_database_connections", { state: "waiting" }), 0);
  } finally {
    await service.close();
  }
});

test("database connections on PostgreSQL: both pools' connections, at most the scrape's own busy", async () => {
  const backend = postgresBackend();
  try {
    const service = await startTestService({ backend });
    try {
      await seedFixture(service.store);
      assert.equal((await fetch(`${service.baseUrl}/api/v1/posts`)).status, 200);
      const text = await (await fetch(`${service.baseUrl}/metrics`)).text();
      assert.ok((sample(text, "feed_service_database_connections", { state: "open" }) ?? 0) >= 2);
      // The broken-feeds gauge reads the database during the same scrape: that one query may be
      // running or still waiting for its connection; nothing else is.
      const busy = sample(text, "feed_service_database_connections", { state: "busy" });
      const waiting = sample(text, "feed_service_database_connections", { state: "waiting" });
      assert.ok(
        busy !== undefined && waiting !== undefined && busy + waiting <= 1,
        `${busy} busy, ${waiting} waiting`,
      );
    } finally {
      await service.close();
    }
  } finally {
    await backend.stop();
  }
});

test("an address outside the allow list gets 404, as for a path that does not exist", async () => {
  const service = await startTestService({ metricsAllow: "10.0.0.0/8, fd00::/8" });
  try {
    const res = await fetch(`${service.baseUrl}/metrics`);
    assert.equal(res.status, 404);
    assert.equal(await res.text(), "Not found.\n");
  } finally {
    await service.close();
  }
});

test("the allow list: addresses and CIDR blocks of both families, IPv4-mapped clients, and named mistakes", () => {
  const allow = parseMetricsAllow("10.0.0.0/8, 192.168.1.7 ,fd00::/8, ::1");
  for (const address of ["10.1.2.3", "::ffff:10.9.9.9", "192.168.1.7", "fd12::1", "::1"]) {
    assert.equal(allow.allows(address), true, address);
  }
  for (const address of ["11.0.0.1", "192.168.1.8", "fe80::1", "127.0.0.1", undefined, "junk"]) {
    assert.equal(allow.allows(address), false, String(address));
  }
  const loopback = parseMetricsAllow("127.0.0.0/8,::1/128");
  assert.equal(loopback.allows("::ffff:127.0.0.1"), true);
  for (const bad of ["10.0.0.0/33", "localhost", "10.0.0.0/8/1", "::1/129", "1.2.3.4/x"]) {
    assert.throws(
      () => parseMetricsAllow(bad),
      (e: unknown) =>
        e instanceof FeedServiceError &&
        e.code === "FEED_BAD_ARGUMENT" &&
        e.message.includes(JSON.stringify(bad)) &&
        /CIDR blocks such as 10\.0\.0\.0\/8/.test(e.message),
      bad,
    );
  }
});

/** A service over a new SQLite database holding the contract fixture (the two prime tests). */
async function seededService() {
  const database = await sqliteBackend.newDatabase();
  const store = await openStore(database.location, { queryLimits: {} });
  const service = createFeedServer({
    store,
    runner: createOperationRunner({ store, parseSearch: parseSearchQuery, now: () => fixtureNow }),
    now: () => fixtureNow,
    logError: () => {},
  });
  try {
    await seedFixture(store);
  } catch (error) {
    await service.close();
    await store.close();
    database.drop();
    throw error;
  }
  return { database, store, service };
}

test("prime ends with one full collection of the request thread's heap", async () => {
  const { database, store, service } = await seededService();
  try {
    assert.equal(await forcedCollections(() => service.prime()), 1);
  } finally {
    await service.close();
    await store.close();
    database.drop();
  }
});

test("prime answers a few read-only requests over a socket of its own, all of them 200, and writes nothing", async () => {
  const { database, store, service } = await seededService();
  try {
    await service.prime();
    const address = await service.listen(0, "127.0.0.1");
    const text = await (await fetch(`http://127.0.0.1:${address.port}/metrics`)).text();
    const http = (route: string, status: string, method = "GET") =>
      sample(text, "feed_service_http_requests_total", { route, method, status });
    assert.equal(http("/webservices/FeedAggregator", "200", "POST"), 7);
    assert.equal(sample(text, "feed_service_soap_calls_total", { operation: "search", fault: "none" }), 3);
    assert.equal(http("/api/v1/posts", "200"), 1);
    assert.equal(http("/", "200"), 1);
    assert.equal(
      sample(text, "feed_service_soap_calls_total", { operation: "getCategories", fault: "none" }),
      1,
    );
    assert.equal(sample(text, "feed_service_soap_calls_total", { operation: "getFeeds", fault: "none" }), 1);
    assert.equal(
      sample(text, "feed_service_soap_calls_total", { operation: "getMostRecentPosts", fault: "none" }),
      1,
    );
    assert.equal(
      sample(text, "feed_service_soap_calls_total", { operation: "getMostPopularPosts", fault: "none" }),
      1,
    );
    assert.equal(sample(text, "feed_service_http_requests_total", { status: "500" }), undefined);
    assert.deepEqual(await store.searchHistory(20), [], "priming recorded a search");
  } finally {
    await service.close();
    await store.close();
    database.drop();
  }
});
