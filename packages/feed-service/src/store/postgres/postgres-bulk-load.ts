/**
 * What `migrate-data` sets aside while it loads an empty PostgreSQL database, and puts back once
 * the rows are in, as pg_restore does: secondary indexes (the search index above all, whose GIN
 * entries and phrase pairs cost far more row by row than built once over the table), unique and
 * foreign-key constraints (checked once by a join instead of one lookup per row) and the
 * roll-up triggers (scope_days, clicked_posts and migration 27's running sums and ranks are filled from the rows in one
 * statement each).
 * Primary keys stay (but story_bands', see REBUILT_PRIMARY_KEYS): the copy's upserts rely on them.
 * Everything happens in the copy's one transaction, so a copy that fails leaves the database as it
 * was, triggers included.
 *
 * The statement triggers that read a transition table (new posts rolled up, counted searches) are
 * dropped for the load and created again after, not disabled: PostgreSQL keeps every row a
 * statement writes for such a trigger even while it is disabled, so a COPY of a million posts
 * wrote them all once more to temporary files (bench/NOTES.md).
 */

import { fillAllClickLevels } from "./postgres-click-levels.js";
import { fillClickedPostsWithLanguages } from "./postgres-clicked-languages.js";
import {
  CLICKED_LEXEMES_INDEX,
  CLICKED_LEXEMES_INSERT_TRIGGER,
  fillClickedLexemes,
} from "./postgres-clicked-lexemes.js";
import { rows, type Sql } from "./postgres-connection.js";
import { runningSumFills } from "./postgres-running-sums.js";
import { fillScopeDays } from "./postgres-scope-rollups.js";

/** The big tables whose indexes and constraints are set aside. */
const LOADED_TABLES = ["posts", "clicks", "story_keys", "story_bands"];
/**
 * Tables whose primary key is set aside too: story_bands' key (band, date, post) is not the copy's
 * order (by post), so each row landed on a random page of it; built once, it is one sort.
 */
const REBUILT_PRIMARY_KEYS = ["story_bands"];

/** The per-row triggers that keep the roll-ups (postgres-rollups.ts), by table. */
const ROLLUP_TRIGGERS: ReadonlyArray<{ table: string; trigger: string }> = [
  { table: "posts", trigger: "posts_track_rollups_update" },
  { table: "posts", trigger: "posts_add_rollups" },
  { table: "posts", trigger: "posts_track_clicked" },
  { table: "clicks", trigger: "clicks_track_rollups" },
];

/** maintenance_work_mem of a B-tree build: its sort stays in memory up to 1 GB (kB here). */
const SORT_MEMORY_KB = 1_048_576;

/**
 * maintenance_work_mem of a GIN build (kB) for each process building it. PostgreSQL gathers a GIN
 * build's entries in a red-black tree keyed by lexeme (ginbulk.c) and writes it out each time it
 * holds this much; every entry is one walk down that tree, two cache misses a level (the node,
 * then its key) once it outgrows the CPU caches. A tree of a gigabyte costs more in those misses
 * than the extra write-outs of a tree a few times the size of a cache save (bench/NOTES.md, GIN
 * builds). A parallel build (PostgreSQL 18) splits the setting among its processes, and its
 * planner gives a build no worker unless each process has 32 MB (plan_create_index_workers).
 */
export const GIN_BUILD_MEMORY_KB = 32_768;

/**
 * Parallel workers of one GIN build where the server builds GIN in parallel (PostgreSQL 18:
 * gininsert.c, each process gathers and sorts its share of the table, the leader merges the
 * sorted lists): one, so the build's two processes fill the two cores of a small machine once the
 * other builds are done (bench/NOTES.md, PostgreSQL 18).
 */
export const GIN_BUILD_WORKERS = 1;

/** The first server version (server_version_num) that builds GIN indexes in parallel. */
const PARALLEL_GIN_SINCE = 180_000;

/**
 * Parallel workers for the GIN builds on the server of `sql`: GIN_BUILD_WORKERS from PostgreSQL
 * 18 on, none before (17 builds GIN in one process, and a larger maintenance_work_mem there would
 * only grow its one tree).
 */
export async function ginBuildWorkers(sql: Sql): Promise<number> {
  const [server] = await rows<{ version: number }>(
    sql,
    "SELECT current_setting('server_version_num')::int AS version",
  );
  return server!.version >= PARALLEL_GIN_SINCE ? GIN_BUILD_WORKERS : 0;
}

