/**
 * Warms PostgreSQL's shared buffers at start with the `pg_prewarm` extension (shipped with
 * PostgreSQL as a contrib module): the store's tables, their TOAST tables and their indexes,
 * smallest first, as many as fit in nine tenths of `shared_buffers`; the rest are only prefetched
 * into the OS page cache. A first relevance search reads many heap and TOAST pages, slow from
 * empty buffers even with every file in the OS cache (figures in bench/NOTES.md).
 *
 * The extension is created when missing (it needs a user allowed to; a DBA can run
 * `CREATE EXTENSION pg_prewarm` once instead); without it, nothing is warmed and the report says why.
 */
import type pg from "pg";
import { megabytes, type WarmProgress, type WarmReport } from "../cache-warm.js";
import type { ConnectionWarmUp } from "./postgres-connection-warm.js";

interface Relation {
  oid: string;
  name: string;
  /** `pg_class.relkind`: r table, m materialized view, t TOAST table, i index. */
  kind: string;
  bytes: number;
}

/** The store's relations in the connection's schema, with their TOAST tables and TOAST indexes. */
const relationsSql = `
  WITH own AS (
    SELECT c.oid, c.reltoastrelid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'i', 'm')
  ), rels AS (
    SELECT oid FROM own
    UNION SELECT reltoastrelid FROM own WHERE reltoastrelid <> 0
    UNION SELECT i.indexrelid FROM pg_index i JOIN own ON i.indrelid = own.reltoastrelid
  )
  SELECT rels.oid::text AS oid, rels.oid::regclass::text AS name, c.relkind::text AS kind,
    pg_relation_size(rels.oid)::float8 AS bytes
  FROM rels JOIN pg_class c ON c.oid = rels.oid ORDER BY 4, 1`;

async function ensureExtension(client: pg.PoolClient): Promise<string | undefined> {
  const { rows } = await client.query("SELECT 1 FROM pg_extension WHERE extname = 'pg_prewarm'");
  if (rows.length > 0) return undefined;
  try {
    await client.query("CREATE EXTENSION IF NOT EXISTS pg_prewarm");
    return undefined;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return `the pg_prewarm extension is not installed and could not be created (${message})`;
  }
}

/**
 * @example
 * const report = await warmPostgres(readPool, (done, total) => console.log(done, total));
 */
export async function warmPostgres(
  pool: pg.Pool,
  onProgress?: WarmProgress,
  /** Bytes to load into shared buffers at most (default: nine tenths of `shared_buffers`). */
  budgetBytes?: number,
  /** Told the tables loaded, for every connection of the pool to read them (postgres-connection-warm.ts). */
  connections?: ConnectionWarmUp,
): Promise<WarmReport> {
  const client = await pool.connect();
  try {
    const missing = await ensureExtension(client);
    if (missing !== undefined) return { bytes: 0, skipped: missing };
    const relations = (await client.query<Relation>(relationsSql)).rows.filter((r) => r.bytes > 0);
    const [{ buffers }] = (
      await client.query<{ buffers: number }>(
        "SELECT pg_size_bytes(current_setting('shared_buffers'))::float8 AS buffers",
      )
    ).rows as [{ buffers: number }];
    const budget = budgetBytes ?? buffers * 0.9;
    const total = relations.reduce((sum, r) => sum + r.bytes, 0);
    let loaded = 0;
    let prefetched = 0;
    const loadedTables: Array<{ name: string }> = [];
    // The pool's connections stop a statement at the query deadline; a large table may take longer.
    await client.query("SET statement_timeout = 0");
    try {
      for (const relation of relations) {
        const fits = loaded + relation.bytes <= budget;
        await client.query("SELECT pg_prewarm($1::oid::regclass, $2)", [
          relation.oid,
          fits ? "buffer" : "prefetch",
        ]);
        if (fits) loaded += relation.bytes;
        else prefetched += relation.bytes;
        if (fits && relation.kind !== "i") loadedTables.push({ name: relation.name });
        onProgress?.(loaded + prefetched, total);
      }
    } finally {
      await client.query("RESET statement_timeout");
    }
    connections?.setTables(loadedTables);
    return {
      bytes: loaded,
      prefetchedBytes: prefetched,
      ...(prefetched > 0
        ? {
            skipped: `${megabytes(prefetched)} did not fit in the ${megabytes(budget)} allowed of shared_buffers (${megabytes(buffers)}) and was only prefetched into the OS cache`,
          }
        : {}),
    };
  } finally {
    client.release();
  }
}
