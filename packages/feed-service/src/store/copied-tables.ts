/**
 * What `migrate-data` copies: every table of the store schema that holds data, in an order that
 * respects the foreign keys, with the columns both dialects share. Search indexes are not copied
 * (each dialect rebuilds its own from the posts) and neither are ingest claims (a lease is only
 * meaningful on the database it was taken on).
 */

export interface CopiedTable {
  readonly name: string;
  /**
   * The key the copy pages by (ascending); unique. Several columns, comma-separated, are compared
   * as one row value (`(a, b) > (?, ?)`, which both dialects seek through the key's index).
   */
  readonly key: string;
  readonly columns: readonly string[];
  /** Whether its `id` comes from a sequence that must continue after the copied ids. */
  readonly sequence: boolean;
}

export const copiedTables: readonly CopiedTable[] = [
  { name: "languages", key: "id", columns: ["id", "code", "filing_key", "name"], sequence: true },
  { name: "categories", key: "id", columns: ["id", "name", "name_key"], sequence: true },
  {
    name: "feeds",
    key: "id",
    columns: [
      "id",
      "url",
      "name",
      "name_key",
      "site_url",
      "description",
      "category_id",
      "language_id",
      "post_count",
      "last_post_date",
      "etag",
      "last_modified",
      "next_fetch_at",
      "last_fetched_at",
      "error_count",
      "last_error",
      "last_success_at",
      "last_error_at",
      "last_error_stage",
      "last_error_code",
    ],
    sequence: true,
  },
  {
    name: "posts",
    key: "id",
    columns: [
      "id",
      "feed_id",
      "guid",
      "link",
      "title",
      "excerpt",
      "content",
      "published_at",
      "updated_at",
      "seen_at",
      "post_date",
      "language_id",
      "category_id",
      "clicks",
    ],
    sequence: true,
  },
  {
    name: "smart_categories",
    key: "id",
    columns: ["id", "key", "name", "name_key", "query"],
    sequence: true,
  },
  {
    name: "searches",
    key: "id",
    columns: ["id", "terms_key", "terms", "search_count", "last_searched"],
    sequence: true,
  },
  { name: "clicks", key: "id", columns: ["id", "post_id", "clicked_at", "client_hash"], sequence: true },
  // One story once: the copies other feeds carry, each story's link key and text print, and the
  // print's band rows, through which a new copy meets its story by text on the new database too.
  {
    name: "story_copies",
    key: "id",
    columns: [
      "id",
      "feed_id",
      "post_id",
      "guid",
      "link",
      "title",
      "excerpt",
      "content",
      "published_at",
      "updated_at",
      "seen_at",
      "language_id",
      "story_date",
      "merged_by",
      "merged_at",
    ],
    sequence: true,
  },
  { name: "story_keys", key: "post_id", columns: ["post_id", "link_key", "print"], sequence: false },
  {
    name: "story_bands",
    // Unique on both dialects whatever their primary key (SQLite keys it by post since schema 22).
    key: "post_id, band, post_date",
    columns: ["band", "post_date", "post_id"],
    sequence: false,
  },
  { name: "settings", key: "name", columns: ["name", "value"], sequence: false },
  {
    // Copied whole, secrets and callbacks included: the service keeps its public URL, so its
    // subscriptions at the hubs stay valid on the new database.
    name: "websub_subscriptions",
    key: "feed_id",
    columns: [
      "feed_id",
      "hub_url",
      "topic_url",
      "state",
      "callback_id",
      "secret",
      "lease_seconds",
      "lease_expires_at",
      "next_attempt_at",
      "attempts",
      "last_error",
      "discovered_at",
      "verified_at",
      "last_push_at",
    ],
    sequence: false,
  },
  // Administrators and their sessions (ids stored hashed) travel too: signed-in administrators
  // stay signed in on the new database, as its subscriptions stay valid.
  {
    name: "admin_users",
    key: "id",
    columns: ["id", "name", "name_key", "password_hash", "created_at", "changed_at"],
    sequence: true,
  },
  {
    name: "admin_sessions",
    key: "id_hash",
    columns: ["id_hash", "user_id", "csrf_token", "created_at", "last_seen_at"],
    sequence: false,
  },
  {
    name: "audit_log",
    key: "id",
    columns: ["id", "at", "actor", "action", "subject", "details"],
    sequence: true,
  },
  {
    name: "suggestions",
    key: "id",
    columns: [
      "id",
      "url",
      "feed_url",
      "feed_title",
      "category_id",
      "note",
      "client_hash",
      "state",
      "created_at",
      "decided_at",
      "decided_by",
      "feed_id",
    ],
    sequence: true,
  },
  { name: "sign_in_failures", key: "id", columns: ["id", "key", "at"], sequence: true },
  { name: "feed_pauses", key: "feed_id", columns: ["feed_id", "paused_at"], sequence: false },
];

/**
 * The ON CONFLICT clause of a copied row: a table whose every column is in its key has nothing to
 * update, so any unique constraint it meets (the dialects' primary keys may differ) keeps the row.
 */
export function onConflict(table: CopiedTable, columns: readonly string[]): string {
  const key = keyColumns(table);
  if (columns.every((c) => key.includes(c))) return "ON CONFLICT DO NOTHING";
  return `ON CONFLICT (${table.key}) DO UPDATE SET ${columns.map((c) => `${c} = excluded.${c}`).join(", ")}`;
}

/** The columns of a table's key, in order. */
export function keyColumns(table: CopiedTable): string[] {
  return table.key.split(",").map((c) => c.trim());
}

/**
 * The condition of a read after `after` (a key value, or the values of a composite key) and its
 * values, with the placeholders `mark` names (?, or $2, $3, … from the index it is given).
 *
 * @example
 * keyAfter(table, [3, 7, 100], () => "?"); // { where: "WHERE (post_id, band, post_date) > (?, ?, ?)", values: [7, 100, 3] }
 */
export function keyAfter(
  table: CopiedTable,
  after: unknown,
  mark: (index: number) => string,
): { where: string; values: unknown[] } {
  if (after === null) return { where: "", values: [] };
  const values = Array.isArray(after) ? after : [after];
  return { where: `WHERE (${table.key}) > (${values.map((_, i) => mark(i)).join(", ")})`, values };
}

/** Reports one step of a copy and the milliseconds it took, for the progress report. */
export type StepReport = (step: string, ms: number) => void;

/** A row as the copy moves it: values in the table's column order. */
export type Row = unknown[];

/** One side of a copy: a migrated database of either dialect. */
export interface CopyEndpoint {
  readonly description: string;
  /** Rows in the table (languages: beyond the two every new database has). */
  count(table: CopiedTable): Promise<number>;
  /** Up to `limit` rows with a key after `after` (null: from the start), by key. */
  read(table: CopiedTable, after: unknown, limit: number): Promise<Row[]>;
  /**
   * Before clear() and the first write, on a target found empty or about to be emptied: whatever
   * makes the load fast (PostgreSQL: one transaction, indexes and roll-up triggers set aside).
   */
  begin(): Promise<void>;
  /** Writes rows (posts: with their search index entry, named by `feedNames`). */
  write(table: CopiedTable, rows: readonly Row[], feedNames: ReadonlyMap<number, string>): Promise<void>;
  /** Removes every row of every copied table (and the search index), for `--force`. */
  clear(): Promise<void>;
  /**
   * After the copy: sequences continue after the copied ids, and what the store keeps counted
   * (roll-ups, per-language counts) is counted from the copied rows; `report` hears each step.
   */
  finish(report?: StepReport): Promise<void>;
  close(): Promise<void>;
}
