/**
 * The 16 operations of spec §4, all visible at once: name, parameters with the XSD types the
 * original WSDL declares (§2), column set, and the handler (validate, query, answer named records).
 * The SOAP adapter derives its WSDL and dispatcher from this table and lays the records out as
 * QueryBean rows; the JSON API, output feeds and pages call the same handlers.
 */
import type { Arguments, ParameterSpec, RowMemoSpec } from "@feed-toolkit/soap";
import { matchesNothing, type SearchQuery } from "../search/search-query.js";
import type { Store } from "../store/store.js";
import {
  readDaysBackMs,
  readId,
  readLanguageIds,
  readLimit,
  readOffset,
  readOptionalAnyTypeId,
  readSearchTerms,
  readSincePost,
  readSortBy,
} from "./argument-readers.js";
import { categoriesByName, feedsByName, smartCategoriesByName } from "./by-name.js";
import {
  asRecords,
  categoryColumns,
  type FeedColumnSpec,
  feedColumns,
  languageColumns,
  languageDataColumns,
  type OperationRecord,
  postColumns,
  postItem,
  searchHistoryColumns,
  smartCategoryColumns,
  withExtra,
} from "./column-sets.js";
import { requireCategory, requireFeed, requireLanguage, resolveSmartCategory } from "./id-lookups.js";
import { resolveSearchFilters } from "./search-filters.js";

/** What one call sees: the store, the clock, and the base URL that tracking links start with. */
export interface OperationCall {
  readonly store: Store;
  /** Epoch milliseconds of this call (pinned in tests). */
  readonly now: number;
  /** Absolute base URL without a trailing slash, e.g. `https://feeds.example.org`. */
  readonly baseUrl: string;
  readonly parseSearch: (terms: string) => SearchQuery;
}

export interface FeedOperation {
  readonly name: string;
  readonly parameters: readonly ParameterSpec[];
  readonly columns: readonly FeedColumnSpec[];
  /**
   * True when the answer depends only on the arguments and the data: no clock (daysBack windows,
   * "last 24 hours") and no side effect (search records history). Only these may be cached.
   */
  readonly pure: boolean;
  /**
   * Rows whose leading cells the SOAP encoder keeps encoded between calls (the SOAP package's
   * RowMemoSpec): the feed lists and rankings, whose rows are the same feeds call after call.
   */
  readonly rowMemo?: RowMemoSpec;
  /** Validates the arguments and answers one record per row, keyed by the column names. */
  readonly run: (args: Arguments, call: OperationCall) => Promise<readonly OperationRecord[]>;
}

const d = (name: string): ParameterSpec => ({ name, type: "double" });
const s = (name: string): ParameterSpec => ({ name, type: "string" });
const any = (name: string): ParameterSpec => ({ name, type: "anyType" });

const empty: readonly OperationRecord[] = [];

/**
 * The feed columns of every feed row, kept encoded per feed (a feed's row changes only when the
 * feed or its post count and last post do): up to spec §4's largest catalog, 10,000 feeds.
 */
const feedRowMemo: RowMemoSpec = { cells: feedColumns.length, maxRows: 10_000 };
const searchHistorySize = 20;

function page(args: Arguments, languages = true) {
  return {
    limit: readLimit(args),
    offset: readOffset(args),
    languageIds: languages ? readLanguageIds(args) : null,
  };
}

