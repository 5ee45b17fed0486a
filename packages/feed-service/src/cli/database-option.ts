/**
 * The global `--database` option (spec §6): a path, `sqlite:<path>` or `postgres://…`; env
 * FEED_SERVICE_DATABASE; default `./data/feeds.db` relative to the current folder.
 *
 * A command that only reads refuses a SQLite file that does not exist (a typo in the path would
 * otherwise leave an empty database behind and answer "(none)"); a command that writes creates it,
 * with its folder, and says so on stderr. PostgreSQL databases are made by their server's
 * administrator: a store opened there creates only its tables.
 */
import { existsSync, mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { badArgument } from "../errors.js";
import type { OpenStoreOptions } from "../store/open-store.js";
import type { Store } from "../store/store.js";
import type { OptionSpec } from "./command-line.js";
import type { Output } from "./output.js";

export const defaultDatabase = "./data/feeds.db";

export const databaseOption: Record<"database", OptionSpec> = { database: { type: "string", env: true } };

export function databaseLocation(values: Record<string, string | boolean | undefined>): string {
  const raw = values.database;
  return typeof raw === "string" && raw.trim() !== "" ? raw.trim() : defaultDatabase;
}

/**
 * What a command does with a database that does not exist yet: `read` refuses it (exit 2),
 * `create` creates it and writes `feed-service: created database <path>` to `output`'s stderr
 * (left out by a command that says it in its own words, as start-demo does).
 */
export type DatabaseAccess =
  | { readonly mode: "read" }
  | { readonly mode: "create"; readonly output?: Output };

/** The SQLite file a location names, or undefined for PostgreSQL and `:memory:`. */
export function sqliteFile(location: string): string | undefined {
  const value = location.trim();
  if (/^postgres(ql)?:\/\//i.test(value)) return undefined;
  const path = value.startsWith("sqlite:") ? value.slice("sqlite:".length) : value;
  // Anything else with a scheme is refused by openStore, with the forms it takes.
  if (path === ":memory:" || path === "" || /^[a-z][a-z0-9+.-]*:\/\//i.test(path)) return undefined;
  return path;
}

/**
 * Throws FEED_BAD_ARGUMENT (exit 2) when `location` is a SQLite file that does not exist,
 * naming the path and how to create a database.
 */
export function requireExistingDatabase(location: string, option = "--database"): void {
  const file = sqliteFile(location);
  if (file === undefined || existsSync(resolve(file))) return;
  throw badArgument(
    `No database at ${file} (${option}); create one with "feed-service demo --database ${file}" ` +
      `(demo data) or by adding to it ("feed-service feeds add <url> --database ${file}", ` +
      `"feed-service opml import <file> --database ${file}").`,
  );
}

/**
 * Opens (migrating when older) the database; see `DatabaseAccess` for one that does not exist.
 * The store modules load here, on first use, so that `--help` and usage errors never wait for them.
 *
 * @example
 * const store = await openDatabase(databaseLocation(values), { mode: "read" });
 */
export async function openDatabase(
  location: string,
  access: DatabaseAccess,
  options: OpenStoreOptions = {},
): Promise<Store> {
  const file = sqliteFile(location);
  const created = file !== undefined && !existsSync(resolve(file));
  if (created) {
    if (access.mode === "read") requireExistingDatabase(location);
    mkdirSync(dirname(resolve(file)), { recursive: true });
  }
  const { openStore } = await import("../store/open-store.js");
  const store = await openStore(location, options);
  if (created && access.mode === "create") access.output?.err(`feed-service: created database ${file}\n`);
  return store;
}
