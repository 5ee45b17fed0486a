/**
 * Reads that only the web pages make, beside the operation table: how many posts a search
 * matches, and which feeds fail to refresh. They are not operations on purpose: the SOAP, JSON and
 * output-feed answers keep the column sets of spec §4, so no adapter but the pages sees them. The
 * arguments follow the rules of the operation they sit beside (search's `searchTerms` and
 * `languageIds`), with the same messages.
 */
import type { Arguments } from "@feed-toolkit/soap";
import { matchesNothing, type SearchQuery } from "../search/search-query.js";
import type { FeedFailureRecord, Store, StoryFeedRef } from "../store/store.js";
import { readLanguageIds, readSearchTerms } from "./argument-readers.js";
import { resolveSearchFilters } from "./search-filters.js";

/** Spec §4: relevance may rank only the 10,000 newest matches; the count is exact up to as many. */
export const searchCountBound = 10_000;

/** How many posts match: `count` exactly, or, when `exact` is false, more than `count`. */
export interface SearchMatchCount {
  readonly count: number;
  readonly exact: boolean;
}

export interface PageReads {
  /**
   * The matches of a search (`searchTerms`, `languageIds` as for operation 1), exact up to `bound`
   * and "more than `bound`" beyond. Nothing is recorded in the search history.
   *
   * @example
   * await reads.countSearchMatches({ searchTerms: "rust", languageIds: "" }); // { count: 42, exact: true }
   */
  countSearchMatches(args: Arguments, bound?: number): Promise<SearchMatchCount>;
  /** The feeds whose last refresh failed, by feed id. */
  failingFeeds(): Promise<ReadonlyMap<number, FeedFailureRecord>>;
  /** The other feeds that carry each of these posts' stories (one story once), by post id. */
  alsoIn(postIds: readonly number[]): Promise<ReadonlyMap<number, readonly StoryFeedRef[]>>;
}

export function createPageReads(store: Store, parseSearch: (terms: string) => SearchQuery): PageReads {
  return {
    async countSearchMatches(args, bound = searchCountBound) {
      const query = await resolveSearchFilters(store, parseSearch(readSearchTerms(args)));
      const languageIds = readLanguageIds(args);
      // A query of exclusions only matches nothing (spec §4, operation 1).
      const found = matchesNothing(query)
        ? 0
        : await store.countSearchMatches({ query, languageIds, cap: bound });
      return found > bound ? { count: bound, exact: false } : { count: found, exact: true };
    },
    async failingFeeds() {
      return new Map((await store.failingFeeds()).map((f) => [f.feedId, f]));
    },
    alsoIn(postIds) {
      return store.alsoIn(postIds);
    },
  };
}
