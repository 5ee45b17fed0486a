/**
 * A `Sql` over a test's pool that keeps the text of every statement sent through it, so a test can
 * assert which plan a search took (which index, which table it read) beside its exact answer.
 */
import type pg from "pg";
import type { Sql } from "../store/postgres/postgres-connection.js";

/** Every statement a search ran through the returned `sql`, in order. */
export function recordingSql(pool: pg.Pool): { sql: Sql; ran: string[] } {
  const ran: string[] = [];
  const sql: Sql = {
    query: ((config: string | { text: string }, values?: unknown[]) => {
      ran.push(typeof config === "string" ? config : config.text);
      return pool.query(config as string, values);
    }) as Sql["query"],
  };
  return { sql, ran };
}
