/**
 * Migration 41: `posts` stored with its fixed-width columns first, then the rank vector, then the
 * wide text and the other vectors. PostgreSQL finds a column of a row by walking every column
 * before it, with no cached offset past the first variable-length one
 * (https://www.postgresql.org/docs/current/storage-page-layout.html): a relevance tier read
 * `post_date`, `rank_vector` and `body_length` of each of its thousands of matches from behind the
 * guid, link, title, excerpt, content and search vector (bench/NOTES.md, pgrank34).
 *
 * Columns cannot be moved in place, so the rows are copied into a new table in the new order and
 * swapped in as migrate-data swaps its staged posts (postgres-posts-staging.ts): every index under
 * its name, the constraints (the foreign keys on `posts` and those of other tables on it), the
 * triggers with their on/off state, the functions taking a post row, the identity sequence and its
 * position, the columns' storage, statistics targets and options and the table's options
 * (fillfactor: every page of the copy keeps the room a click's heap-only update needs, migration
 * 31). A new database takes it too, on its empty table, so both end with the same columns.
 * Where `posts` has something the swap would not put back (a view, a GRANT, a comment:
 * postgres-posts-staging.ts), the columns keep their order: the same answers, read slower.
 */
import type pg from "pg";
import type { MigrationProgress } from "../migration-progress.js";
import { rows, type Sql } from "./postgres-connection.js";
import {
  dropPostsStaging,
  dropReferencesToPosts,
  notCarriedBySwap,
  planStagedIndexes,
  STAGED_TABLE,
  swapHandlesDependents,
  swapInPosts,
} from "./postgres-posts-staging.js";

/**
 * The columns in their stored order: the 4- and 8-byte ones a ranking, a filter or a sort reads
 * (aligned without padding), the rank vector, then the wide ones in their former order. Columns
 * not named here keep their order after these.
 */
export const POST_COLUMN_ORDER: readonly string[] = [
  "id",
  "feed_id",
  "post_date",
  "language_id",
  "category_id",
  "clicks",
  "body_length",
  "seen_at",
  "published_at",
  "updated_at",
  "rank_vector",
  "guid",
  "link",
  "title",
  "excerpt",
  "content",
  "search_vector",
  "phrase_vector",
];

/** Pages of the old table copied per statement: the progress report's step. */
const PAGES_PER_STEP = 4096;

/** A column of `posts` as the catalog describes it. */
interface ColumnRow {
  readonly name: string;
  readonly quoted: string;
  readonly definition: string;
  readonly storage: string | null;
  readonly compression: string | null;
  readonly stattarget: number | null;
  readonly options: string | null;
}

/** Each column's definition, and what CREATE TABLE does not say of it. */
const COLUMNS = `SELECT a.attname AS name, quote_ident(a.attname) AS quoted,
    quote_ident(a.attname) || ' ' || format_type(a.atttypid, a.atttypmod)
      || CASE WHEN a.attcollation <> t.typcollation
           THEN ' COLLATE ' || quote_ident(cn.nspname) || '.' || quote_ident(co.collname) ELSE '' END
      || CASE WHEN a.attgenerated = 's' THEN ' GENERATED ALWAYS AS (' || pg_get_expr(d.adbin, d.adrelid) || ') STORED'
           WHEN d.adbin IS NOT NULL THEN ' DEFAULT ' || pg_get_expr(d.adbin, d.adrelid) ELSE '' END
      || CASE WHEN a.attidentity <> '' THEN
           ' GENERATED ' || CASE a.attidentity WHEN 'a' THEN 'ALWAYS' ELSE 'BY DEFAULT' END || ' AS IDENTITY ('
           || 'INCREMENT BY ' || s.seqincrement || ' MINVALUE ' || s.seqmin || ' MAXVALUE ' || s.seqmax
           || ' START WITH ' || s.seqstart || ' CACHE ' || s.seqcache || CASE WHEN s.seqcycle THEN ' CYCLE' ELSE ' NO CYCLE' END
           || ')' ELSE '' END
      || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END AS definition,
    CASE a.attstorage WHEN t.typstorage THEN NULL WHEN 'p' THEN 'PLAIN' WHEN 'e' THEN 'EXTERNAL'
      WHEN 'm' THEN 'MAIN' WHEN 'x' THEN 'EXTENDED' END AS storage,
    CASE a.attcompression WHEN 'p' THEN 'pglz' WHEN 'l' THEN 'lz4' END AS compression,
    nullif(a.attstattarget, -1)::int AS stattarget,
    array_to_string(a.attoptions, ', ') AS options
  FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    LEFT JOIN pg_collation co ON co.oid = a.attcollation LEFT JOIN pg_namespace cn ON cn.oid = co.collnamespace
    LEFT JOIN pg_sequence s ON s.seqrelid = pg_get_serial_sequence('posts', a.attname)::regclass
  WHERE a.attrelid = 'posts'::regclass AND a.attnum > 0 AND NOT a.attisdropped
  ORDER BY a.attnum`;

/** The order `posts` should have: POST_COLUMN_ORDER's columns it has, then its others as they are. */
export function orderedColumns(current: readonly string[]): string[] {
  return [
    ...POST_COLUMN_ORDER.filter((c) => current.includes(c)),
    ...current.filter((c) => !POST_COLUMN_ORDER.includes(c)),
  ];
}

