/**
 * The posts of `migrate-data` loaded beside the store's `posts`, in a table of their own
 * (`posts_migrating`), committed, so that its indexes can be built from two connections at once
 * (PostgreSQL 17 builds a GIN index in one process, 18 with parallel workers too; the search
 * indexes were most of a 1M copy, bench/NOTES.md pgwrites31) while the copy's one transaction
 * loads the other tables; that transaction then swaps the table in (drops `posts`, renames
 * `posts_migrating` and its indexes, creates again what referred to the old table) and commits,
 * so the target still changes all at once: a copy that fails leaves the target as it was, and
 * only this table, which the next copy drops first, if it crashed.
 *
 * Used only where the store's `posts` has no dependents but those put back here (indexes,
 * constraints, triggers, the identity sequence, functions taking a post row) and nothing the swap
 * would lose (an owner, privileges, comments: notCarriedBySwap): anything else (a view, a policy,
 * a publication, statistics, a GRANT) and the copy loads into `posts` itself, as before.
 */
import type pg from "pg";
import { buildSettings, ginBuildWorkers } from "./postgres-bulk-load.js";
import { rows, type Sql } from "./postgres-connection.js";

export const STAGED_TABLE = "posts_migrating";
const SUFFIX = "_migrating";
/** The row trigger that derives `rank_vector` and `body_length` from `search_vector` (migration 5). */
const RANK_TRIGGER = "posts_rank_columns";

/** What the swap puts back, read from the catalog before the copy's transaction locks `posts`. */
export interface PostsStaging {
  /** Index builds on the staged table (temporary names), GIN first. */
  readonly builds: readonly StagedBuild[];
  /** Constraints made from a built index: `ALTER TABLE posts ADD CONSTRAINT ... USING INDEX`. */
  readonly constraints: readonly string[];
  /** Indexes renamed to their names on `posts`. */
  readonly renames: readonly string[];
  /**
   * Whether the COPY sends the rank columns (postCopyLines' `unranked`): the rank columns' row
   * trigger is then created on the staged table after the load (afterStagedCopy), not before it.
   */
  readonly rankedByCopy: boolean;
  /** Row triggers created on the staged table after the load (the rank columns' one, if so). */
  readonly afterCopy: readonly string[];
}

/** An index build, with a GIN index's one indexed expression (its entries are sampled). */
interface StagedBuild {
  readonly statement: string;
  readonly ginKey: string | null;
}

/** Share of the staged table's pages sampled to weigh the GIN builds (TABLESAMPLE SYSTEM). */
const SAMPLED_PERCENT = 1;

/** Catalogs whose entries may depend on `posts` or its row type: all of them put back by the swap. */
const HANDLED = ["pg_class", "pg_attrdef", "pg_constraint", "pg_trigger", "pg_proc", "pg_type"];

/**
 * Creates the empty staged table (committed) and plans its indexes, or returns null where `posts`
 * has a dependent the swap would not put back.
 */
