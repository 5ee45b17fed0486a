/**
 * Runs `fn` on the store at `location` (a SQLite path or a PostgreSQL URL, as `openStore` takes
 * it) and closes the store afterwards, whether `fn` ends well or not: for tests that open a
 * database between runs of the CLI or of a migration, which hold it in between.
 */
import { openStore } from "../store/open-store.js";
import type { Store } from "../store/store.js";

export async function withStoreAt<T>(location: string, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(location);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}
