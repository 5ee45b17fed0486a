/**
 * The PostgreSQL connection pool for the store (driver `pg`): 64-bit integers (instants in epoch
 * milliseconds, counts) read as JavaScript numbers, an optional schema to work in, a transaction
 * helper, and the translation of driver errors into the package's error type, without SQL text,
 * host names or credentials.
 */
import { createHash } from "node:crypto";
import pg from "pg";
import { badArgument, FeedServiceError } from "../../errors.js";

/** Anything that runs a statement: the pool or a client inside a transaction. */
export interface Sql {
  query(text: string, values?: unknown[]): Promise<pg.QueryResult>;
  query(config: pg.QueryConfig): Promise<pg.QueryResult>;
}

const INT8 = 20;
const NUMERIC = 1700;

/** Per-pool parsers, so that other users of `pg` in the same process keep the driver's defaults. */
const types = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    // Epoch milliseconds and counts stay far below 2^53.
    if (oid === INT8 || oid === NUMERIC) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

export interface PostgresPoolOptions {
  /** A `postgres://` URL. */
  url: string;
  /** Work in this schema (created when missing); default: the server's search_path. */
  schema?: string;
  /** Pool size (default 10). */
  max?: number;
  /** Create the schema when missing (default true; a read replica cannot). */
  createSchema?: boolean;
  /** Server settings for every connection of the pool (names and values without spaces). */
  settings?: Readonly<Record<string, string | number>>;
  /** Run on each new connection before the pool hands it out (see postgres-connection-warm.ts). */
  onConnect?: (client: pg.ClientBase) => Promise<void>;
}

const SCHEMA = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * @example
 * const pool = await openPostgresPool({ url: "postgres://feeds@db/feeds" });
 */
export async function openPostgresPool(options: PostgresPoolOptions): Promise<pg.Pool> {
  if (options.schema !== undefined && !SCHEMA.test(options.schema)) {
    throw badArgument(
      `A PostgreSQL schema name must be lower-case letters, digits and _; got ${JSON.stringify(options.schema)}.`,
    );
  }
  // Startup options of each connection: set once per connection, no round trip per query.
  const settings = Object.entries({
    ...(options.schema ? { search_path: options.schema } : {}),
    ...options.settings,
  }).map(([name, value]) => `-c ${name}=${value}`);
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.max ?? 10,
    types,
    connectionTimeoutMillis: 10_000,
    // An idle connection is kept, not closed after the driver's default 10 s: a new one costs a
    // connect, the authentication and a server process whose caches are cold (figures in
    // bench/NOTES.md). The pool's size bounds what is kept; an idle connection does not keep a
    // process from exiting.
    idleTimeoutMillis: 0,
    allowExitOnIdle: true,
    ...(options.onConnect ? { onConnect: options.onConnect } : {}),
    ...(settings.length > 0 ? { options: settings.join(" ") } : {}),
  });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on("error", () => {});
  try {
    if (options.schema && options.createSchema !== false) {
      // Two processes creating the schema at once: IF NOT EXISTS can still lose the race with a
      // unique violation; the schema exists either way.
      await pool.query(`CREATE SCHEMA IF NOT EXISTS ${options.schema}`).catch((error: { code?: string }) => {
        if (error.code !== "23505" && error.code !== "42P06") throw error;
      });
    } else await pool.query("SELECT 1");
  } catch (error) {
    await pool.end().catch(() => {});
    const translated = translatePostgresError(error);
    if (translated instanceof FeedServiceError && translated.code === "FEED_STORE_UNAVAILABLE") {
      // Names neither the host nor the credentials: this may be shown to whoever started the process.
      throw new FeedServiceError(
        "FEED_STORE_UNAVAILABLE",
        "Could not connect to the PostgreSQL database: check the URL, that the server is up and the credentials.",
        { cause: error },
      );
    }
    throw translated;
  }
  return pool;
}

/** Runs `fn` in a transaction on one client of the pool; rolls back on any error. */
export async function inTransaction<T>(pool: pg.Pool, fn: (sql: Sql) => Promise<T>): Promise<T> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw translatePostgresError(error);
  }
  try {
    await client.query("BEGIN");
    const result = await fn(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw translatePostgresError(error);
  } finally {
    client.release();
  }
}

const statementNames = new Map<string, string>();

/**
 * A name per SQL text, so that each connection parses and plans a statement once and reuses the
 * plan (an unnamed statement is planned on every call, which costs more than the short queries of
 * the operations themselves).
 */
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `feed_${createHash("sha1").update(text).digest("hex").slice(0, 24)}`;
    statementNames.set(text, name);
  }
  return name;
}

/** The rows of one (prepared, see `statementName`) statement, with driver errors translated. */
export async function rows<T>(sql: Sql, text: string, values: unknown[] = []): Promise<T[]> {
  try {
    return (await sql.query({ name: statementName(text), text, values })).rows as T[];
  } catch (error) {
    throw translatePostgresError(error);
  }
}

/** The number of rows a statement changed. */
export async function changes(sql: Sql, text: string, values: unknown[] = []): Promise<number> {
  try {
    return (await sql.query(text, values)).rowCount ?? 0;
  } catch (error) {
    throw translatePostgresError(error);
  }
}

/** Turns driver errors into the package's error type without leaking SQL text, hosts or paths. */
export function translatePostgresError(error: unknown, conflictMessage?: string): unknown {
  if (error instanceof FeedServiceError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "23505") {
    return new FeedServiceError(
      "FEED_CONFLICT",
      conflictMessage ?? "That would duplicate an existing entry.",
      {
        cause: error,
      },
    );
  }
  if (code === "22021" || code === "22P05") {
    return badArgument("Text must not contain NUL characters or bytes that are not UTF-8.");
  }
  if (code === "57014") {
    // The pool's statement_timeout (or an operator's pg_cancel_backend); the store that set the
    // deadline rewrites the message with its length (see postgres-read-side.ts).
    return new FeedServiceError(
      "FEED_QUERY_TIMEOUT",
      "The query ran past the query deadline and was stopped.",
      {
        cause: error,
      },
    );
  }
  if (code === "23503") {
    return new FeedServiceError("FEED_NOT_FOUND", "A referenced row does not exist.", { cause: error });
  }
  return new FeedServiceError("FEED_STORE_UNAVAILABLE", "The database is busy or unavailable; try again.", {
    cause: error,
  });
}
