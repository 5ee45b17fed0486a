/**
 * The global `--database` option (spec §6): a path, `sqlite:<path>` or `postgres://…`; env
 * FEED_SERVICE_DATABASE; default `./data/feeds.db` relative to the current folder.
 */
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { type OpenStoreOptions, openStore } from "../store/open-store.js";
import type { Store } from "../store/store.js";
import type { OptionSpec } from "./command-line.js";

export const defaultDatabase = "./data/feeds.db";

export const databaseOption: Record<"database", OptionSpec> = { database: { type: "string", env: true } };

export function databaseLocation(values: Record<string, string | boolean | undefined>): string {
  const raw = values.database;
  return typeof raw === "string" && raw.trim() !== "" ? raw.trim() : defaultDatabase;
}

/** Opens (creating and migrating when new) the database; a SQLite file's folder is created first. */
export async function openDatabase(location: string, options: OpenStoreOptions = {}): Promise<Store> {
  if (!/^postgres(ql)?:\/\//i.test(location)) {
    const path = location.startsWith("sqlite:") ? location.slice("sqlite:".length) : location;
    if (path !== ":memory:") mkdirSync(dirname(resolve(path)), { recursive: true });
  }
  return openStore(location, options);
}
