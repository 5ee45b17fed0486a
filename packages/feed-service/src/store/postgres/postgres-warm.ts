/**
 * Warms PostgreSQL's shared buffers at start with the `pg_prewarm` extension (shipped with
 * PostgreSQL as a contrib module): the store's tables, their TOAST tables and their indexes,
 * smallest first, as many as fit in nine tenths of `shared_buffers`; the rest are only prefetched
 * into the OS page cache, after every load, the posts' full-text index and then the posts' heap
 * last (an OS cache too small for them all keeps what was read last: what every search reads a
 * page per match of). The index of posts by feed and word comes last whatever its size: only
 * `feed:` searches with words read it, a few posting lists each, while every search reads the
 * others (loaded by size, it pushed the posts' TOAST out of the buffers: bench/NOTES.md). A first relevance search reads many heap and TOAST pages, slow from
 * empty buffers even with every file in the OS cache (figures in bench/NOTES.md). When the posts'
 * TOAST table does not fit whole, the room left is filled with the part of it the walks test
 * first (postgres-walk-warm.ts).
 *
 * The extension is created when missing (it needs a user allowed to; a DBA can run
 * `CREATE EXTENSION pg_prewarm` once instead); without it, nothing is warmed and the report says why.
 * So is `pgstattuple` (contrib too), whose `pgstatindex` each read connection reads its B-trees
 * with; without it, they are left out of that warm-up only.
 */
import type pg from "pg";
import { megabytes, type WarmProgress, type WarmReport } from "../cache-warm.js";
import type { ConnectionWarmUp, WarmTable } from "./postgres-connection-warm.js";
import { FEED_WORDS_INDEX } from "./postgres-feed-words.js";
import { SEARCH_INDEX } from "./postgres-gin-pending.js";
import { warmWalkedVectors } from "./postgres-walk-warm.js";