/**
 * maintenance_work_mem (kB) and max_parallel_maintenance_workers for one put-back or staged build
 * statement, the server's own `serverKb` and the GIN builds' `ginWorkers` (ginBuildWorkers) given:
 * a GIN build GIN_BUILD_MEMORY_KB for each of its processes; any other build the server's setting
 * or 1 GB, whichever is more, and `otherWorkers`.
 */
export function buildSettings(
  statement: string,
  serverKb: number,
  ginWorkers: number,
  otherWorkers: number,
): { memoryKb: number; workers: number } {
  return / USING gin /i.test(statement)
    ? { memoryKb: GIN_BUILD_MEMORY_KB * (ginWorkers + 1), workers: ginWorkers }
    : { memoryKb: Math.max(serverKb, SORT_MEMORY_KB), workers: otherWorkers };
}

/** Statements that put back what was set aside, in order. */
export interface SetAside {
  readonly constraints: readonly string[];
  readonly indexes: readonly string[];
  readonly foreignKeys: readonly string[];
  /** The transition-table triggers, created again (and disabled again where they were). */
  readonly triggers: readonly string[];
}

/** Drops the loaded tables' secondary indexes and constraints and turns the roll-up triggers off. */
export async function setAsideForLoad(sql: Sql): Promise<SetAside> {
  const constraints = await rows<{ tbl: string; name: string; def: string; type: string }>(
    sql,
    `SELECT c.conrelid::regclass::text AS tbl, quote_ident(c.conname) AS name, pg_get_constraintdef(c.oid) AS def,
        c.contype AS type
      FROM pg_constraint c
      WHERE c.conrelid = ANY($1::regclass[])
        AND (c.contype IN ('u', 'f') OR (c.contype = 'p' AND c.conrelid = ANY($2::regclass[])))
      ORDER BY c.conname`,
    [LOADED_TABLES, REBUILT_PRIMARY_KEYS],
  );
  const indexes = await rows<{ name: string; def: string }>(
    sql,
    `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS def
      FROM pg_index i
      WHERE i.indrelid = ANY($1::regclass[])
        AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)
      ORDER BY 1`,
    [LOADED_TABLES],
  );
  const transition = await rows<{ tbl: string; name: string; def: string; disabled: boolean }>(
    sql,
    `SELECT t.tgrelid::regclass::text AS tbl, quote_ident(t.tgname) AS name, pg_get_triggerdef(t.oid) AS def,
        t.tgenabled = 'D' AS disabled
      FROM pg_trigger t
      WHERE t.tgrelid = ANY($1::regclass[]) AND NOT t.tgisinternal
        AND (t.tgnewtable IS NOT NULL OR t.tgoldtable IS NOT NULL)
      ORDER BY t.tgname`,
    [LOADED_TABLES],
  );
  for (const c of constraints) await sql.query(`ALTER TABLE ${c.tbl} DROP CONSTRAINT ${c.name}`);
  for (const i of indexes) await sql.query(`DROP INDEX ${i.name}`);
  for (const t of transition) await sql.query(`DROP TRIGGER ${t.name} ON ${t.tbl}`);
  const dropped = new Set(transition.map((t) => t.name));
  for (const { table, trigger } of ROLLUP_TRIGGERS) {
    if (!dropped.has(trigger)) await sql.query(`ALTER TABLE ${table} DISABLE TRIGGER ${trigger}`);
  }
  const addBack = (c: { tbl: string; name: string; def: string }) =>
    `ALTER TABLE ${c.tbl} ADD CONSTRAINT ${c.name} ${c.def}`;
  return {
    constraints: constraints.filter((c) => c.type === "u" || c.type === "p").map(addBack),
    indexes: indexes.map((i) => i.def),
    foreignKeys: constraints.filter((c) => c.type === "f").map(addBack),
    triggers: transition.flatMap((t) => [
      t.def,
      ...(t.disabled ? [`ALTER TABLE ${t.tbl} DISABLE TRIGGER ${t.name}`] : []),
    ]),
  };
}

/**
 * What was set aside less the indexes and unique constraints of `table`, which were built on the
 * staged table beside the load (postgres-posts-staging.ts); its foreign keys still come back here.
 */