export async function preparePostsStaging(sql: Sql): Promise<PostsStaging | null> {
  await dropPostsStaging(sql);
  const [other] = await rows<{ n: number }>(
    sql,
    `SELECT count(*)::int AS n FROM pg_depend d
      WHERE (d.refobjid = 'posts'::regclass OR d.refobjid = (SELECT reltype FROM pg_class WHERE oid = 'posts'::regclass))
        AND d.classid::regclass::text <> ALL($1::text[])`,
    [HANDLED],
  );
  if (other!.n > 0) return null;
  const [options] = await rows<{ options: string | null }>(
    sql,
    "SELECT array_to_string(reloptions, ', ') AS options FROM pg_class WHERE oid = 'posts'::regclass",
  );
  const indexes = await rows<{
    name: string;
    def: string;
    con: string | null;
    type: string | null;
    key: string | null;
  }>(
    sql,
    `SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS def, quote_ident(k.conname) AS con, k.contype AS type,
        CASE WHEN am.amname = 'gin' AND i.indnkeyatts = 1 THEN pg_get_indexdef(i.indexrelid, 1, false) END AS key
      FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam
        LEFT JOIN pg_constraint k ON k.conindid = i.indexrelid AND k.conrelid = i.indrelid
      WHERE i.indrelid = 'posts'::regclass
      ORDER BY am.amname = 'gin' DESC, pg_relation_size(i.indexrelid) DESC, c.relname`,
  );
  // Row triggers that fill columns as rows come in (the rank columns): the staged rows get them.
  const fills = await rows<{ name: string; def: string }>(
    sql,
    `SELECT tgname AS name, pg_get_triggerdef(oid) AS def FROM pg_trigger
      WHERE tgrelid = 'posts'::regclass AND NOT tgisinternal AND tgenabled <> 'D'
        AND (tgtype & 1) = 1 AND (tgtype & 2) = 2 AND (tgtype & 4) = 4`,
  );
  const onPosts = / ON (?:\S+\.)?posts /;
  await sql.query(
    `CREATE TABLE ${STAGED_TABLE} (LIKE posts INCLUDING DEFAULTS INCLUDING IDENTITY INCLUDING GENERATED
      INCLUDING STORAGE INCLUDING COMPRESSION INCLUDING CONSTRAINTS)`,
  );
  if (options?.options) await sql.query(`ALTER TABLE ${STAGED_TABLE} SET (${options.options})`);
  if ((await notCarriedBySwap(sql)).length > 0) {
    await dropPostsStaging(sql);
    return null;
  }
  const fillDefs = fills.map((f) => f.def.replace(onPosts, ` ON ${STAGED_TABLE} `));
  // A row trigger makes COPY insert row by row: no batched page writes, no all-visible bits even
  // with FREEZE (manual, COPY; bench/NOTES.md). The rank columns' trigger alone, the COPY sends
  // its values instead (postCopyLines) and the trigger comes after the load.
  const rankedByCopy =
    fills.length === 1 &&
    fills[0]!.name === RANK_TRIGGER &&
    fills[0]!.def.includes(`FUNCTION ${RANK_TRIGGER}()`);
  if (!rankedByCopy) for (const def of fillDefs) await sql.query(def);
  const builds: StagedBuild[] = [];
  const constraints: string[] = [];
  const renames: string[] = [];
  for (const i of indexes) {
    const staged = `${i.name}${SUFFIX}`;
    const named = i.def.replace(/^(CREATE (?:UNIQUE )?INDEX) \S+/, `$1 ${staged}`);
    builds.push({ statement: named.replace(onPosts, ` ON ${STAGED_TABLE} `), ginKey: i.key });
    if (i.con && (i.type === "p" || i.type === "u")) {
      const kind = i.type === "p" ? "PRIMARY KEY" : "UNIQUE";
      constraints.push(`ALTER TABLE posts ADD CONSTRAINT ${i.con} ${kind} USING INDEX ${staged}`);
    } else renames.push(`ALTER INDEX ${staged} RENAME TO ${i.name}`);
  }
  return { builds, constraints, renames, rankedByCopy, afterCopy: rankedByCopy ? fillDefs : [] };
}

/**
 * In the staged load's transaction, after its COPY: the row triggers left out of the load
 * (PostsStaging.afterCopy) created, and the posts the COPY sent without their rank columns
 * (`unranked`: where only the server can tell them, rankColumns) given them by that trigger.
 */
export async function afterStagedCopy(
  sql: Sql,
  staging: PostsStaging,
  unranked: readonly number[],
): Promise<void> {
  for (const def of staging.afterCopy) await sql.query(def);
  if (staging.rankedByCopy && unranked.length > 0) {
    // The rank function run on them by an update trigger of this statement alone: the insert
    // trigger fires on inserts only (migration 40), and the staged table has no other.
    await sql.query(
      `CREATE TRIGGER ${RANK_TRIGGER}_staged BEFORE UPDATE ON ${STAGED_TABLE} FOR EACH ROW EXECUTE FUNCTION ${RANK_TRIGGER}()`,
    );
    await sql.query(`UPDATE ${STAGED_TABLE} SET search_vector = search_vector WHERE id = ANY($1::int[])`, [
      [...unranked],
    ]);
    await sql.query(`DROP TRIGGER ${RANK_TRIGGER}_staged ON ${STAGED_TABLE}`);
  }
}

