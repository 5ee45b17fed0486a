/**
 * The operation records (spec §4 column sets, keyed by column name) seen with the types pages need.
 * Each reader checks the cells it takes, so a change of the records' shape fails loudly here
 * instead of printing "undefined" on a page.
 */
import type { OperationRecord } from "../operations/column-sets.js";

function cell(r: OperationRecord, name: string): unknown {
  if (!(name in r)) throw new TypeError(`A record given to a page has no ${name} column.`);
  return r[name];
}
function text(r: OperationRecord, name: string): string {
  const v = cell(r, name);
  if (typeof v !== "string")
    throw new TypeError(`The ${name} column of a record should be text; got ${typeof v}.`);
  return v;
}
function optionalText(r: OperationRecord, name: string): string | null {
  const v = cell(r, name);
  return v === null ? null : text(r, name);
}
function int(r: OperationRecord, name: string): number {
  const v = cell(r, name);
  if (typeof v !== "number")
    throw new TypeError(`The ${name} column of a record should be a number; got ${typeof v}.`);
  return v;
}
function optionalInt(r: OperationRecord, name: string): number | null {
  return cell(r, name) === null ? null : int(r, name);
}
/** Instants arrive as epoch milliseconds from the stores, or as Date. */
function optionalInstant(r: OperationRecord, name: string): number | null {
  const v = cell(r, name);
  if (v === null) return null;
  if (v instanceof Date) return v.getTime();
  return int(r, name);
}
function instant(r: OperationRecord, name: string): number {
  const v = optionalInstant(r, name);
  if (v === null) throw new TypeError(`The ${name} column of a record should be an instant; got null.`);
  return v;
}

export interface PostView {
  readonly postId: number;
  readonly postTitle: string;
  readonly postExcerpt: string;
  readonly postDate: number;
  readonly feedId: number;
  readonly feedName: string;
  readonly categoryId: number | null;
  readonly categoryName: string | null;
  readonly languageId: number;
  readonly clicks: number;
  /** `periodClicks` of getMostPopularPosts, when present. */
  readonly periodClicks?: number;
}

export function postView(r: OperationRecord): PostView {
  return {
    postId: int(r, "postId"),
    postTitle: text(r, "postTitle"),
    postExcerpt: text(r, "postExcerpt"),
    postDate: instant(r, "postDate"),
    feedId: int(r, "feedId"),
    feedName: text(r, "feedName"),
    categoryId: optionalInt(r, "categoryId"),
    categoryName: optionalText(r, "categoryName"),
    languageId: int(r, "languageId"),
    clicks: int(r, "clicks"),
    periodClicks: "periodClicks" in r ? int(r, "periodClicks") : undefined,
  };
}

export interface FeedView {
  readonly feedId: number;
  readonly feedName: string;
  readonly feedUrl: string;
  readonly siteUrl: string | null;
  readonly feedDescription: string | null;
  readonly categoryId: number | null;
  readonly categoryName: string | null;
  readonly languageId: number;
  readonly postCount: number;
  readonly lastPostDate: number | null;
  readonly periodClicks?: number;
}

export function feedView(r: OperationRecord): FeedView {
  return {
    feedId: int(r, "feedId"),
    feedName: text(r, "feedName"),
    feedUrl: text(r, "feedUrl"),
    siteUrl: optionalText(r, "siteUrl"),
    feedDescription: optionalText(r, "feedDescription"),
    categoryId: optionalInt(r, "categoryId"),
    categoryName: optionalText(r, "categoryName"),
    languageId: int(r, "languageId"),
    postCount: int(r, "postCount"),
    lastPostDate: optionalInstant(r, "lastPostDate"),
    periodClicks: "periodClicks" in r ? int(r, "periodClicks") : undefined,
  };
}

export interface CategoryView {
  readonly categoryId: number;
  readonly categoryName: string;
  readonly feedCount: number;
}

export function categoryView(r: OperationRecord): CategoryView {
  return {
    categoryId: int(r, "categoryId"),
    categoryName: text(r, "categoryName"),
    feedCount: int(r, "feedCount"),
  };
}

export interface SmartCategoryView {
  readonly smartCategoryId: number;
  readonly smartCategoryKey: string;
  readonly smartCategoryName: string;
  readonly smartCategoryQuery: string;
}

export function smartCategoryView(r: OperationRecord): SmartCategoryView {
  return {
    smartCategoryId: int(r, "smartCategoryId"),
    smartCategoryKey: text(r, "smartCategoryKey"),
    smartCategoryName: text(r, "smartCategoryName"),
    smartCategoryQuery: text(r, "smartCategoryQuery"),
  };
}

export interface LanguageView {
  readonly languageId: number;
  readonly languageName: string;
  readonly languageCode: string;
}

export function languageView(r: OperationRecord): LanguageView {
  return {
    languageId: int(r, "languageId"),
    languageName: text(r, "languageName"),
    languageCode: text(r, "languageCode"),
  };
}

export interface LanguageDataView extends LanguageView {
  readonly feedCount: number;
  readonly postCount: number;
  readonly postsLast24Hours: number;
  readonly clicks: number;
  readonly lastPostDate: number | null;
}

export function languageDataView(r: OperationRecord): LanguageDataView {
  return {
    ...languageView(r),
    feedCount: int(r, "feedCount"),
    postCount: int(r, "postCount"),
    postsLast24Hours: int(r, "postsLast24Hours"),
    clicks: int(r, "clicks"),
    lastPostDate: optionalInstant(r, "lastPostDate"),
  };
}

export interface SearchHistoryView {
  readonly searchTerms: string;
  readonly searchCount: number;
  readonly lastSearched: number;
}

export function searchHistoryView(r: OperationRecord): SearchHistoryView {
  return {
    searchTerms: text(r, "searchTerms"),
    searchCount: int(r, "searchCount"),
    lastSearched: instant(r, "lastSearched"),
  };
}