/**
 * Rewrites `posts` in POST_COLUMN_ORDER inside the migration's transaction; nothing when the
 * columns already stand so (a new database after its first run, or the migration taken again).
 * Returns whether it rewrote the table (its new pages then want a VACUUM: afterPostOrder).
 */
export async function orderPostColumns(sql: Sql, progress: MigrationProgress): Promise<boolean> {
  const columns = await rows<ColumnRow>(sql, COLUMNS);
  const current = columns.map((c) => c.name);
  const target = orderedColumns(current);
  if (target.join() === current.join()) return false;
  // No writer may add a row the copy would miss: held until the migration commits.
  await sql.query("LOCK TABLE posts IN ACCESS EXCLUSIVE MODE");
  await dropPostsStaging(sql);
  if (!(await swapHandlesDependents(sql))) return false;
  // The swap makes primary keys and unique constraints from the rebuilt indexes, not exclusions.
  const [exclusions] = await rows<{ n: number }>(
    sql,
    "SELECT count(*)::int AS n FROM pg_constraint WHERE conrelid = 'posts'::regclass AND contype = 'x'",
  );
  if (exclusions!.n > 0) return false;
  const byName = new Map(columns.map((c) => [c.name, c]));
  const ordered = target.map((name) => byName.get(name)!);
  const [table] = await rows<{ options: string | null }>(
    sql,
    "SELECT array_to_string(reloptions, ', ') AS options FROM pg_class WHERE oid = 'posts'::regclass",
  );
  await sql.query(`CREATE TABLE ${STAGED_TABLE} (${ordered.map((c) => c.definition).join(", ")})`);
  // The table's options (fillfactor) before the rows: the copy fills pages as inserts do.
  if (table?.options) await sql.query(`ALTER TABLE ${STAGED_TABLE} SET (${table.options})`);
  for (const c of ordered) {
    const alter = `ALTER TABLE ${STAGED_TABLE} ALTER COLUMN ${c.quoted}`;
    if (c.storage) await sql.query(`${alter} SET STORAGE ${c.storage}`);
    if (c.compression) await sql.query(`${alter} SET COMPRESSION ${c.compression}`);
    if (c.stattarget !== null) await sql.query(`${alter} SET STATISTICS ${c.stattarget}`);
    if (c.options) await sql.query(`${alter} SET (${c.options})`);
  }
  if ((await notCarriedBySwap(sql)).length > 0) {
    await dropPostsStaging(sql);
    return false;
  }
  // Check constraints and foreign keys of `posts` itself, added (and checked) once the rows are in.
  const own = await rows<{ name: string; def: string }>(
    sql,
    `SELECT quote_ident(conname) AS name, pg_get_constraintdef(oid) AS def FROM pg_constraint
      WHERE conrelid = 'posts'::regclass AND contype IN ('c', 'f') ORDER BY conname`,
  );
  const list = ordered.map((c) => c.quoted).join(", ");
  const [size] = await rows<{ pages: number }>(
    sql,
    "SELECT (pg_relation_size('posts') / current_setting('block_size')::int)::int AS pages",
  );
  const pages = size!.pages;
  // In the old table's page order (a TID range scan reads its pages in order): the rows keep their
  // neighbours, so each index's correlation with the heap (posts by date, by feed) stays as it was.
  for (let from = 0; from < pages; from += PAGES_PER_STEP) {
    const to = Math.min(pages, from + PAGES_PER_STEP);
    await sql.query(
      `INSERT INTO ${STAGED_TABLE} (${list}) OVERRIDING SYSTEM VALUE
        SELECT ${list} FROM posts WHERE ctid >= '(${from},0)'::tid AND ctid < '(${to},0)'::tid`,
    );
    progress("reordering the posts' columns: pages copied", to, pages);
  }
  // The identity sequence goes on where the old one stood.
  await sql.query(
    `SELECT setval(pg_get_serial_sequence('${STAGED_TABLE}', a.attname), v.last_value)
      FROM pg_attribute a, pg_sequence_last_value(pg_get_serial_sequence('posts', a.attname)::regclass) v (last_value)
      WHERE a.attrelid = 'posts'::regclass AND a.attidentity <> '' AND NOT a.attisdropped AND v.last_value IS NOT NULL`,
  );
  // As migrate-data's builds (postgres-posts-staging.ts): a GIN build sorts its entries in memory.
  await sql.query(`SELECT set_config('maintenance_work_mem', greatest(setting::bigint, 1048576) || 'kB', true)
    FROM pg_settings WHERE name = 'maintenance_work_mem'`);
  const plan = await planStagedIndexes(sql);
  const builds = plan.builds.map((b) => b.statement);
  for (const [i, statement] of builds.entries()) {
    await sql.query(statement);
    progress("reordering the posts' columns: indexes built", i + 1, builds.length);
  }
  const references = await dropReferencesToPosts(sql);
  await swapInPosts(sql, { ...plan, rankedByCopy: false, afterCopy: [] }, references);
  for (const c of own) await sql.query(`ALTER TABLE posts ADD CONSTRAINT ${c.name} ${c.def}`);
  await sql.query("ANALYZE posts");
  return true;
}

/**
 * After the migration's commit: the new pages VACUUMed, so that index-only scans find them
 * all-visible again (a new table's pages are not, until autovacuum comes by). Its statistics
 * were gathered inside the migration, so no plan runs without them.
 */
export async function afterPostOrder(pool: pg.Pool): Promise<void> {
  await pool.query("VACUUM posts");
}