/**
 * `posts` and the staged table side by side, for notCarriedBySwap: what `CREATE TABLE ... LIKE`
 * does not copy. Privileges as granted (a REVOKE of all grants leaves the owner's written out,
 * the same as none).
 */
const TABLE_STATE = `SELECT c.relowner, coalesce(c.relacl, acldefault('r', c.relowner))::text AS acl, c.relpersistence, c.relrowsecurity, c.relforcerowsecurity,
    c.relreplident, c.reltablespace, c.relam, c.relispartition,
    (SELECT array_agg(inhparent::regclass::text ORDER BY inhseqno) FROM pg_inherits WHERE inhrelid = c.oid)::text AS parents,
    (SELECT array_agg(coalesce(s.relacl, acldefault('s', s.relowner))::text) FROM pg_depend d JOIN pg_class s ON s.oid = d.objid
      WHERE d.refobjid = c.oid AND d.classid = 'pg_class'::regclass AND s.relkind = 'S')::text AS sequence_acls,
    (SELECT json_agg(json_build_array(attname, CASE WHEN cardinality(attacl) > 0 THEN attacl::text END, attstattarget, attoptions::text) ORDER BY attname)
      FROM pg_attribute WHERE attrelid = c.oid AND attnum > 0 AND NOT attisdropped)::text AS columns
  FROM pg_class c WHERE c.oid = $1::regclass`;

/**
 * What of `posts` the swap would lose, by name: the table's owner and privileges (its columns' and
 * its identity sequence's too), row security switched on, persistence, replica identity, tablespace,
 * access method, inheritance, column statistics targets and options (each compared with the staged
 * table, which has a new table's), comments or security labels on it, its columns, indexes,
 * constraints, triggers or sequence, and an owner, privileges or comment of a function taking a
 * post row (created again by the swap). Policies and publications depend on the table
 * (pg_depend) and already keep the copy in place. Not put back but loaded in place: putting them
 * back needs rights the copy may not have (ALTER OWNER needs the owner's role, a GRANT is
 * recorded as the grantor's, SECURITY LABEL needs its provider loaded) and the store itself
 * creates none of them, so only a database that chose them pays the slower load.
 */
export async function notCarriedBySwap(sql: Sql): Promise<string[]> {
  const [posts] = await rows<Record<string, unknown>>(sql, TABLE_STATE, ["posts"]);
  const [staged] = await rows<Record<string, unknown>>(sql, TABLE_STATE, [STAGED_TABLE]);
  const differing = Object.keys(posts!).filter((k) => String(posts![k]) !== String(staged![k]));
  const [noted] = await rows<{ described: boolean; labelled: boolean; functions: boolean }>(
    sql,
    `WITH objects AS (
        SELECT 'pg_class'::regclass AS catalog, 'posts'::regclass::oid AS oid
        UNION ALL SELECT 'pg_class'::regclass, indexrelid FROM pg_index WHERE indrelid = 'posts'::regclass
        UNION ALL SELECT 'pg_class'::regclass, objid FROM pg_depend
          WHERE refobjid = 'posts'::regclass AND classid = 'pg_class'::regclass
        UNION ALL SELECT 'pg_constraint'::regclass, oid FROM pg_constraint WHERE conrelid = 'posts'::regclass
        UNION ALL SELECT 'pg_trigger'::regclass, oid FROM pg_trigger WHERE tgrelid = 'posts'::regclass),
      functions AS (
        SELECT p.oid, p.proowner, p.proacl FROM pg_depend d JOIN pg_proc p ON p.oid = d.objid
          WHERE d.classid = 'pg_proc'::regclass
            AND d.refobjid = (SELECT reltype FROM pg_class WHERE oid = 'posts'::regclass))
      SELECT EXISTS (SELECT FROM pg_description x JOIN objects o ON x.classoid = o.catalog AND x.objoid = o.oid)
          OR EXISTS (SELECT FROM pg_description x JOIN functions f ON x.classoid = 'pg_proc'::regclass AND x.objoid = f.oid)
          AS described,
        EXISTS (SELECT FROM pg_seclabel x JOIN objects o ON x.classoid = o.catalog AND x.objoid = o.oid)
          OR EXISTS (SELECT FROM pg_seclabel x JOIN functions f ON x.classoid = 'pg_proc'::regclass AND x.objoid = f.oid)
          AS labelled,
        EXISTS (SELECT FROM functions WHERE proacl IS NOT NULL
          OR proowner <> (SELECT oid FROM pg_roles WHERE rolname = current_user)) AS functions`,
  );
  if (noted!.described) differing.push("comments");
  if (noted!.labelled) differing.push("security labels");
  if (noted!.functions) differing.push("post functions' owner or privileges");
  return differing;
}

