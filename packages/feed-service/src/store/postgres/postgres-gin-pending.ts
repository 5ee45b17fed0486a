/**
 * Whether the search index's pending list is empty, read inside the statement that scans the
 * index: what lets a search with excluded words trust GIN's `!word` (postgres-excluded-words.ts).
 *
 * GIN's NOT is wrong only for a post whose entries are being moved from the pending list into the
 * entry tree while a scan runs (a scan meanwhile finds some of its keys in the tree and not yet the
 * others: bench/NOTES.md, pgflake34). The cleanup deletes pending pages only once their entries
 * are in the tree (ginInsertCleanup in PostgreSQL's src/backend/access/gin/ginfast.c), and every
 * post a statement can see was written before its snapshot. So when the list is empty at a moment
 * after the snapshot, every entry of those posts is in the tree, where no later cleanup adds to
 * them, and a scan that starts after that moment sees each of them whole: exact. The metapage is
 * read by `pgstatginindex` (pgstattuple, contrib, which the start warm-up creates for its B-tree
 * reads: postgres-warm.ts); without it, or without the right to run it, there is no gate and the
 * exclusions are checked or subtracted as before.
 */
import { rows, type Sql } from "./postgres-connection.js";
import { STATISTICS_TTL_MS } from "./postgres-plan-costs.js";
import { type Reading, reused } from "./postgres-reused-reading.js";

/** The index SEARCH_EXPRESSION is the expression of (postgres-light-writes.ts). */
export const SEARCH_INDEX = "posts_search_words";

/** The gate's condition on pgstatginindex's row: no page in the pending list. */
export const PENDING_EMPTY = "s.pending_pages = 0";

/** The gate relation (one row, one boolean column `settled`) of `pgstatginindex`, qualified. */
export function pendingGateRelation(pgstatginindex: string): string {
  return `(SELECT ${PENDING_EMPTY} AS settled FROM ${pgstatginindex}('${SEARCH_INDEX}'::regclass) s)`;
}

const functions = new WeakMap<Sql, Map<string, Reading<string | null>>>();

/**
 * The gate relation (see pendingGateRelation), or null when pgstattuple is not installed or the
 * connection's user may not run its pgstatginindex. Read again after STATISTICS_TTL_MS, so that an
 * extension created after the first search is found.
 */
export function pendingGate(sql: Sql, now: () => number = Date.now): Promise<string | null> {
  return reused(functions, sql, "", STATISTICS_TTL_MS, now, async () => {
    const [row] = await rows<{ f: string }>(
      sql,
      `SELECT quote_ident(n.nspname) || '.pgstatginindex' AS f
        FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
        WHERE e.extname = 'pgstattuple'
          AND has_function_privilege(to_regprocedure(quote_ident(n.nspname) || '.pgstatginindex(regclass)'), 'EXECUTE')
          AND to_regclass('${SEARCH_INDEX}') IS NOT NULL`,
    );
    return row === undefined ? null : pendingGateRelation(row.f);
  });
}

/**
 * Whether the pending list is empty now (a hint for planning, never an answer: the statements
 * that answer read the gate again after their own snapshot).
 */
export async function pendingEmptyNow(sql: Sql, gate: string): Promise<boolean> {
  const [row] = await rows<{ settled: boolean }>(sql, `SELECT g.settled FROM ${gate} g`);
  return row?.settled === true;
}