export function leavingOutBuilt(setAside: SetAside, table: string): SetAside {
  const onTable = new RegExp(` ON (?:\\S+\\.)?${table} USING `);
  return {
    ...setAside,
    constraints: setAside.constraints.filter((c) => !c.startsWith(`ALTER TABLE ${table} ADD `)),
    indexes: setAside.indexes.filter((i) => !onTable.test(i)),
  };
}

/** Runs one statement of the put-back under a name for the progress report. */
export type NamedStatement = (step: string, statement: string) => Promise<void>;

/** What a put-back statement builds, for the progress report. */
function stepName(statement: string): string {
  const built = /^(?:CREATE (?:UNIQUE )?INDEX|ALTER TABLE \S+ ADD CONSTRAINT) (\S+)/.exec(statement);
  return built ? `built ${built[1]}` : statement.slice(0, 60);
}

/**
 * Fills the roll-ups from the loaded rows (one INSERT ... SELECT ... GROUP BY each), builds what
 * was set aside and turns the triggers back on.
 */
export async function putBack(
  sql: Sql,
  setAside: SetAside,
  run: NamedStatement = async (_step, statement) => {
    await sql.query(statement);
  },
): Promise<void> {
  await sql.query(
    "TRUNCATE scope_days, clicked_posts, feed_post_sums, feed_post_days, feed_click_sums, feed_click_days, post_month_ranks",
  );
  // The smart categories' counts were not kept during the load: forgotten, each is counted once
  // when the store next opens (syncCountedSearches).
  await sql.query(
    "TRUNCATE search_days, counted_click_searches, counted_click_periods, counted_period_searches, counted_feed_months, counted_feed_searches, counted_feed_blocks, counted_feed_block_searches, counted_searches",
  );
  for (const [, statement] of runningSumFills) await run("filled the running sums and ranks", statement);
  await run("filled scope_days", fillScopeDays);
  // Every clicked post's lexemes (migration 67) in one statement and one GIN build, instead of a
  // row trigger and a GIN insert for each clicked_posts row the fill writes.
  const [lexemes] = await rows<{ kept: boolean }>(
    sql,
    "SELECT to_regclass('clicked_lexemes') IS NOT NULL AS kept",
  );
  if (lexemes!.kept) {
    await sql.query(`ALTER TABLE clicked_posts DISABLE TRIGGER ${CLICKED_LEXEMES_INSERT_TRIGGER}`);
    await sql.query("DROP INDEX IF EXISTS clicked_lexemes_search");
  }
  await run("filled clicked_posts", fillClickedPostsWithLanguages);
  if (lexemes!.kept) {
    await run("filled clicked_lexemes", fillClickedLexemes);
    await sql.query(`ALTER TABLE clicked_posts ENABLE TRIGGER ${CLICKED_LEXEMES_INSERT_TRIGGER}`);
  }
  await run("filled the click levels", fillAllClickLevels);
  // Each build's maintenance_work_mem and parallel workers by its kind (buildSettings). A B-tree
  // build may use two parallel workers (manual §15.4, parallel CREATE INDEX); a GIN build those of
  // ginBuildWorkers (PostgreSQL 18 on).
  const [server] = await rows<{ kb: string }>(
    sql,
    "SELECT setting AS kb FROM pg_settings WHERE name = 'maintenance_work_mem'",
  );
  const ginWorkers = await ginBuildWorkers(sql);
  const rebuilt = lexemes!.kept ? [CLICKED_LEXEMES_INDEX] : [];
  for (const statement of [
    ...setAside.constraints,
    ...setAside.indexes,
    ...rebuilt,
    ...setAside.foreignKeys,
  ]) {
    const { memoryKb, workers } = buildSettings(statement, Number(server!.kb), ginWorkers, 2);
    await sql.query(`SET LOCAL maintenance_work_mem = '${memoryKb}kB'`);
    await sql.query(`SET LOCAL max_parallel_maintenance_workers = ${workers}`);
    await run(stepName(statement), statement);
  }
  for (const statement of setAside.triggers) await sql.query(statement);
  const created = new Set(setAside.triggers.map((t) => /^CREATE TRIGGER (\S+)/.exec(t)?.[1]));
  for (const { table, trigger } of ROLLUP_TRIGGERS) {
    if (!created.has(trigger)) await sql.query(`ALTER TABLE ${table} ENABLE TRIGGER ${trigger}`);
  }
}
