/**
 * The per-connection warm-up on a real server: a connection the pool opens reads the warm tables
 * before the pool hands it out (so before its first query), once; the pool is opened to its full
 * size with every connection warmed; the connection gets its settings back; a failing warm-up
 * costs only the warm-up; the store's start warm-up does all this for its read pool.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type pg from "pg";
import { seedCorpus } from "../../test-support/store-contract/contract-fixture.js";
import { startTestPostgres, type TestPostgres } from "../../test-support/test-postgres-server.js";
import { openPostgresPool } from "./postgres-connection.js";
import { ConnectionWarmUp } from "./postgres-connection-warm.js";
import { openPostgresStore } from "./postgres-store.js";

let server: TestPostgres;
before(async () => {
  server = await startTestPostgres();
});
after(() => server?.stop());

/** A pool like the store's read pool, whose new connections log their statements from the start. */
async function loggedPool(schema: string, warmUp: ConnectionWarmUp, max: number) {
  const log = new Map<pg.ClientBase, string[]>();
  const pool = await openPostgresPool({
    url: server.url,
    schema,
    max,
    settings: { enable_seqscan: "off", statement_timeout: 5000 },
    onConnect: (client) => {
      const texts: string[] = [];
      log.set(client, texts);
      const query = client.query.bind(client) as (...args: unknown[]) => Promise<pg.QueryResult>;
      (client as { query: unknown }).query = (config: string | { text: string }, ...rest: unknown[]) => {
        texts.push(typeof config === "string" ? config : config.text);
        return query(config, ...rest);
      };
      return warmUp.onConnect(client);
    },
  });
  return { pool, log };
}

