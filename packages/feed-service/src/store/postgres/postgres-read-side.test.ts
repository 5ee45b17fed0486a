/**
 * The query deadline and the heavy lane on a real PostgreSQL server: a slow statement (pg_sleep)
 * is stopped by the server at the deadline and reported as FEED_QUERY_TIMEOUT; slow heavy reads
 * never take the connections the cheap reads need; a full heavy queue refuses at once; an idle
 * connection is kept.
 */
import assert from "node:assert/strict";
import { availableParallelism } from "node:os";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { rejectsWith } from "../../test-support/store-contract/contract-fixture.js";
import { startTestPostgres, type TestPostgres } from "../../test-support/test-postgres-server.js";
import { openStore } from "../open-store.js";
import { openPostgresPool, rows, type Sql } from "./postgres-connection.js";
import { openPostgresStore, type PostgresStore, type PostgresStoreOptions } from "./postgres-store.js";

let server: TestPostgres;
before(async () => {
  server = await startTestPostgres();
});
after(() => server?.stop());

async function withStore(
  schema: string,
  options: Omit<PostgresStoreOptions, "url" | "schema">,
  body: (store: PostgresStore) => Promise<void>,
): Promise<void> {
  const store = await openPostgresStore({ url: server.url, schema, ...options });
  try {
    await body(store);
  } finally {
    await store.close();
  }
}

/** A read that takes `seconds` on the server. */
const slow = (seconds: number) => (sql: Sql) => rows(sql, `SELECT pg_sleep(${seconds})`);

describe("postgres read side", () => {
  it("stops a statement at the query deadline and says so, naming the deadline", async () => {
    await withStore("deadline", { queryTimeoutMs: 300 }, async (store) => {
      const started = Date.now();
      await assert.rejects(
        store.readSide.heavy(slow(5)),
        rejectsWith(
          "FEED_QUERY_TIMEOUT",
          /^The query ran longer than the 0\.3-second query deadline and was stopped; narrow it or try again\.$/,
        ),
      );
      assert.ok(Date.now() - started < 3000, `stopped after ${Date.now() - started} ms`);
      await assert.rejects(store.readSide.cheap(slow(5)), rejectsWith("FEED_QUERY_TIMEOUT"));
      const [settings] = await store.readSide.cheap((sql) =>
        rows(
          sql,
          "SELECT current_setting('statement_timeout') AS t, current_setting('work_mem') AS m, current_setting('enable_seqscan') AS s, current_setting('jit') AS j",
        ),
      );
      assert.deepEqual(settings, { t: "300ms", m: "32MB", s: "off", j: "off" });
      // The connection is usable again, and writes (the primary pool) have no deadline.
      assert.deepEqual(
        (await store.languages()).map((l) => l.languageCode),
        ["en", "und"],
      );
      await store.addCategory("Written after a timeout");
      assert.equal((await store.categories()).length, 1);
    });
  });

  it("keeps cheap reads answering while slow heavy reads hold their lane, and refuses a full queue at once", async () => {
    const options = { poolSize: 4, heavyConcurrency: 2, heavyQueueLimit: 1, queryTimeoutMs: 10_000 };
    await withStore("lane", options, async (store) => {
      const running = [store.readSide.heavy(slow(1.5)), store.readSide.heavy(slow(1.5))];
      const queued = store.readSide.heavy(slow(0.1));
      await sleep(100);
      assert.deepEqual(store.readSide.heavyLoad, { running: 2, waiting: 1 });

      const started = Date.now();
      await assert.rejects(
        store.searchPosts({
          limit: 10,
          offset: 0,
          languageIds: null,
          query: parseSearchQuery("anything"),
          sort: "date",
        }),
        rejectsWith("FEED_OVERLOADED", /^The service is busy; try again in a moment\.$/),
      );
      assert.ok(Date.now() - started < 200, "refused at once");

      for (let i = 0; i < 5; i++) {
        const cheapStarted = Date.now();
        await store.categories();
        await store.languages();
        await store.recentPosts({ limit: 20, offset: 0, languageIds: null });
        assert.ok(Date.now() - cheapStarted < 500, `cheap reads took ${Date.now() - cheapStarted} ms`);
      }
      await Promise.all([...running, queued]);
      assert.deepEqual(store.readSide.heavyLoad, { running: 0, waiting: 0 });
    });
  });

  it("gives up waiting for the heavy lane at the query deadline", async () => {
    await withStore("lane_wait", { poolSize: 2, heavyConcurrency: 1, queryTimeoutMs: 400 }, async (store) => {
      const holder = store.readSide.heavy(() => sleep(1500));
      const started = Date.now();
      await assert.rejects(store.aggregateLanguageData(Date.now()), rejectsWith("FEED_QUERY_TIMEOUT"));
      const waited = Date.now() - started;
      assert.ok(waited >= 350 && waited < 1400, `waited ${waited} ms`);
      await holder;
    });
  });

  it("opened as serve opens it, defaults its heavy lane below the pool size whatever the cores", async () => {
    // One fewer than the cores, split among processes, and always below the pool (10): on a
    // machine of 11 cores or more the unbounded default was refused at start.
    const cores = availableParallelism();
    for (const [processes, expected] of [
      [1, Math.max(1, Math.min(cores - 1, 9))],
      [4, Math.max(1, Math.min(Math.floor((cores - 1) / 4), 9))],
    ] as const) {
      const store = await openStore(server.url, { queryLimits: { processes } });
      try {
        assert.equal(
          (store as PostgresStore).readSide.options.heavyConcurrency,
          expected,
          `${processes} processes`,
        );
      } finally {
        await store.close();
      }
    }
    const given = await openStore(server.url, { queryLimits: { processes: 4, threads: 3 } });
    try {
      assert.equal((given as PostgresStore).readSide.options.heavyConcurrency, 3, "--heavy-queries wins");
    } finally {
      await given.close();
    }
  });

  it("refuses options that would leave cheap reads without a connection, naming them", async () => {
    await assert.rejects(
      openPostgresStore({ url: server.url, schema: "bad_options", poolSize: 4, heavyConcurrency: 4 }),
      rejectsWith("FEED_BAD_ARGUMENT", /heavy query concurrency must be below the pool size \(4\).*got 4/),
    );
    await assert.rejects(
      openPostgresStore({ url: server.url, schema: "bad_options", queryTimeoutMs: 0 }),
      rejectsWith("FEED_BAD_ARGUMENT", /query timeout \(ms\) must be a whole number of 1 or more; got 0/),
    );
  });

  it("keeps an idle connection, whose server process has warm caches, past the driver's 10 s", async (t) => {
    const pool = await openPostgresPool({ url: server.url, max: 2 });
    try {
      // The driver closes an idle connection with a timer: mocked, the minute passes at once.
      t.mock.timers.enable({ apis: ["setTimeout"] });
      const pid = async () => (await rows<{ pid: number }>(pool, "SELECT pg_backend_pid() AS pid"))[0]!.pid;
      const before = await pid();
      t.mock.timers.tick(60_000);
      assert.equal(pool.idleCount, 1);
      assert.equal(await pid(), before, "the same server process answers after a minute idle");
    } finally {
      t.mock.timers.reset();
      await pool.end();
    }
  });
});
