/**
 * A heavy query thread's warm-up (sqlite-read-worker.ts), on arguments that select nothing: a
 * word no post holds, a window that ends now. Spec §4 Latency: general warm-ups only, no
 * particular word, post or window read into a cache. A thread's first call of each kind otherwise
 * pays for compiling its statements and optimising its code, and reads the pages of the indexes
 * every search reads whatever its words (sqlite-index-warm.ts).
 */
import { resolveSearchFilters } from "../../operations/search-filters.js";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { collectGarbage } from "../../threads/collect-garbage.js";
import { absentWord } from "../cache-warm.js";
import type { SqliteStore } from "./sqlite-store.js";

/**
 * The search forms warmed beside the plain word: the operators of spec §4 that fts5-operators.ts
 * plans apart from plain words (a prefix, title:, feed:, a date; lang: alone folds into the
 * languages, warmed as those), a phrase and an exclusion, each on words no post and no feed's name
 * holds, so that the statements on the way are prepared and run on no rows.
 *
 * @example
 * warmSearchTexts("qzx", "vkw"); // ["qzx", "qzx*", 'title:qzx', ...]
 */
export function warmSearchTexts(word: string, other: string): string[] {
  return [
    word,
    `${word}*`,
    `title:${word}`,
    `"${word} ${other}"`,
    `${word} -${other}`,
    `feed:${other} ${word}`,
    `after:2000-01-01 ${word}`,
  ];
}

export async function warmHeavyThread(store: SqliteStore, word: string, other: string): Promise<void> {
  const now = Date.now();
  for (const text of warmSearchTexts(word, other)) {
    // As the operation hands it over: feed: resolved to the ids of the feeds so named (none).
    const query = await resolveSearchFilters(store, parseSearchQuery(text));
    for (const sort of ["relevance", "date", "clicks"] as const) {
      for (const languageIds of [null, [1]]) {
        await store.searchPosts({ query, sort, limit: 1000, offset: 0, languageIds });
      }
    }
  }
  await store.mostPopularPosts({ since: now, limit: 1000, categoryId: null });
  await store.mostPopularFeeds({ since: now, limit: 1000 });
  await store.mostProlificFeeds({ since: now, limit: 1000 });
  // The language data has no argument: its statement and the pages of each language's newest
  // posts it reads, a first call's 30-40 page reads otherwise.
  await store.aggregateLanguageData(now);
  await store.warmSearchLengths();
  await store.warmRankingTables();
  // Last, so that a first search's own pages push out the lengths' and sums' pages first (the
  // lengths themselves are kept apart from the page cache).
  await store.warmSearchIndexes();
}

/**
 * A query thread's warm-up before it says ready (sqlite-read-worker.ts). Every thread: one cheap
 * read (SQLite reads the schema on a connection's first statement, which for this schema is a
 * noticeable first-call cost). A heavy thread (`heavy`) also runs each kind of heavy read once on
 * arguments that select nothing, reads every post's length for scoring into its connection's
 * cache (a seek per hit scored on a first search otherwise), the feed rankings' running sums and
 * the day counts (a page per feed on a first ranking), and the indexes every search reads. No
 * particular word, post or window is read into a cache (spec §4 Latency); the file itself was
 * read into the OS cache by the pool (sqlite-warm.ts). Last, a full collection: the warm-up's
 * garbage is not left for the thread's first call (collect-garbage.ts).
 *
 * @example
 * await warmQueryThread(store, true); // in a heavy query thread, before it says ready
 */
export async function warmQueryThread(store: SqliteStore, heavy: boolean): Promise<void> {
  try {
    await store.recentPosts({ limit: 1, offset: 0, languageIds: null });
    if (heavy) await warmHeavyThread(store, absentWord(), absentWord());
  } finally {
    collectGarbage();
  }
}
