/**
 * Every operation of the table called with representative arguments, and its answers kept for
 * comparison between two stores (migrate-data: the copy must answer as its source does). The
 * argument sets are keyed by operation name and checked against the operation table, so an
 * operation added to the table without arguments here fails the comparing test.
 *
 * Calls run in the same order on both stores with the same pinned clock, so the searches they
 * record (search at offset 0) leave both with the same history.
 */
import type { Arguments } from "@feed-toolkit/soap";
import { createOperationRunner } from "../operations/operation-runner.js";
import { operationTable } from "../operations/operation-table.js";
import { parseSearchQuery } from "../search/parse-search-query.js";
import type { Store } from "../store/store.js";

/** The ids the argument sets are built from (read from the source store). */
export interface AnswerCatalog {
  readonly categoryIds: readonly number[];
  readonly feedIds: readonly number[];
  readonly smartCategories: ReadonlyArray<{ id: number; key: string }>;
  readonly languageIds: readonly number[];
  /** A post id and an ISO instant in the middle of the corpus, for `sincepost`. */
  readonly middlePostId: number;
  readonly middleDate: string;
}

const pages = [
  { limit: 1000, offset: 0 },
  { limit: 25, offset: 0 },
  { limit: 25, offset: 40 },
  { limit: 7, offset: 333 },
];
const daysBack = [0.5, 1, 7, 30, 90, 36_500];
const searchWords = ["the", "data OR web", '"open source"', "news -the", "café", "2025", "rust", "東京"];
const sorts = ["relevance", "date", "clicks"];

/** Each language alone, two together, and every language (""). */
function languageFilters(c: AnswerCatalog): string[] {
  return ["", ...c.languageIds.map(String), c.languageIds.slice(0, 2).join(", ")];
}

const argumentSets: Readonly<Record<string, (c: AnswerCatalog) => Arguments[]>> = {
  search: (c) =>
    searchWords.flatMap((searchTerms) =>
      sorts.flatMap((sortBy) => [
        ...pages.map((p) => ({ ...p, searchTerms, sortBy, languageIds: "" })),
        ...languageFilters(c)
          .slice(1)
          .map((languageIds) => ({ limit: 1000, offset: 0, searchTerms, sortBy, languageIds })),
      ]),
    ),
  getMostRecentPosts: (c) => [
    ...pages.map((p) => ({ ...p, languageIds: "" })),
    ...languageFilters(c).map((languageIds) => ({ limit: 1000, offset: 0, languageIds })),
    ...languageFilters(c).map((languageIds) => ({ limit: 10, offset: 20, languageIds })),
  ],
  getPostsByCategory: (c) =>
    c.categoryIds.flatMap((categoryId) => [
      ...pages.map((p) => ({ ...p, categoryId, languageIds: "", sincepost: null })),
      ...languageFilters(c).map((languageIds) => ({
        limit: 1000,
        offset: 0,
        categoryId,
        languageIds,
        sincepost: null,
      })),
      { limit: 1000, offset: 0, categoryId, languageIds: "", sincepost: c.middlePostId },
      { limit: 1000, offset: 0, categoryId, languageIds: "", sincepost: c.middleDate },
    ]),
  getPostsByFeed: (c) =>
    c.feedIds.flatMap((feedId) => [
      { limit: 1000, offset: 0, feedId },
      { limit: 5, offset: 3, feedId },
    ]),
  getPostsBySmartCategory: (c) =>
    c.smartCategories.flatMap(({ id, key }) => [
      ...pages.map((p) => ({ ...p, smartCategoryId: id, smartCategoryKey: "", languageIds: "" })),
      ...languageFilters(c).map((languageIds) => ({
        limit: 1000,
        offset: 0,
        smartCategoryId: 0,
        smartCategoryKey: key,
        languageIds,
      })),
    ]),
  getMostPopularPosts: (c) =>
    daysBack.flatMap((days) =>
      [null, ...c.categoryIds].flatMap((categoryId) => [
        { daysBack: days, limit: 1000, categoryId },
        { daysBack: days, limit: 5, categoryId },
      ]),
    ),
  getCategories: () => [{}],
  getSmartCategories: () => [{}],
  getLanguages: () => [{}],
  getMostPopularFeeds: () =>
    daysBack.flatMap((days) => [
      { daysBack: days, limit: 1000 },
      { daysBack: days, limit: 3 },
    ]),
  getMostProlificFeeds: () =>
    daysBack.flatMap((days) => [
      { daysBack: days, limit: 1000 },
      { daysBack: days, limit: 3 },
    ]),
  getFeeds: () => [{}],
  getFeedsByCategory: (c) => c.categoryIds.map((categoryId) => ({ categoryId })),
  getSearchHistory: () => [{}],
  getFeedsByLanguage: (c) => c.languageIds.map((languageId) => ({ languageId })),
  getAggregateLanguageData: () => [{}],
};

