/**
 * A warm-up that every connection of the read pool runs before its first query: it reads whole
 * the tables that the start warm-up (postgres-warm.ts) loaded into shared buffers, with
 * statements that depend on no word or argument (spec §4 Latency: warming in general only).
 *
 * Why per connection: without huge pages each new server process maps the shared buffers 4 KB at
 * a time on first touch, so a connection's first statements run slower than the same statements
 * later, every block a hit (bench/NOTES.md, pgwarm31). `pg_prewarm` in `buffer` mode only pins a
 * block already in shared buffers, without reading its memory (bench/NOTES.md, pgfirst31), so the
 * tables are scanned instead. A B-tree has no statement that reads it whole without naming its
 * columns; `pgstatindex` (pgstattuple, contrib) reads every page of one through shared buffers,
 * each page's header and special space, so both halves of its 8 KB get mapped: the walks by an
 * index (popular posts' probes of clicks by post, the clicks order of clicked_posts) then find
 * them mapped (bench/NOTES.md, pgpopular31). Other index types are left as they are.
 *
 * The pool is opened to its full size before the service listens (`fill`), each connection
 * warmed once; one opened later (after an error closed one) warms in the pool's `onConnect` hook,
 * before it is handed out. A warm-up that fails only costs the warm-up, never the connection.
 */
import type pg from "pg";

/** A relation the start warm-up loaded (a table, a materialized view, a TOAST table, or a B-tree). */
export interface WarmTable {
  /** Its name as PostgreSQL prints a `regclass` (quoted, schema-qualified where needed). */
  readonly name: string;
  /** For a B-tree: the `pgstatindex` function to read it with, qualified by the extension's schema. */
  readonly pgstatindex?: string;
}

export class ConnectionWarmUp {
  #tables: readonly WarmTable[] = [];
  /** Bumped when the tables change: a connection warmed for older ones is warmed again. */
  #generation = 0;
  readonly #warmed = new WeakMap<pg.ClientBase, number>();
  /** Milliseconds each warm-up took, in order (for the start line and the benchmark). */
  readonly timings: number[] = [];
  /** Statements run once on each connection after its tables (the store's, with the read settings). */
  readonly #prime: ((client: pg.ClientBase) => Promise<void>) | undefined;

  /**
   * `prime`: run on each connection after its tables are read: what the store answers once in
   * each way so that the connection's first call of that kind finds its statements prepared.
   */
  constructor(prime?: (client: pg.ClientBase) => Promise<void>) {
    this.#prime = prime;
  }

  /** The tables and B-trees every connection reads before its first query (none until the start warm-up). */
  setTables(tables: readonly WarmTable[]): void {
    this.#tables = tables;
    this.#generation++;
  }

  /** The pool's `onConnect` hook (pg-pool awaits it before handing the connection out). */
  readonly onConnect = (client: pg.ClientBase): Promise<void> => this.warm(client);

  /** Reads the tables whole on `client`, once per set of tables; never throws. */
  async warm(client: pg.ClientBase): Promise<void> {
    const generation = this.#generation;
    if (this.#tables.length === 0 || this.#warmed.get(client) === generation) return;
    this.#warmed.set(client, generation);
    const started = performance.now();
    try {
      // Only a sequential scan reads the table's own blocks: count(*) of an all-visible table is
      // otherwise an index-only scan of its smallest index. The read pool's connections turn
      // sequential scans off and stop statements at the query deadline (postgres-store.ts); RESET
      // gives back the values the connection started with. A table locked by a migration or a
      // VACUUM FULL is skipped at once (lock_timeout) instead of holding the connection.
      await client.query(
        "SET enable_seqscan = on; SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off; SET statement_timeout = 0; SET lock_timeout = '100ms'",
      );
      try {
        for (const table of this.#tables) {
          // count(*) reads each page's line pointers: it touches every block, in a ring of a few
          // buffers for a table larger than a quarter of shared buffers (which then was not loaded).
          const read = table.pgstatindex
            ? client.query(`SELECT leaf_pages FROM ${table.pgstatindex}($1::regclass)`, [table.name])
            : client.query(`SELECT count(*) FROM ONLY ${table.name}`);
          await read.catch(() => {});
        }
      } finally {
        await client.query(
          "RESET enable_seqscan; RESET enable_indexscan; RESET enable_indexonlyscan; RESET enable_bitmapscan; RESET statement_timeout; RESET lock_timeout",
        );
      }
      // A first statement on a connection plans it and fills the process's catalogue caches
      // (more than the walk's reads cost: bench/NOTES.md, pgpopular31).
      await this.#prime?.(client);
    } catch {
      // A connection whose warm-up failed (a dropped table, a lost connection) serves cold.
    }
    this.timings.push(performance.now() - started);
  }

  /**
   * Opens `pool` to `size` connections and warms each (those already open too), then hands them
   * back idle: the service's first calls then find every connection open and warm. Returns how
   * many it warmed now.
   */
  async fill(pool: pg.Pool, size: number): Promise<number> {
    const clients: pg.PoolClient[] = [];
    const before = this.timings.length;
    try {
      const opened = await Promise.allSettled(Array.from({ length: size }, () => pool.connect()));
      for (const result of opened) if (result.status === "fulfilled") clients.push(result.value);
      for (const client of clients) await this.warm(client);
    } finally {
      for (const client of clients) client.release();
    }
    return this.timings.length - before;
  }
}