/** Drops a staged table left by a copy that failed or crashed (its identity sequence with it). */
export async function dropPostsStaging(sql: Sql): Promise<void> {
  await sql.query(`DROP TABLE IF EXISTS ${STAGED_TABLE}`);
}

/**
 * The builds in the order they are taken: GIN builds by their entries in a sample of the staged
 * rows, most first (a GIN build's time follows the entries it sorts and merges; longest first
 * keeps one connection from starting the longest build last), then the B-trees. A key whose
 * entries cannot be counted as a tsvector's lexemes weighs nothing.
 */
async function longestFirst(sql: Sql, builds: readonly StagedBuild[]): Promise<string[]> {
  const weighed: Array<{ statement: string; weight: number }> = [];
  for (const build of builds) {
    let weight = -1;
    if (build.ginKey) {
      const [sample] = await rows<{ n: number }>(
        sql,
        `SELECT coalesce(sum(length(${build.ginKey})), 0)::float8 AS n
          FROM ${STAGED_TABLE} TABLESAMPLE SYSTEM (${SAMPLED_PERCENT}) REPEATABLE (1)`,
      ).catch(() => [{ n: 0 }]);
      weight = sample!.n;
    }
    weighed.push({ statement: build.statement, weight });
  }
  return weighed.sort((a, b) => b.weight - a.weight).map((b) => b.statement);
}

/**
 * Builds the staged table's indexes from the given connections at once (each takes the next
 * statement, longest first), each with its kind's maintenance_work_mem and workers
 * (buildSettings), then its statistics. B-trees build without parallel workers: the connections
 * are the parallelism on a small machine; GIN builds with ginBuildWorkers' (PostgreSQL 18 on),
 * so the longest build's processes take up the cores the others leave once they are done.
 */
export async function buildStaged(
  clients: readonly pg.ClientBase[],
  staging: PostsStaging,
  report: (step: string, ms: number) => void,
): Promise<void> {
  const queue = await longestFirst(clients[0]!, staging.builds);
  const ginWorkers = await ginBuildWorkers(clients[0]!);
  const work = async (client: pg.ClientBase) => {
    const [server] = (
      await client.query<{ kb: string }>(
        "SELECT setting AS kb FROM pg_settings WHERE name = 'maintenance_work_mem'",
      )
    ).rows;
    for (let statement = queue.shift(); statement !== undefined; statement = queue.shift()) {
      const { memoryKb, workers } = buildSettings(statement, Number(server!.kb), ginWorkers, 0);
      await client.query(`SET maintenance_work_mem = '${memoryKb}kB'`);
      await client.query(`SET max_parallel_maintenance_workers = ${workers}`);
      const started = performance.now();
      await client.query(statement);
      const name = /INDEX (\S+)/.exec(statement)?.[1]?.slice(0, -SUFFIX.length);
      report(`built ${name}`, performance.now() - started);
    }
  };
  const started = performance.now();
  const results = await Promise.allSettled(clients.map(work));
  const failed = results.find((r) => r.status === "rejected");
  if (failed) throw (failed as PromiseRejectedResult).reason;
  report(`posts' indexes built on ${clients.length} connections (wall)`, performance.now() - started);
  const analyzing = performance.now();
  await clients[0]!.query(`ANALYZE ${STAGED_TABLE}`);
  report("ANALYZE posts (beside the load)", performance.now() - analyzing);
}

