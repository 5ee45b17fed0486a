/**
 * The PostgreSQL side of `migrate-data`: reads the store tables of one database, or loads them
 * into an empty one in one transaction, with its indexes, constraints and roll-up triggers set
 * aside until the rows are in (postgres-bulk-load.ts).
 */
import type pg from "pg";
import type { CopiedTable, CopyEndpoint, Row } from "../copied-tables.js";
import { htmlToIndexText } from "../index-text.js";
import { putBack, type SetAside, setAsideForLoad } from "./postgres-bulk-load.js";
import {
  inTransaction,
  openPostgresPool,
  rows,
  type Sql,
  translatePostgresError,
} from "./postgres-connection.js";
import { migratePostgres } from "./postgres-migrations.js";
import { postVectors } from "./postgres-text-search.js";

const POST_TITLE = 4;
const POST_EXCERPT = 5;
const POST_CONTENT = 6;
const POST_FEED = 1;
/** Tables whose ids come from a sequence that continues after the copied ids. */
const sequenceTables = [
  "languages",
  "categories",
  "feeds",
  "posts",
  "smart_categories",
  "searches",
  "clicks",
  "admin_users",
  "audit_log",
  "suggestions",
  "sign_in_failures",
];

/** The copy's one transaction: its connection, what it set aside, column types, the INSERT under way. */
interface Load {
  readonly client: pg.PoolClient;
  readonly setAside: SetAside;
  /** udt_name by `table.column`, for the arrays' casts. */
  readonly types: ReadonlyMap<string, string>;
  inFlight: Promise<unknown>;
}

export class PostgresEndpoint implements CopyEndpoint {
  readonly description = "PostgreSQL database";
  readonly #pool: pg.Pool;
  #load: Load | undefined;

  private constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  /** Connects to (and migrates) the database at `url`. */
  static async open(url: string): Promise<PostgresEndpoint> {
    const pool = await openPostgresPool({ url, max: 2 });
    try {
      await migratePostgres(pool);
    } catch (error) {
      await pool.end();
      throw error;
    }
    return new PostgresEndpoint(pool);
  }

  async count(table: CopiedTable): Promise<number> {
    const where = table.name === "languages" ? "WHERE id > 2" : "";
    const [row] = await rows<{ n: number }>(this.#pool, `SELECT count(*) AS n FROM ${table.name} ${where}`);
    return row!.n;
  }

  async read(table: CopiedTable, after: unknown, limit: number): Promise<Row[]> {
    const where = after === null ? "" : `WHERE ${table.key} > $2`;
    const result = await this.#pool.query({
      text: `SELECT ${table.columns.join(", ")} FROM ${table.name} ${where} ORDER BY ${table.key} LIMIT $1`,
      values: after === null ? [limit] : [limit, after],
      rowMode: "array",
    });
    return result.rows as Row[];
  }

  async begin(): Promise<void> {
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      throw translatePostgresError(error);
    }
    try {
      await client.query("BEGIN");
      const types = await rows<{ tbl: string; col: string; udt: string }>(
        client,
        `SELECT table_name AS tbl, column_name AS col, udt_name AS udt FROM information_schema.columns
          WHERE table_schema = current_schema()`,
      );
      this.#load = {
        client,
        setAside: await setAsideForLoad(client),
        types: new Map(types.map((t) => [`${t.tbl}.${t.col}`, t.udt])),
        inFlight: Promise.resolve(),
      };
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      client.release();
      throw translatePostgresError(error);
    }
  }

  #loading(): Load {
    if (!this.#load) throw new Error("The copy into PostgreSQL writes between begin() and finish().");
    return this.#load;
  }

  /**
   * One INSERT of the whole batch as one array per column (unnest), sent without waiting for it:
   * the next batch is read and its search vectors computed while the server stores this one.
   * Languages 1 and 2 exist in every database: the copy's spelling replaces them.
   */
  async write(
    table: CopiedTable,
    batch: readonly Row[],
    feedNames: ReadonlyMap<number, string>,
  ): Promise<void> {
    const load = this.#loading();
    const isPosts = table.name === "posts";
    const columns = isPosts ? [...table.columns, "search_vector", "phrase_vector"] : [...table.columns];
    const arrays: unknown[][] = columns.map(() => []);
    for (const row of batch) {
      for (let i = 0; i < row.length; i++) arrays[i]!.push(row[i]);
      if (isPosts) {
        const vectors = postVectors(
          feedNames.get(Number(row[POST_FEED])) ?? "",
          String(row[POST_TITLE]),
          `${row[POST_EXCERPT]} ${htmlToIndexText(String(row[POST_CONTENT]))}`,
        );
        arrays[columns.length - 2]!.push(vectors.words);
        arrays[columns.length - 1]!.push(vectors.pairs);
      }
    }
    const unnest = columns.map((c, i) => `$${i + 1}::${load.types.get(`${table.name}.${c}`) ?? "text"}[]`);
    const text = `INSERT INTO ${table.name} (${columns.join(", ")}) SELECT * FROM unnest(${unnest.join(", ")})
      ON CONFLICT (${table.key}) DO UPDATE SET ${columns.map((c) => `${c} = excluded.${c}`).join(", ")}`;
    await this.#settle(load);
    const sent = load.client.query(text, arrays);
    // Awaited by the next write or finish(); this handler only keeps the rejection from being unhandled.
    sent.catch(() => {});
    load.inFlight = sent;
  }

  async #settle(load: Load): Promise<void> {
    try {
      await load.inFlight;
    } catch (error) {
      throw translatePostgresError(error);
    }
  }

  /**
   * Inside the copy's transaction once begin() opened it (a copy that fails then keeps the data),
   * else in a transaction of its own.
   */
  async clear(): Promise<void> {
    const empty = async (sql: Sql) => {
      await sql.query(
        "TRUNCATE feed_pauses, sign_in_failures, suggestions, audit_log, admin_sessions, admin_users, websub_subscriptions, clicks, clicked_posts, story_copies, story_bands, story_keys, searches, smart_categories, posts, feeds, categories, settings RESTART IDENTITY",
      );
      await sql.query("DELETE FROM languages WHERE id > 2");
    };
    if (!this.#load) return inTransaction(this.#pool, empty);
    try {
      await empty(this.#load.client);
    } catch (error) {
      throw translatePostgresError(error);
    }
  }

  async finish(): Promise<void> {
    const load = this.#loading();
    await this.#settle(load);
    const sql = load.client;
    try {
      await putBack(sql, load.setAside);
      for (const name of sequenceTables) {
        await sql.query(
          `SELECT setval(pg_get_serial_sequence('${name}', 'id'), coalesce(max(id), 1), max(id) IS NOT NULL) FROM ${name}`,
        );
      }
      // The planner's statistics describe the loaded tables before anyone reads them.
      await sql.query(`ANALYZE ${[...sequenceTables, "post_days", "scope_days", "click_days"].join(", ")}`);
      await sql.query("COMMIT");
    } catch (error) {
      throw translatePostgresError(error);
    }
    this.#load = undefined;
    load.client.release();
  }

  /** Ends the pool; a copy that did not finish is rolled back, leaving the database as it was. */
  async close(): Promise<void> {
    const load = this.#load;
    this.#load = undefined;
    if (load) {
      await load.inFlight.catch(() => {});
      await load.client.query("ROLLBACK").catch(() => {});
      load.client.release();
    }
    await this.#pool.end();
  }
}
