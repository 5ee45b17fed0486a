/**
 * Warming PostgreSQL at start on a real server: the store's tables, TOAST tables and indexes end
 * up in shared buffers (pg_buffercache shows them); what does not fit the budget is only
 * prefetched; a user who may not create pg_prewarm gets a report that says so.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { incoming, seedCorpus, T0 } from "../../test-support/store-contract/contract-fixture.js";
import { startTestPostgres, type TestPostgres } from "../../test-support/test-postgres-server.js";
import { rows } from "./postgres-connection.js";
import { ConnectionWarmUp, type WarmTable } from "./postgres-connection-warm.js";
import { allClicks } from "./postgres-popular-posts.js";
import { openPostgresStore, type PostgresStore } from "./postgres-store.js";
import { warmPostgres } from "./postgres-warm.js";

let server: TestPostgres;
before(async () => {
  // A server of its own: it creates a role (cluster-wide) and reads shared buffers, which files
  // running beside it on a shared server would fill.
  server = await startTestPostgres({ ownServer: true });
});
after(() => server?.stop());

/**
 * Bytes of the schema's relations (with TOAST) and of those of them held in shared buffers: main
 * forks only, as pg_relation_size counts (a vacuumed table's free space and visibility maps are
 * buffers of other forks).
 */
async function relationBytes(admin: pg.Client, schema: string) {
  const own = `WITH own AS (
      SELECT c.oid, c.reltoastrelid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'i', 'm')
    ), rels AS (
      SELECT oid FROM own UNION SELECT reltoastrelid FROM own WHERE reltoastrelid <> 0
      UNION SELECT i.indexrelid FROM pg_index i JOIN own ON i.indrelid = own.reltoastrelid
    )`;
  const total = await admin.query<{ b: string }>(
    `${own} SELECT sum(pg_relation_size(oid))::text AS b FROM rels`,
    [schema],
  );
  const cached = await admin.query<{ b: string }>(
    `${own} SELECT (count(*) * current_setting('block_size')::int)::text AS b FROM pg_buffercache bc
     JOIN rels ON bc.relfilenode = pg_relation_filenode(rels.oid)
     WHERE bc.reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database())
       AND bc.relforknumber = 0`,
    [schema],
  );
  return { total: Number(total.rows[0]!.b), cached: Number(cached.rows[0]!.b) };
}

