/**
 * A reading kept and reused for a while (posts per day, the statistics' least common share, the
 * total of all clicks): values that only steer how a read is done, never what it answers, so a
 * stale one costs time at worst.
 */
import type { Sql } from "./postgres-connection.js";

export interface Reading<T> {
  at: number;
  value: T;
  refreshing?: Promise<void>;
}

/**
 * `read()`'s value kept for `key` on `sql` in `cache`, read again when `ttlMs` old: beside the
 * read that finds it so, which uses the old value (only the first read of a key waits).
 */
export async function reused<T>(
  cache: WeakMap<Sql, Map<string, Reading<T>>>,
  sql: Sql,
  key: string,
  ttlMs: number,
  now: () => number,
  read: () => Promise<T>,
): Promise<T> {
  const entries = cache.get(sql) ?? new Map<string, Reading<T>>();
  cache.set(sql, entries);
  const readNow = async (): Promise<Reading<T>> => {
    const at = now();
    const value = await read();
    if (entries.size > 100) entries.clear();
    const entry = { at, value };
    entries.set(key, entry);
    return entry;
  };
  const kept = entries.get(key);
  if (kept === undefined) return (await readNow()).value;
  if (now() - kept.at >= ttlMs && kept.refreshing === undefined) {
    // A failed reading leaves the old value for the next read to try again.
    kept.refreshing = readNow().then(
      () => undefined,
      () => {
        kept.refreshing = undefined;
      },
    );
  }
  return kept.value;
}