/**
 * In the copy's transaction, when it begins: the foreign keys other tables hold on `posts`
 * dropped (their rows come in before the posts are swapped in); the statements that add them
 * back, for swapInPosts.
 */
export async function dropReferencesToPosts(sql: Sql): Promise<string[]> {
  const references = await rows<{ tbl: string; name: string; def: string }>(
    sql,
    `SELECT conrelid::regclass::text AS tbl, quote_ident(conname) AS name, pg_get_constraintdef(oid) AS def
      FROM pg_constraint WHERE confrelid = 'posts'::regclass AND conrelid <> 'posts'::regclass AND contype = 'f'
      ORDER BY conname`,
  );
  for (const r of references) await sql.query(`ALTER TABLE ${r.tbl} DROP CONSTRAINT ${r.name}`);
  return references.map((r) => `ALTER TABLE ${r.tbl} ADD CONSTRAINT ${r.name} ${r.def}`);
}

/**
 * In the copy's transaction, after the builds: `posts` replaced by the staged table. What
 * referred to the old table (its triggers with their on/off state, functions taking its row
 * type) is read, dropped and created again on the new one, then the foreign keys on it
 * (dropReferencesToPosts) are added back.
 */
export async function swapInPosts(
  sql: Sql,
  staging: PostsStaging,
  references: readonly string[],
): Promise<void> {
  const triggers = await rows<{ name: string; def: string; state: string }>(
    sql,
    `SELECT quote_ident(tgname) AS name, pg_get_triggerdef(oid) AS def, tgenabled AS state
      FROM pg_trigger WHERE tgrelid = 'posts'::regclass AND NOT tgisinternal ORDER BY tgname`,
  );
  const functions = await rows<{ signature: string; def: string }>(
    sql,
    `SELECT p.oid::regprocedure::text AS signature, pg_get_functiondef(p.oid) AS def
      FROM pg_depend d JOIN pg_proc p ON p.oid = d.objid
      WHERE d.classid = 'pg_proc'::regclass
        AND d.refobjid = (SELECT reltype FROM pg_class WHERE oid = 'posts'::regclass)`,
  );
  const identity = await rows<{ old: string; staged: string }>(
    sql,
    `SELECT pg_get_serial_sequence('posts', attname) AS old, pg_get_serial_sequence('${STAGED_TABLE}', attname) AS staged
      FROM pg_attribute WHERE attrelid = 'posts'::regclass AND attidentity <> '' AND NOT attisdropped`,
  );
  for (const f of functions) await sql.query(`DROP FUNCTION ${f.signature}`);
  // RESTRICT: a dependent this file does not know of fails the copy instead of vanishing.
  await sql.query("DROP TABLE posts");
  await sql.query(`ALTER TABLE ${STAGED_TABLE} RENAME TO posts`);
  for (const s of identity) {
    const name = s.old.replace(/^.*\./, "");
    await sql.query(`ALTER SEQUENCE ${s.staged} RENAME TO ${name}`);
  }
  for (const statement of [...staging.constraints, ...staging.renames]) await sql.query(statement);
  for (const f of functions) await sql.query(f.def);
  for (const t of triggers) {
    // The staged table already has the column-filling row triggers (preparePostsStaging).
    await sql.query(`DROP TRIGGER IF EXISTS ${t.name} ON posts`);
    await sql.query(t.def);
    const state = { D: "DISABLE", R: "ENABLE REPLICA", A: "ENABLE ALWAYS" }[t.state];
    if (state) await sql.query(`ALTER TABLE posts ${state} TRIGGER ${t.name}`);
  }
  for (const statement of references) await sql.query(statement);
}