describe("postgres cache warm-up", () => {
  let store: PostgresStore;
  let admin: pg.Client;
  before(async () => {
    store = await openPostgresStore({ url: server.url, schema: "warm_a" });
    await seedCorpus(store);
    admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    await admin.query("CREATE EXTENSION IF NOT EXISTS pg_buffercache");
  });
  after(async () => {
    await store?.close();
    await admin?.end();
  });

  it("loads every table, TOAST table and index of the store into shared buffers", async () => {
    const progress: Array<[number, number]> = [];
    const report = await store.warmCache((done, total) => progress.push([done, total]));
    const { total, cached } = await relationBytes(admin, "warm_a");
    assert.ok(total > 0);
    const { connections, ...loaded } = report;
    assert.deepEqual(loaded, { bytes: total, prefetchedBytes: 0 });
    // The read pool was opened to its full size (10), each connection warmed.
    assert.equal(connections?.count, 10);
    assert.equal(cached, total, "every block of the store's relations is in shared buffers");
    assert.deepEqual(progress.at(-1), [total, total]);
    const ext = await admin.query("SELECT 1 FROM pg_extension WHERE extname = 'pg_prewarm'");
    assert.equal(ext.rows.length, 1, "the extension was created");
    // The connection gets its deadline back after the warm-up lifted it (the pool hands out the
    // connection released last first).
    const [deadline] = await rows<{ statement_timeout: string }>(
      store.readSide.pool,
      "SHOW statement_timeout",
    );
    assert.equal(deadline!.statement_timeout, "10s");
  });

  it("reads what sizes searches and walks while it warms, so that the first ones do not wait for it", async () => {
    /**
     * The statements that size searches read by a relevance search through `target`'s read pool,
     * and that of the total of all clicks, which a popular-posts walk reads to pick its probe.
     */
    async function planningReads(target: PostgresStore): Promise<string[]> {
      const pool = target.readSide.pool;
      const query = pool.query;
      const texts: string[] = [];
      pool.query = ((config: string | { text: string }, values?: unknown[]) => {
        texts.push(typeof config === "string" ? config : config.text);
        return (query as (text: string, values?: unknown[]) => Promise<pg.QueryResult>).call(
          pool,
          config as string,
          values,
        );
      }) as typeof pool.query;
      try {
        const page = { query: parseSearchQuery("postgres"), sort: "relevance" as const, offset: 0, limit: 5 };
        await target.searchPosts({ ...page, languageIds: null });
        await allClicks(pool);
      } finally {
        pool.query = query;
      }
      return texts.filter(
        (t) =>
          t.includes("pg_stats") ||
          (t.includes("FROM scope_days") && t.includes("sum(posts)")) ||
          t.includes("FROM feed_click_sums"),
      );
    }
    const cold = await openPostgresStore({ url: server.url, schema: "warm_a" });
    try {
      const reads = await planningReads(cold);
      assert.ok(reads.length > 1, "a store not warmed reads them at its first search");
      assert.ok(
        reads.some((t) => t.includes("FROM feed_click_sums")),
        "and the total of all clicks at its first walk",
      );
    } finally {
      await cold.close();
    }
    await store.warmCache();
    assert.deepEqual(await planningReads(store), []);
  });

  it("hands every read connection the B-trees it loaded, to read with pgstatindex", async () => {
    const told: WarmTable[] = [];
    const connections = new (class extends ConnectionWarmUp {
      override setTables(tables: readonly WarmTable[]): void {
        told.push(...tables);
        super.setTables(tables);
      }
    })();
    const pool = new pg.Pool({ connectionString: server.url, options: "-c search_path=warm_a", max: 1 });
    try {
      await warmPostgres(pool, undefined, undefined, connections);
      const btrees = await rows<{ name: string }>(
        pool,
        `SELECT c.oid::regclass::text AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          JOIN pg_am am ON am.oid = c.relam WHERE n.nspname = 'warm_a' AND c.relkind = 'i' AND am.amname = 'btree'
          AND pg_relation_size(c.oid) > 0`,
      );
      const read = told.filter((t) => t.pgstatindex !== undefined);
      // The schema's own B-trees, and those of their TOAST tables (B-trees too).
      const own = read.filter((t) => !t.name.startsWith("pg_toast."));
      assert.deepEqual(own.map((t) => t.name).sort(), btrees.map((b) => b.name).sort());
      assert.ok(read.length > own.length);
      // Qualified by the extension's schema: the function is found whatever the search path.
      const [ext] = await rows<{ schema: string }>(
        pool,
        "SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pgstattuple'",
      );
      for (const t of read) assert.equal(t.pgstatindex, `${ext!.schema}.pgstatindex`);
      // The tables as before, and no index of another kind (GIN has no pgstatindex).
      assert.ok(told.some((t) => t.name === "posts" && t.pgstatindex === undefined));
      assert.ok(btrees.length > 5 && told.length > read.length);
    } finally {
      await pool.end();
    }
  });

  it("only prefetches what does not fit the budget, and says so", async () => {
    const pool = new pg.Pool({ connectionString: server.url, options: "-c search_path=warm_a", max: 1 });
    try {
      const report = await warmPostgres(pool, undefined, 20_000);
      const { total } = await relationBytes(admin, "warm_a");
      assert.ok(report.bytes > 0 && report.bytes <= 20_000, `loaded ${report.bytes}`);
      assert.equal(report.bytes + (report.prefetchedBytes ?? 0), total);
      assert.match(
        report.skipped ?? "",
        /^[\d,.]+ [KM]B did not fit in the 20 KB allowed of shared_buffers \(128 MB\) and was only prefetched into the OS cache$/,
      );
    } finally {
      await pool.end();
    }
  });

  it("prefetches what does not fit after the loads, the search index and then the posts' heap last", async () => {
    const pool = new pg.Pool({ connectionString: server.url, options: "-c search_path=warm_a", max: 1 });
    // Each pg_prewarm call's mode and relation, in the order the warm-up makes them.
    const calls: { mode: string; oid: string }[] = [];
    pool.on("connect", (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args) => {
        const [text, values] = args as [unknown, unknown];
        const mode =
          typeof text === "string" ? /pg_prewarm\(\$1::oid::regclass, '(\w+)'\)/.exec(text)?.[1] : undefined;
        if (mode !== undefined && Array.isArray(values)) calls.push({ mode, oid: String(values[0]) });
        return query(...args);
      };
    });
    try {
      // A budget the posts' heap and search index do not fit in, nor most of the rest.
      await warmPostgres(pool, undefined, 20_000);
      const names = new Map(
        (
          await admin.query<{ oid: string; name: string }>(
            "SELECT c.oid::text AS oid, c.relname::text AS name FROM pg_class c WHERE c.oid = ANY($1::oid[])",
            [calls.map((c) => c.oid)],
          )
        ).rows.map((r) => [r.oid, r.name]),
      );
      const prefetched = calls.filter((c) => c.mode === "prefetch").map((c) => names.get(c.oid));
      assert.ok(prefetched.length >= 4, `${prefetched.length} relations prefetched`);
      assert.deepEqual(prefetched.slice(-2), ["posts_search_words", "posts"], prefetched.join(", "));
      const firstPrefetch = calls.findIndex((c) => c.mode === "prefetch");
      assert.ok(
        calls.slice(firstPrefetch).every((c) => c.mode === "prefetch"),
        "every load before the first prefetch",
      );
    } finally {
      await pool.end();
    }
  });

  it("loads the index of posts by feed and word last, whatever its size", async () => {
    const pool = new pg.Pool({ connectionString: server.url, options: "-c search_path=warm_a", max: 1 });
    // A table larger than the feed words' index (which is the largest relation of this small
    // corpus): loaded by size alone, the index would push the table out of the budget.
    const feedWordsBytes = Number(
      (await admin.query("SELECT pg_relation_size('warm_a.posts_feed_words') AS n")).rows[0].n,
    );
    await admin.query(
      `CREATE TABLE warm_a.padding AS SELECT repeat('x', 1000) AS x FROM generate_series(1, ${Math.ceil((2 * feedWordsBytes) / 1000)})`,
    );
    try {
      const { total } = await relationBytes(admin, "warm_a");
      const sizes = (
        await admin.query<{ name: string; bytes: number }>(
          `SELECT c.relname AS name, pg_relation_size(c.oid)::float8 AS bytes FROM pg_class c
            JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'warm_a' AND c.relkind IN ('r', 'i')`,
        )
      ).rows;
      const feedWords = sizes.find((r) => r.name === "posts_feed_words")!.bytes;
      // Smaller than some other relation: loaded by size alone, it would push that one out.
      assert.ok(
        sizes.some((r) => r.bytes > feedWords),
        "a larger relation than the feed words' index exists",
      );
      const report = await warmPostgres(pool, undefined, total - feedWords);
      assert.equal(report.bytes, total - feedWords, "every other relation was loaded");
      assert.equal(report.prefetchedBytes, feedWords, "the feed words' index was only prefetched");
    } finally {
      await admin.query("DROP TABLE warm_a.padding");
      await pool.end();
    }
  });

  it("without pg_prewarm and the right to create it, warms nothing and says why", async () => {
    const url = await server.createDatabase("warm_b");
    const setup = new pg.Client({ connectionString: url });
    await setup.connect();
    try {
      await setup.query("CREATE ROLE warm_reader LOGIN PASSWORD 'reader'");
      await setup.query("GRANT ALL ON DATABASE warm_b TO warm_reader");
    } finally {
      await setup.end();
    }
    const reader = await openPostgresStore({
      url: url.replace("postgres:feed-test@", "warm_reader:reader@"),
      schema: "warm_b",
    });
    try {
      const report = await reader.warmCache();
      assert.equal(report.bytes, 0);
      assert.match(
        report.skipped ?? "",
        /^the pg_prewarm extension is not installed and could not be created \(permission denied to create extension "pg_prewarm"\)$/,
      );
    } finally {
      await reader.close();
    }
  });
});