/** Operations of the table that have no argument sets here, and names here that are no operation. */
export function uncoveredOperations(): { missing: string[]; unknown: string[] } {
  const names = new Set(operationTable.map((op) => op.name));
  return {
    missing: [...names].filter((name) => !(name in argumentSets)),
    unknown: Object.keys(argumentSets).filter((name) => !names.has(name)),
  };
}

export interface OperationAnswer {
  readonly operation: string;
  readonly args: Arguments;
  readonly records: readonly Record<string, unknown>[];
}

const BASE_URL = "http://feeds.test";

/** The ids to build argument sets from, read through the operations themselves. */
export async function readAnswerCatalog(store: Store, now: number): Promise<AnswerCatalog> {
  const runner = createOperationRunner({ store, parseSearch: parseSearchQuery, now: () => now });
  const call = (operation: string) => runner.call(operation, {}, { baseUrl: BASE_URL });
  const recent = await store.recentPosts({ limit: 1000, offset: 0, languageIds: null });
  const middle = recent[Math.floor(recent.length / 2)];
  return {
    categoryIds: (await call("getCategories")).map((r) => Number(r.categoryId)),
    feedIds: (await call("getFeeds")).map((r) => Number(r.feedId)),
    smartCategories: (await call("getSmartCategories")).map((r) => ({
      id: Number(r.smartCategoryId),
      key: String(r.smartCategoryKey),
    })),
    languageIds: (await call("getLanguages")).map((r) => Number(r.languageId)),
    middlePostId: middle?.postId ?? 0,
    middleDate: new Date(middle?.postDate ?? now).toISOString(),
  };
}

/** Every operation's answer to every argument set, in table order, with the clock at `now`. */
export async function answerEveryOperation(
  store: Store,
  catalog: AnswerCatalog,
  now: number,
): Promise<OperationAnswer[]> {
  const runner = createOperationRunner({ store, parseSearch: parseSearchQuery, now: () => now });
  const answers: OperationAnswer[] = [];
  for (const { name } of operationTable) {
    for (const args of argumentSets[name]?.(catalog) ?? []) {
      const records = await runner.call(name, args, { baseUrl: BASE_URL });
      answers.push({ operation: name, args, records: records as Record<string, unknown>[] });
    }
  }
  return answers;
}

/**
 * The answer as two backends must agree on it. Search scores have each backend's scale (spec §4),
 * so across backends `score` is left out and relevance order compared as the set of posts found
 * (a whole first page; a later page of another ranking holds other posts by design).
 */
export function comparable(answer: OperationAnswer, acrossBackends: boolean): unknown {
  if (!acrossBackends || answer.operation !== "search") return answer.records;
  const records = answer.records.map(({ score: _score, ...rest }) => rest);
  if (String(answer.args.sortBy) !== "relevance") return records;
  if (answer.args.offset === 0 && records.length < Number(answer.args.limit)) {
    return [...records].sort((a, b) => Number(a.postId) - Number(b.postId));
  }
  return { posts: records.length };
}