interface Relation {
  oid: string;
  name: string;
  /** `pg_class.relkind`: r table, m materialized view, t TOAST table, i index. */
  kind: string;
  /** Its access method: `btree`, `gin`, ... for an index (`heap` for a table; empty for a view). */
  method: string;
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
    coalesce(am.amname::text, '') AS method, pg_relation_size(rels.oid)::float8 AS bytes
  FROM rels JOIN pg_class c ON c.oid = rels.oid LEFT JOIN pg_am am ON am.oid = c.relam ORDER BY 5, 1`;

async function ensureExtension(client: pg.PoolClient, name: string): Promise<string | undefined> {
  const { rows } = await client.query("SELECT 1 FROM pg_extension WHERE extname = $1", [name]);
  if (rows.length > 0) return undefined;
  try {
    await client.query(`CREATE EXTENSION IF NOT EXISTS ${name}`);
    return undefined;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return `the ${name} extension is not installed and could not be created (${message})`;
  }
}

/** An extension's function, qualified by the schema it was created in (not always on the search path). */
async function functionOf(client: pg.PoolClient, extension: string, name: string): Promise<string> {
  const { rows } = await client.query<{ f: string }>(
    "SELECT quote_ident(n.nspname) || '.' || quote_ident($2) AS f FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = $1",
    [extension, name],
  );
  return rows[0]?.f ?? name;
}

/** Whether a relation is warmed after all the others (the regclass name may carry its schema). */
function loadedLast(relation: Relation): boolean {
  return relation.kind === "i" && relation.name.split(".").at(-1) === FEED_WORDS_INDEX;
}

/**
 * Where a relation comes among those only prefetched: 0 for most (in size order), then the posts'
 * full-text index (1), then the posts table (2).
 */
function prefetchedLast(relation: Relation): number {
  const name = relation.name.split(".").at(-1);
  if (relation.kind === "r" && name === "posts") return 2;
  return relation.kind === "i" && name === SEARCH_INDEX ? 1 : 0;
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
  /** Told the tables and B-trees loaded, for every connection of the pool to read them (postgres-connection-warm.ts). */
  connections?: ConnectionWarmUp,
): Promise<WarmReport> {
  const client = await pool.connect();
  try {
    const missing = await ensureExtension(client, "pg_prewarm");
    if (missing !== undefined) return { bytes: 0, skipped: missing };
    // Qualified: the extension may live in another schema than the store's (not on its search path).
    const prewarm = await functionOf(client, "pg_prewarm", "pg_prewarm");
    // pgstatindex reads a B-tree whole, for each read connection (postgres-connection-warm.ts);
    // without the extension those indexes are only left out of that warm-up.
    const pgstatindex =
      connections !== undefined && (await ensureExtension(client, "pgstattuple")) === undefined
        ? await functionOf(client, "pgstattuple", "pgstatindex")
        : undefined;
    const relations = (await client.query<Relation>(relationsSql)).rows.filter((r) => r.bytes > 0);
    // Sorted by size in SQL; a stable sort moves the feed words' index to the end.
    relations.sort((a, b) => Number(loadedLast(a)) - Number(loadedLast(b)));
    const [{ buffers }] = (
      await client.query<{ buffers: number }>(
        "SELECT pg_size_bytes(current_setting('shared_buffers'))::float8 AS buffers",
      )
    ).rows as [{ buffers: number }];
    const budget = budgetBytes ?? buffers * 0.9;
    const total = relations.reduce((sum, r) => sum + r.bytes, 0);
    let loaded = 0;
    let prefetched = 0;
    const loadedTables: WarmTable[] = [];
    const prefetchedOids = new Set<string>();
    /** Bytes of relations loaded in part (postgres-walk-warm.ts). */
    let walked = 0;
    // The pool's connections stop a statement at the query deadline; a large table may take longer.
    await client.query("SET statement_timeout = 0");
    try {
      const toPrefetch: Relation[] = [];
      for (const relation of relations) {
        if (loaded + relation.bytes > budget) {
          toPrefetch.push(relation);
          continue;
        }
        await client.query(`SELECT ${prewarm}($1::oid::regclass, 'buffer')`, [relation.oid]);
        loaded += relation.bytes;
        if (relation.kind !== "i") loadedTables.push({ name: relation.name });
        else if (pgstatindex && relation.method === "btree") {
          loadedTables.push({ name: relation.name, pgstatindex });
        }
        onProgress?.(loaded + prefetched, total);
      }
      // In size order as loaded, but the posts' full-text index and then the posts' heap last: an
      // OS cache too small for them all keeps what was read last, and those two are what every
      // search reads a page per match of (a ranked page reads thousands of heap pages).
      toPrefetch.sort((a, b) => prefetchedLast(a) - prefetchedLast(b));
      for (const relation of toPrefetch) {
        await client.query(`SELECT ${prewarm}($1::oid::regclass, 'prefetch')`, [relation.oid]);
        prefetched += relation.bytes;
        prefetchedOids.add(relation.oid);
        onProgress?.(loaded + prefetched, total);
      }
      // The posts' TOAST table only prefetched: the room left goes to what the walks test first
      // (postgres-walk-warm.ts), instead of staying empty until searches fill it.
      const toast = (
        await client.query<{ oid: string }>(
          "SELECT reltoastrelid::text AS oid FROM pg_class WHERE oid = 'posts'::regclass AND reltoastrelid <> 0",
        )
      ).rows[0]?.oid;
      if (toast !== undefined && prefetchedOids.has(toast)) {
        walked = await warmWalkedVectors(
          client,
          relations.map((r) => r.oid),
          budget - loaded,
          () => onProgress?.(loaded + prefetched, total),
        );
      }
    } finally {
      await client.query("RESET statement_timeout");
    }
    connections?.setTables(loadedTables);
    const inPart =
      walked > 0
        ? `; of it, ${megabytes(walked)} of the search vectors the walks by clicks and by date test first was loaded`
        : "";
    return {
      bytes: loaded + walked,
      prefetchedBytes: prefetched,
      ...(prefetched > 0
        ? {
            skipped: `${megabytes(prefetched)} did not fit in the ${megabytes(budget)} allowed of shared_buffers (${megabytes(buffers)}) and was only prefetched into the OS cache${inPart}`,
          }
        : {}),
    };
  } finally {
    client.release();
  }
}