describe("postgres cache warm-up: the walks' first posts when the posts' TOAST does not fit", () => {
  let store: PostgresStore;
  let admin: pg.Client;
  let pool: pg.Pool;
  const POSTS = 400;
  /** Post ids newest first, and the clicked ones most clicked first (ties by id descending). */
  let newest: number[] = [];
  let clicked: number[] = [];
  before(async () => {
    store = await openPostgresStore({ url: server.url, schema: "warm_c" });
    const feed = (await store.addFeed({ feedUrl: "https://walks.test/feed", feedName: "Walks" })).feedId;
    // Vectors of ~600 distinct words each: out of line, in TOAST (a few 2 KB chunks a post).
    let seed = 7;
    const word = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return `w${seed.toString(36)}`;
    };
    const posts = Array.from({ length: POSTS }, (_, i) =>
      incoming(`t${i}`, {
        content: `<p>${Array.from({ length: 600 }, word).join(" ")}</p>`,
        // Stored in an order unlike their dates: the date walk must follow post_date, not ids.
        publishedAt: T0 - ((i * 97) % POSTS) * 60_000,
      }),
    );
    await store.applyFeedUpdate(feed, { fetchState: {}, posts });
    admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    await admin.query("CREATE EXTENSION IF NOT EXISTS pg_buffercache");
    const ids = (
      await admin.query<{ id: number }>("SELECT id FROM warm_c.posts ORDER BY post_date DESC, id DESC")
    ).rows.map((r) => r.id);
    newest = ids;
    // 150 posts clicked, from the middle of the date order, 1 to 4 clicks each: more than the
    // room's first batch.
    const chosen = ids.slice(120, 270);
    for (const [i, id] of chosen.entries()) {
      for (let c = 0; c <= i % 4; c++)
        await store.recordClick(id, `client-${i}-${c}`, T0 + i * 1000, 600_000);
    }
    clicked = (
      await admin.query<{ id: number }>("SELECT id FROM warm_c.clicked_posts ORDER BY clicks DESC, id DESC")
    ).rows.map((r) => r.id);
    assert.equal(clicked.length, 150);
    pool = new pg.Pool({ connectionString: server.url, options: "-c search_path=warm_c", max: 1 });
  });
  after(async () => {
    await pool?.end();
    await store?.close();
    await admin?.end();
  });

  /** The TOAST blocks holding each post's search_vector (pg_column_toast_chunk_id: PostgreSQL 17 and later). */
  async function vectorBlocks(ids: readonly number[]): Promise<Map<number, number[]>> {
    const { rows: found } = await admin.query<{ id: number; blocks: number[] }>(
      `SELECT p.id, array_agg(DISTINCT (t.ctid::text::point)[0]::int) AS blocks
        FROM warm_c.posts p JOIN pg_toast.${await toastName()} t ON t.chunk_id = pg_column_toast_chunk_id(p.search_vector)
        WHERE p.id = ANY($1::int[]) GROUP BY p.id`,
      [ids],
    );
    return new Map(found.map((r) => [r.id, r.blocks]));
  }
  async function toastName(): Promise<string> {
    const { rows: r } = await admin.query<{ name: string }>(
      "SELECT t.relname AS name FROM pg_class p JOIN pg_class t ON t.oid = p.reltoastrelid WHERE p.oid = 'warm_c.posts'::regclass",
    );
    return r[0]!.name;
  }
  /** The posts' TOAST blocks now in shared buffers. */
  async function cachedToastBlocks(): Promise<Set<number>> {
    const { rows: r } = await admin.query<{ b: number }>(
      `SELECT bc.relblocknumber::int AS b FROM pg_buffercache bc
        WHERE bc.relfilenode = pg_relation_filenode('pg_toast.${await toastName()}'::regclass) AND bc.relforknumber = 0
          AND bc.reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    );
    return new Set(r.map((x) => x.b));
  }

  /** The posts' TOAST table's bytes, and those of the schema's relations smaller than it but the feed words' index. */
  async function toastAndSmaller(): Promise<{ toastBytes: number; smaller: number }> {
    const toastBytes = Number(
      (
        await admin.query(
          "SELECT pg_relation_size(reltoastrelid)::float8 AS b FROM pg_class WHERE oid = 'warm_c.posts'::regclass",
        )
      ).rows[0].b,
    );
    const { rows: sizes } = await admin.query<{ name: string; bytes: number }>(
      `SELECT c.relname AS name, pg_relation_size(c.oid)::float8 AS bytes FROM pg_class c
        JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'warm_c' AND c.relkind IN ('r', 'i')`,
    );
    const smaller = sizes
      .filter((r) => r.bytes < toastBytes && r.name !== "posts_feed_words")
      .reduce((sum, r) => sum + r.bytes, 0);
    return { toastBytes, smaller };
  }

  it("fills the room left with the vectors of the most clicked and the newest posts, within the budget", async () => {
    // The relations smaller than the posts' TOAST fit (they are loaded smallest first; the feed
    // words' index last), and about a third of that TOAST besides.
    const { toastBytes, smaller } = await toastAndSmaller();
    const room = Math.floor(toastBytes / 3);
    const budget = smaller + room;
    const blocks = await vectorBlocks([...newest, ...clicked]);
    assert.ok(blocks.size > POSTS * 0.9, "the vectors are out of line");
    // Shared buffers emptied of the schema's pages (pg_buffercache_evict: PostgreSQL 17 and later), as after a restart.
    await admin.query(
      `SELECT count(pg_buffercache_evict(bc.bufferid)) FROM pg_buffercache bc
        WHERE bc.reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    );
    assert.equal((await cachedToastBlocks()).size, 0);
    const progress: number[] = [];
    const report = await warmPostgres(pool, (done) => progress.push(done), budget);
    const cached = await cachedToastBlocks();
    // The relations' last call reports every byte done, and so does each batch after it
    // (serve's progress line, and where a stop request ends the warm-up).
    assert.ok(progress.filter((done) => done === progress.at(-1)).length > 1, "each batch reported");
    const held = (ids: readonly number[]) =>
      ids.filter((id) => (blocks.get(id) ?? []).every((b) => cached.has(b)));
    // The tops of both orders are in: the first batch of each (16 posts at least).
    assert.deepEqual(held(clicked.slice(0, 16)), clicked.slice(0, 16));
    assert.deepEqual(held(newest.slice(0, 16)), newest.slice(0, 16));
    // Not the whole TOAST table: the room was kept, within one batch (16 posts of 4 pages).
    const toastPages = toastBytes / 8192;
    assert.ok(cached.size < toastPages, `${cached.size} of ${toastPages} TOAST pages loaded`);
    assert.ok(report.bytes <= budget + 16 * 4 * 8192, `loaded ${report.bytes} of ${budget}`);
    // The posts deepest in both orders (old, never clicked; the least clicked) were left out.
    assert.ok(held(clicked.slice(-20)).length < 20, "the least clicked posts were not all loaded");
    const middle = newest.slice(-20).filter((id) => !clicked.includes(id));
    assert.ok(held(middle).length < middle.length, "the oldest unclicked posts were not loaded");
    assert.match(
      report.skipped ?? "",
      /of the search vectors the walks by clicks and by date test first was loaded$/,
    );
  });

  it("stops between batches when the progress callback throws (a stop request), leaving no transaction open", async () => {
    const { toastBytes, smaller } = await toastAndSmaller();
    // The relations' last call reports every byte done; so does each batch's after it.
    let atTotal = 0;
    const stopped = new Error("stopped");
    await assert.rejects(
      warmPostgres(
        pool,
        (done, total) => {
          if (done === total && ++atTotal === 2) throw stopped;
        },
        smaller + toastBytes / 3,
      ),
      (error) => error === stopped,
    );
    const [state] = await rows<{ s: string }>(pool, "SELECT current_setting('transaction_read_only') AS s");
    assert.equal(state!.s, "off", "the warm-up's read-only transaction was ended");
  });
});
