/**
 * Which `feeds` columns one refresh writes: the fetch state and metadata fields of a `FeedUpdate`
 * mapped to their column names, shared by both dialects so they cannot drift apart. Each dialect
 * turns the pairs into its own `UPDATE` (placeholders differ).
 */
import type { FeedUpdate } from "./store.js";

const fetchStateColumns = {
  etag: "etag",
  lastModified: "last_modified",
  nextFetchAt: "next_fetch_at",
  lastFetchedAt: "last_fetched_at",
  lastSuccessAt: "last_success_at",
  errorCount: "error_count",
  lastError: "last_error",
  lastErrorAt: "last_error_at",
  lastErrorStage: "last_error_stage",
  lastErrorCode: "last_error_code",
} as const;

const metadataColumns = {
  feedName: "name",
  siteUrl: "site_url",
  feedDescription: "description",
  feedUrl: "url",
  languageId: "language_id",
} as const;

/**
 * The column/value pairs a refresh sets on its feed row, in a stable order; fields left
 * `undefined` are not written. `renamed` (the new name, or null) also sets the lower-cased
 * `name_key` the catalog sorts by.
 *
 * @example
 * feedColumnUpdates({ fetchState: { etag: "x" }, posts: [] }, null); // [["etag", "x"]]
 */
export function feedColumnUpdates(update: FeedUpdate, renamed: string | null): Array<[string, unknown]> {
  const pairs: Array<[string, unknown]> = [];
  for (const [field, column] of Object.entries(fetchStateColumns)) {
    const value = (update.fetchState as Record<string, unknown>)[field];
    if (value !== undefined) pairs.push([column, value]);
  }
  for (const [field, column] of Object.entries(metadataColumns)) {
    const value = (update.feed as Record<string, unknown> | undefined)?.[field];
    if (value !== undefined) pairs.push([column, value]);
  }
  if (renamed !== null) pairs.push(["name_key", renamed.toLowerCase()]);
  return pairs;
}
