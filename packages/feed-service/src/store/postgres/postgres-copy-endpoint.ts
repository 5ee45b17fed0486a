/** The PostgreSQL side of `migrate-data`: reads and writes the store tables of one database. */
import type pg from "pg";
import type { CopiedTable, CopyEndpoint, Row } from "../copied-tables.js";
import { htmlToIndexText } from "../index-text.js";
import { inTransaction, openPostgresPool, rows } from "./postgres-connection.js";
import { migratePostgres } from "./postgres-migrations.js";
import { searchVector } from "./postgres-text-search.js";

const POST_TITLE = 4;
const POST_EXCERPT = 5;
const POST_CONTENT = 6;
const POST_FEED = 1;
/** PostgreSQL binds at most 65535 parameters per statement. */
const MAX_PARAMS = 60_000;

export class PostgresEndpoint implements CopyEndpoint {
  readonly description = "PostgreSQL database";
  readonly #pool: pg.Pool;

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

  async write(
    table: CopiedTable,
    batch: readonly Row[],
    feedNames: ReadonlyMap<number, string>,
  ): Promise<void> {
    const isPosts = table.name === "posts";
    const columns = isPosts ? [...table.columns, "search_vector"] : [...table.columns];
    const perStatement = Math.max(1, Math.floor(MAX_PARAMS / columns.length));
    await inTransaction(this.#pool, async (sql) => {
      for (let start = 0; start < batch.length; start += perStatement) {
        const chunk = batch.slice(start, start + perStatement);
        const values: unknown[] = [];
        const tuples = chunk.map((row) => {
          const cells = isPosts
            ? [
                ...row,
                searchVector(
                  feedNames.get(Number(row[POST_FEED])) ?? "",
                  String(row[POST_TITLE]),
                  `${row[POST_EXCERPT]} ${htmlToIndexText(String(row[POST_CONTENT]))}`,
                ),
              ]
            : row;
          const marks = cells.map((cell) => {
            values.push(cell);
            return `$${values.length}`;
          });
          if (isPosts) marks[marks.length - 1] += "::tsvector";
          return `(${marks.join(", ")})`;
        });
        // Languages 1 and 2 exist in every database: the copy's spelling replaces them.
        await sql.query(
          `INSERT INTO ${table.name} (${columns.join(", ")}) VALUES ${tuples.join(", ")}
            ON CONFLICT (${table.key}) DO UPDATE SET ${columns.map((c) => `${c} = excluded.${c}`).join(", ")}`,
          values,
        );
      }
    });
  }

  async clear(): Promise<void> {
    await inTransaction(this.#pool, async (sql) => {
      await sql.query(
        "TRUNCATE websub_subscriptions, clicks, searches, smart_categories, posts, feeds, categories, settings RESTART IDENTITY",
      );
      await sql.query("DELETE FROM languages WHERE id > 2");
    });
  }

  async finish(): Promise<void> {
    for (const name of [
      "languages",
      "categories",
      "feeds",
      "posts",
      "smart_categories",
      "searches",
      "clicks",
    ]) {
      await rows(
        this.#pool,
        `SELECT setval(pg_get_serial_sequence('${name}', 'id'), coalesce(max(id), 1), max(id) IS NOT NULL) FROM ${name}`,
      );
    }
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }
}
