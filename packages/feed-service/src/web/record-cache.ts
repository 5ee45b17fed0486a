/**
 * The pages' cache of operation records: the answers of pure operations (see FeedOperation.pure),
 * and for a few seconds those of operations that only read the clock, kept per operation, arguments
 * and base URL, and valid only while the store's data version is the
 * one they were read under — the rule of the SOAP and JSON answer cache (http/response-cache.ts),
 * applied to records rather than bytes, because a page renders relative times ("3 min ago") from
 * its own clock on every request. Any write, by this process or another, makes every entry stale,
 * except that the searches this process records make stale only the search history's entries
 * (every search page records one; the language list it also shows does not depend on it).
 */
import type { OperationRecord } from "../operations/column-sets.js";
import type { OperationRunner } from "../operations/operation-runner.js";

interface Entry {
  readonly version: string;
  readonly records: readonly OperationRecord[];
  /** When the records were read (epoch ms), for the clock-bound operations below. */
  readonly at: number;
}

/**
 * Operations that are not pure only because they read the clock (a window of days, "the last 24
 * hours"), with no side effect: their records may serve for a few seconds, by which the window
 * has moved by as much. Search is not among them: it records the search (a side effect).
 */
const clockBound: ReadonlySet<string> = new Set([
  "getAggregateLanguageData",
  "getMostPopularPosts",
  "getMostPopularFeeds",
  "getMostProlificFeeds",
]);

/** How long the records of a clock-bound operation serve. */
export const clockBoundLifetimeMs = 10_000;

/** Entries kept at most; the oldest go first. A page's records are a few dozen rows. */
export const recordCacheEntries = 2000;

/** Which writes an entry must see: all of them, or all but this process's records of searches. */
export type VersionScope = "all" | "besides-search-history";

/** The operations whose answers read the search history. */
const readsSearchHistory: ReadonlySet<string> = new Set(["getSearchHistory"]);

/**
 * The runner with a cache in front of its pure operations.
 *
 * @example
 * const pagesRunner = cachingRunner(runner, (scope) => store.dataVersion());
 */
export function cachingRunner(
  runner: OperationRunner,
  dataVersion: (scope: VersionScope) => Promise<string>,
  maxEntries = recordCacheEntries,
  now: () => number = Date.now,
): OperationRunner {
  const entries = new Map<string, Entry>();
  return {
    ...runner,
    async call(operation, args, context) {
      const bound = clockBound.has(operation);
      if (!runner.isPure(operation) && !bound) return runner.call(operation, args, context);
      // A store that cannot tell its version serves every call fresh.
      const scope = readsSearchHistory.has(operation) ? "all" : "besides-search-history";
      const version = await dataVersion(scope).catch(() => undefined);
      if (version === undefined) return runner.call(operation, args, context);
      const key = `${operation}\n${context.baseUrl}\n${JSON.stringify(args)}`;
      const hit = entries.get(key);
      const at = now();
      if (hit?.version === version && (!bound || at - hit.at < clockBoundLifetimeMs)) return hit.records;
      const records = await runner.call(operation, args, context);
      entries.delete(key);
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(key, { version, records, at });
      return records;
    },
  };
}
