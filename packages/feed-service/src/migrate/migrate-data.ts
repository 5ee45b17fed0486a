/**
 * `migrate-data`: copies a whole feed-service database from one backend to another (SQLite to
 * PostgreSQL when one machine is no longer enough, or back). Every table is copied with its ids,
 * in key order and in batches, so a million posts never sit in memory at once; each side's search
 * index is rebuilt from the copied posts, what each side keeps counted (roll-ups, posts and clicks
 * per language) is counted from the copied rows, and sequences continue after the copied ids. A
 * target that already holds data is refused unless `force` is set, which empties it first. Into
 * PostgreSQL the copy is one transaction with the indexes built after the load, the posts loaded
 * beside it into a table of their own whose indexes are built on two connections and which that
 * transaction swaps in (postgres-posts-staging.ts): a copy that fails leaves the target as it was.
 */
import { existsSync, mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { badArgument, FeedServiceError } from "../errors.js";
import { type CopiedTable, type CopyEndpoint, copiedTables, keyColumns } from "../store/copied-tables.js";
import { PostgresEndpoint } from "../store/postgres/postgres-copy-endpoint.js";
import { SqliteEndpoint } from "../store/sqlite/sqlite-copy-endpoint.js";

export interface MigrateDataOptions {
  /** `sqlite:<path>`, a path, or a `postgres://` URL. */
  from: string;
  to: string;
  /** Empty a target that holds data instead of refusing it. */
  force?: boolean;
  /** Rows per batch (default 2000). */
  batchSize?: number;
  onProgress?: (table: string, copied: number, total: number) => void;
  /**
   * Hears where the time went, step by step: per table the reading of the source and the writing
   * to the target (which overlap where the target encodes or sends in the background), then the
   * target's own steps (indexes, roll-ups, statistics).
   */
  onStep?: (step: string, ms: number) => void;
  /**
   * Into PostgreSQL, load `posts` in place instead of staging it beside the transaction: for the
   * bench and tests that set the two loads side by side (the copy takes the staged load by itself).
   */
  postsInPlace?: boolean;
}

export interface MigrateDataSummary {
  /** Rows copied per table, in copy order. */
  tables: Array<{ table: string; rows: number }>;
  /** Where the time went, in order (see `onStep`). */
  steps: Array<{ step: string; ms: number }>;
  durationMs: number;
}

const postgresUrl = /^postgres(ql)?:\/\//i;

async function openEndpoint(
  location: string,
  role: "source" | "target",
  postsInPlace = false,
): Promise<CopyEndpoint> {
  const value = location.trim();
  if (postgresUrl.test(value)) return PostgresEndpoint.open(value, { postsInPlace });
  const path = value.startsWith("sqlite:") ? value.slice("sqlite:".length) : value;
  if (path === "" || path === ":memory:" || /^[a-z][a-z0-9+.-]*:\/\//i.test(path)) {
    throw badArgument(
      `The ${role} must be a SQLite file path, sqlite:<path> or a postgres:// URL; got ${JSON.stringify(location)}.`,
    );
  }
  const file = resolve(path);
  if (role === "source" && !existsSync(file)) {
    throw new FeedServiceError("FEED_NOT_FOUND", `The source database ${path} does not exist.`);
  }
  if (role === "target") mkdirSync(dirname(file), { recursive: true });
  return new SqliteEndpoint(file);
}

/** The key of the last row of a batch: its value, or the values of a composite key. */
function lastKey(table: CopiedTable, rows: readonly unknown[][]): unknown {
  const row = rows[rows.length - 1]!;
  const key = keyColumns(table).map((c) => row[table.columns.indexOf(c)]);
  return key.length === 1 ? key[0] : key;
}

/**
 * @example
 * const summary = await migrateData({ from: "sqlite:./data/feeds.db", to: "postgres://feeds@db/feeds" });
 * console.log(summary.tables); // [{ table: "languages", rows: 12 }, ...]
 */
export async function migrateData(options: MigrateDataOptions): Promise<MigrateDataSummary> {
  const started = Date.now();
  const batchSize = options.batchSize ?? 2000;
  if (options.from.trim() === options.to.trim()) {
    throw badArgument("The source and the target are the same database.");
  }
  const source = await openEndpoint(options.from, "source");
  let target: CopyEndpoint | undefined;
  try {
    target = await openEndpoint(options.to, "target", options.postsInPlace);
    const nonEmpty: string[] = [];
    for (const table of copiedTables) {
      if (table.name !== "settings" && (await target.count(table)) > 0) nonEmpty.push(table.name);
    }
    if (nonEmpty.length > 0) {
      if (!options.force) {
        throw new FeedServiceError(
          "FEED_CONFLICT",
          `The target already holds data (${nonEmpty.join(", ")}); use --force to replace it.`,
        );
      }
    }
    await target.begin();
    if (options.force) await target.clear();
    const summary: MigrateDataSummary = { tables: [], steps: [], durationMs: 0 };
    const report = (step: string, ms: number) => {
      summary.steps.push({ step, ms: Math.round(ms) });
      options.onStep?.(step, ms);
    };
    const feedNames = new Map<number, string>();
    for (const table of copiedTables) {
      // count() leaves out the two languages every database has; they are copied all the same.
      const total = (await source.count(table)) + (table.name === "languages" ? 2 : 0);
      let copied = 0;
      let after: unknown = null;
      let readMs = 0;
      let writeMs = 0;
      options.onProgress?.(table.name, 0, total);
      for (;;) {
        const reading = performance.now();
        const rows = await source.read(table, after, batchSize);
        readMs += performance.now() - reading;
        if (rows.length === 0) break;
        if (table.name === "feeds") for (const r of rows) feedNames.set(Number(r[0]), String(r[2]));
        const writing = performance.now();
        await target.write(table, rows, feedNames);
        writeMs += performance.now() - writing;
        copied += rows.length;
        after = lastKey(table, rows);
        options.onProgress?.(table.name, copied, Math.max(total, copied));
      }
      summary.tables.push({ table: table.name, rows: copied });
      if (copied > 0) {
        report(`${table.name}: read from the source`, readMs);
        report(`${table.name}: written to the target`, writeMs);
      }
    }
    await target.finish(report);
    summary.durationMs = Date.now() - started;
    return summary;
  } finally {
    await source.close();
    await target?.close();
  }
}