export const operationTable: readonly FeedOperation[] = [
  {
    name: "search",
    pure: false,
    parameters: [d("limit"), d("offset"), s("searchTerms"), s("sortBy"), s("languageIds")],
    columns: withExtra(postColumns, { name: "score", type: "double" }),
    async run(args, { store, now, baseUrl, parseSearch }) {
      const p = page(args);
      const terms = readSearchTerms(args);
      const sort = readSortBy(args);
      const query = await resolveSearchFilters(store, parseSearch(terms));
      // A query of exclusions only returns nothing (spec §4): there is nothing to exclude from.
      const rows =
        p.limit === 0 || matchesNothing(query) ? [] : await store.searchPosts({ ...p, query, sort });
      // Only a successful first page counts as a search a person made (spec §4, operation 1).
      if (p.offset === 0) await store.recordSearch(terms.replace(/\s+/g, " "), now);
      return rows.map((r) => ({ ...postItem(r, baseUrl), score: r.score }));
    },
  },
  {
    name: "getMostRecentPosts",
    pure: true,
    parameters: [d("limit"), d("offset"), s("languageIds")],
    columns: postColumns,
    async run(args, { store, baseUrl }) {
      const p = page(args);
      if (p.limit === 0) return empty;
      return (await store.recentPosts(p)).map((r) => postItem(r, baseUrl));
    },
  },
  {
    name: "getPostsByCategory",
    pure: true,
    parameters: [d("limit"), d("offset"), d("categoryId"), s("languageIds"), any("sincepost")],
    columns: postColumns,
    async run(args, { store, baseUrl }) {
      const p = page(args);
      const categoryId = readId(args, "categoryId");
      const since = readSincePost(args);
      await requireCategory(store, categoryId);
      if (p.limit === 0) return empty;
      const rows = await store.postsByCategory({ ...p, categoryId, ...since });
      return rows.map((r) => postItem(r, baseUrl));
    },
  },
  {
    name: "getPostsByFeed",
    pure: true,
    parameters: [d("limit"), d("offset"), d("feedId")],
    columns: postColumns,
    async run(args, { store, baseUrl }) {
      const { limit, offset } = page(args, false);
      const feedId = readId(args, "feedId");
      await requireFeed(store, feedId);
      if (limit === 0) return empty;
      const rows = await store.postsByFeed({ limit, offset, feedId });
      return rows.map((r) => postItem(r, baseUrl));
    },
  },
  {
    name: "getPostsBySmartCategory",
    pure: true,
    parameters: [d("limit"), d("offset"), d("smartCategoryId"), s("smartCategoryKey"), s("languageIds")],
    columns: postColumns,
    async run(args, { store, baseUrl, parseSearch }) {
      const p = page(args);
      const smart = await resolveSmartCategory(store, args);
      if (p.limit === 0) return empty;
      const query = await resolveSearchFilters(store, parseSearch(smart.smartCategoryQuery));
      if (matchesNothing(query)) return empty;
      const rows = await store.searchPosts({ ...p, query, sort: "date", unscored: true });
      return rows.map((r) => postItem(r, baseUrl));
    },
  },
  {
    name: "getMostPopularPosts",
    pure: false,
    parameters: [d("daysBack"), d("limit"), any("categoryId")],
    columns: withExtra(postColumns, { name: "periodClicks", type: "int" }),
    async run(args, { store, now, baseUrl }) {
      const windowMs = readDaysBackMs(args);
      const limit = readLimit(args);
      const categoryId = readOptionalAnyTypeId(args, "categoryId");
      if (categoryId !== null) await requireCategory(store, categoryId);
      if (limit === 0) return empty;
      const rows = await store.mostPopularPosts({ since: now - windowMs, limit, categoryId });
      return rows.map((r) => ({ ...postItem(r, baseUrl), periodClicks: r.periodClicks }));
    },
  },
  {
    name: "getCategories",
    pure: true,
    parameters: [],
    columns: categoryColumns,
    run: async (_args, { store }) => asRecords(categoriesByName(await store.categories())),
  },
  {
    name: "getSmartCategories",
    pure: true,
    parameters: [],
    columns: smartCategoryColumns,
    run: async (_args, { store }) => asRecords(smartCategoriesByName(await store.smartCategories())),
  },
  {
    name: "getLanguages",
    pure: true,
    parameters: [],
    columns: languageColumns,
    run: async (_args, { store }) => asRecords(await store.languages()),
  },
  {
    name: "getMostPopularFeeds",
    rowMemo: feedRowMemo,
    pure: false,
    parameters: [d("daysBack"), d("limit")],
    columns: withExtra(feedColumns, { name: "periodClicks", type: "int" }),
    async run(args, { store, now }) {
      const windowMs = readDaysBackMs(args);
      const limit = readLimit(args);
      if (limit === 0) return empty;
      const rows = await store.mostPopularFeeds({ since: now - windowMs, limit });
      return asRecords(rows);
    },
  },
  {
    name: "getMostProlificFeeds",
    rowMemo: feedRowMemo,
    pure: false,
    parameters: [d("daysBack"), d("limit")],
    columns: withExtra(feedColumns, { name: "periodPosts", type: "int" }),
    async run(args, { store, now }) {
      const windowMs = readDaysBackMs(args);
      const limit = readLimit(args);
      if (limit === 0) return empty;
      const rows = await store.mostProlificFeeds({ since: now - windowMs, limit });
      return asRecords(rows);
    },
  },
  {
    name: "getFeeds",
    rowMemo: feedRowMemo,
    pure: true,
    parameters: [],
    columns: feedColumns,
    run: async (_args, { store }) => asRecords(feedsByName(await store.feeds())),
  },
  {
    name: "getFeedsByCategory",
    rowMemo: feedRowMemo,
    pure: true,
    parameters: [d("categoryId")],
    columns: feedColumns,
    async run(args, { store }) {
      const categoryId = readId(args, "categoryId");
      await requireCategory(store, categoryId);
      return asRecords(feedsByName(await store.feeds({ categoryId })));
    },
  },
  {
    name: "getSearchHistory",
    pure: true,
    parameters: [],
    columns: searchHistoryColumns,
    run: async (_args, { store }) => asRecords(await store.searchHistory(searchHistorySize)),
  },
  {
    name: "getFeedsByLanguage",
    rowMemo: feedRowMemo,
    pure: true,
    parameters: [d("languageId")],
    columns: feedColumns,
    async run(args, { store }) {
      const languageId = readId(args, "languageId");
      await requireLanguage(store, languageId);
      return asRecords(feedsByName(await store.feeds({ languageId })));
    },
  },
  {
    name: "getAggregateLanguageData",
    pure: false,
    parameters: [],
    columns: languageDataColumns,
    run: async (_args, { store, now }) => asRecords(await store.aggregateLanguageData(now)),
  },
];

/** The table by operation name, for dispatch. */
export const operationsByName: ReadonlyMap<string, FeedOperation> = new Map(
  operationTable.map((op) => [op.name, op]),
);