describe("postgres per-connection warm-up", () => {
  before(async () => {
    const { pool } = await loggedPool("connwarm", new ConnectionWarmUp(), 1);
    await pool.query("CREATE TABLE IF NOT EXISTS hot (id int PRIMARY KEY, body text)");
    await pool.query(
      "INSERT INTO hot SELECT g, repeat('x', 200) FROM generate_series(1, 2000) g ON CONFLICT DO NOTHING",
    );
    // All visible: count(*) would then rather read the primary key than the table.
    await pool.query("VACUUM ANALYZE hot");
    await pool.end();
  });

  it("reads the warm tables on a new connection before its first query, once", async () => {
    const warmUp = new ConnectionWarmUp();
    warmUp.setTables([{ name: "hot" }]);
    const { pool, log } = await loggedPool("connwarm", warmUp, 2);
    try {
      const [{ n }] = (await pool.query("SELECT count(*)::int AS n FROM hot")).rows as [{ n: number }];
      assert.equal(n, 2000);
      // One connection was opened by openPostgresPool's own first statement, the second here.
      await Promise.all([pool.query("SELECT 1"), pool.query("SELECT 2")]);
      assert.equal(log.size, 2);
      for (const texts of log.values()) {
        const scan = texts.indexOf("SELECT count(*) FROM ONLY hot");
        assert.ok(scan >= 0, `the warm-up read the table: ${JSON.stringify(texts)}`);
        const first = texts.findIndex((t) => !/^(SET|RESET|SELECT count\(\*\) FROM ONLY)/.test(t));
        assert.ok(first > scan, `before the connection's first query: ${JSON.stringify(texts)}`);
        assert.equal(texts.filter((t) => t === "SELECT count(*) FROM ONLY hot").length, 1);
      }
      assert.equal(warmUp.timings.length, 2);
      // Settings back to what the connection started with.
      const client = await pool.connect();
      try {
        const seq = (await client.query("SHOW enable_seqscan")).rows[0] as { enable_seqscan: string };
        const deadline = (await client.query("SHOW statement_timeout")).rows[0] as {
          statement_timeout: string;
        };
        assert.equal(seq.enable_seqscan, "off");
        assert.equal(deadline.statement_timeout, "5s");
      } finally {
        client.release();
      }
    } finally {
      await pool.end();
    }
  });

  it("reads the table's own blocks, not an index", async () => {
    const { pool: other } = await loggedPool("connwarm", new ConnectionWarmUp(), 1);
    /** Blocks of `hot` read through shared buffers so far, with this connection's own flushed first. */
    const heapBlocks = async (sql: pg.ClientBase | pg.Pool) => {
      await sql.query("SELECT pg_stat_force_next_flush()");
      await sql.query("SELECT 1");
      const { rows } = await sql.query(
        "SELECT (heap_blks_hit + heap_blks_read)::int AS n, (SELECT relpages FROM pg_class WHERE oid = 'hot'::regclass) AS pages FROM pg_statio_user_tables WHERE schemaname = 'connwarm' AND relname = 'hot'",
      );
      return rows[0] as { n: number; pages: number };
    };
    try {
      const before = await heapBlocks(other);
      assert.ok(before.pages > 10);
      const warmUp = new ConnectionWarmUp();
      warmUp.setTables([{ name: "hot" }]);
      const { pool } = await loggedPool("connwarm", warmUp, 1);
      try {
        const client = await pool.connect();
        try {
          await heapBlocks(client);
        } finally {
          client.release();
        }
        const after = await heapBlocks(other);
        assert.ok(after.n - before.n >= before.pages, `read ${after.n - before.n} of ${before.pages} blocks`);
      } finally {
        await pool.end();
      }
    } finally {
      await other.end();
    }
  });

  it("reads every page of a B-tree it is given, through pgstatindex", async () => {
    const { pool: other } = await loggedPool("connwarm", new ConnectionWarmUp(), 1);
    /** Blocks of `hot_pkey` read through shared buffers so far, with this connection's own flushed first. */
    const indexBlocks = async (sql: pg.ClientBase | pg.Pool) => {
      await sql.query("SELECT pg_stat_force_next_flush()");
      await sql.query("SELECT 1");
      const { rows } = await sql.query(
        "SELECT (idx_blks_hit + idx_blks_read)::int AS n, (SELECT relpages FROM pg_class WHERE oid = 'hot_pkey'::regclass) AS pages FROM pg_statio_user_indexes WHERE schemaname = 'connwarm' AND indexrelname = 'hot_pkey'",
      );
      return rows[0] as { n: number; pages: number };
    };
    try {
      await other.query("CREATE EXTENSION IF NOT EXISTS pgstattuple");
      const { rows } = await other.query(
        "SELECT quote_ident(n.nspname) || '.pgstatindex' AS f FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pgstattuple'",
      );
      const before = await indexBlocks(other);
      assert.ok(before.pages > 3);
      const warmUp = new ConnectionWarmUp();
      warmUp.setTables([{ name: "hot_pkey", pgstatindex: (rows[0] as { f: string }).f }]);
      const { pool, log } = await loggedPool("connwarm", warmUp, 1);
      try {
        const client = await pool.connect();
        try {
          await indexBlocks(client);
        } finally {
          client.release();
        }
        const after = await indexBlocks(other);
        // Every page but the metapage (pgstatindex starts at block 1).
        assert.ok(
          after.n - before.n >= before.pages - 1,
          `read ${after.n - before.n} of ${before.pages} blocks`,
        );
        const [texts] = [...log.values()];
        assert.ok(
          !texts!.some((t) => t.includes("FROM ONLY hot_pkey")),
          "an index is not counted as a table",
        );
      } finally {
        await pool.end();
      }
    } finally {
      await other.end();
    }
  });

  it("skips a table another session holds locked, instead of waiting for it", async () => {
    const { pool: locker } = await loggedPool("connwarm", new ConnectionWarmUp(), 1);
    const holder = await locker.connect();
    try {
      await holder.query("BEGIN");
      await holder.query("LOCK TABLE hot IN ACCESS EXCLUSIVE MODE");
      const warmUp = new ConnectionWarmUp();
      warmUp.setTables([{ name: "hot" }]);
      const { pool } = await loggedPool("connwarm", warmUp, 1);
      try {
        const started = performance.now();
        const [{ n }] = (await pool.query("SELECT 1 AS n")).rows as [{ n: number }];
        assert.equal(n, 1);
        assert.ok(performance.now() - started < 5000, "the connection was handed out without waiting");
        const lock = (await pool.query("SHOW lock_timeout")).rows[0] as { lock_timeout: string };
        assert.equal(lock.lock_timeout, "0");
      } finally {
        await pool.end();
      }
    } finally {
      await holder.query("ROLLBACK");
      holder.release();
      await locker.end();
    }
  });

  it("opens the pool to its full size with every connection warmed, and warms again for new tables", async () => {
    const warmUp = new ConnectionWarmUp();
    const { pool, log } = await loggedPool("connwarm", warmUp, 4);
    try {
      // Opened before there was anything to warm: its first connection read nothing.
      assert.equal(warmUp.timings.length, 0);
      warmUp.setTables([{ name: "hot" }]);
      await warmUp.fill(pool, 4);
      assert.equal(pool.totalCount, 4);
      assert.equal(pool.idleCount, 4);
      assert.equal(warmUp.timings.length, 4);
      assert.equal(log.size, 4);
      for (const texts of log.values()) assert.ok(texts.includes("SELECT count(*) FROM ONLY hot"));
      await warmUp.fill(pool, 4);
      assert.equal(warmUp.timings.length, 4, "each connection warms once per set of tables");
    } finally {
      await pool.end();
    }
  });

  it("hands out a connection whose warm-up failed, with its settings back", async () => {
    const warmUp = new ConnectionWarmUp();
    warmUp.setTables([{ name: "no_such_table" }, { name: "hot" }]);
    const { pool, log } = await loggedPool("connwarm", warmUp, 1);
    try {
      const [{ n }] = (await pool.query("SELECT count(*)::int AS n FROM hot")).rows as [{ n: number }];
      assert.equal(n, 2000);
      const [texts] = [...log.values()];
      assert.ok(texts!.includes("SELECT count(*) FROM ONLY hot"), "the tables after a failing one are read");
      const seq = (await pool.query("SHOW enable_seqscan")).rows[0] as { enable_seqscan: string };
      assert.equal(seq.enable_seqscan, "off");
    } finally {
      await pool.end();
    }
  });

  it("the store's start warm-up opens its read pool to full size, each connection warm", async () => {
    const store = await openPostgresStore({ url: server.url, schema: "connwarm_store", poolSize: 3 });
    try {
      await seedCorpus(store);
      // Clicks over a few days, for popular posts to have a window to answer.
      const ids = (await store.readSide.pool.query("SELECT id FROM posts ORDER BY id LIMIT 5"))
        .rows as Array<{
        id: number;
      }>;
      await store.insertClicks(
        ids.flatMap(({ id }, i) =>
          Array.from({ length: i + 1 }, (_, k) => ({
            postId: id,
            clientHash: `c${k}`,
            at: Date.now() - k * 86_400_000,
          })),
        ),
      );
      const report = await store.warmCache();
      assert.ok(report.bytes > 0);
      const pool = store.readSide.pool;
      assert.equal(pool.totalCount, 3);
      assert.equal(pool.idleCount, 3);
      // The hook the pool runs on a new connection is the store's warm-up.
      assert.equal(typeof (pool.options as { onConnect?: unknown }).onConnect, "function");
      // Every connection, not only one, answered popular posts once: their statements are
      // prepared on each (a first call would otherwise plan them and fill the catalogue caches).
      const clients = await Promise.all([pool.connect(), pool.connect(), pool.connect()]);
      try {
        for (const client of clients) {
          const { rows } = await client.query(
            "SELECT statement FROM pg_prepared_statements WHERE statement LIKE '%FROM clicks WHERE clicked_at >= $1 GROUP BY post_id%'",
          );
          assert.ok(rows.length > 0, "the popular posts' count is prepared on every read connection");
          const levels = (
            await client.query(
              "SELECT statement FROM pg_prepared_statements WHERE statement LIKE '%FROM refreshed_click_levels_state st%'",
            )
          ).rows;
          assert.ok(
            levels.length > 0,
            "the popular posts' ranking by click levels is prepared on every read connection",
          );
        }
      } finally {
        for (const client of clients) client.release();
      }
    } finally {
      await store.close();
    }
  });
});
