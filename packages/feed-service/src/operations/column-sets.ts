/**
 * The column sets of spec §4: names, case, order and types are part of the contract, extra columns
 * come last. Each set has its row builder, which lays a store record out in column order.
 */
import type { CellValue, ColumnSpec } from "@feed-toolkit/soap";
import type {
  CategoryRecord,
  FeedRecord,
  LanguageDataRecord,
  LanguageRecord,
  PostRecord,
  SearchHistoryRecord,
  SmartCategoryRecord,
} from "../store/store.js";

type Row = CellValue[];

export const postColumns: readonly ColumnSpec[] = [
  { name: "postId", type: "int" },
  { name: "postTitle", type: "string" },
  { name: "postLink", type: "string" },
  { name: "postExcerpt", type: "string" },
  { name: "postDate", type: "dateTime" },
  { name: "feedId", type: "int" },
  { name: "feedName", type: "string" },
  { name: "categoryId", type: "int" },
  { name: "categoryName", type: "string" },
  { name: "languageId", type: "int" },
  { name: "clicks", type: "int" },
  { name: "trackingLink", type: "string" },
];

/** `trackingLink` is the absolute URL of `GET /click/<postId>` under the service's public base URL. */
export function postRow(p: PostRecord, baseUrl: string): Row {
  return [
    p.postId,
    p.postTitle,
    p.postLink,
    p.postExcerpt,
    p.postDate,
    p.feedId,
    p.feedName,
    p.categoryId,
    p.categoryName,
    p.languageId,
    p.clicks,
    `${baseUrl}/click/${p.postId}`,
  ];
}

export const feedColumns: readonly ColumnSpec[] = [
  { name: "feedId", type: "int" },
  { name: "feedName", type: "string" },
  { name: "feedUrl", type: "string" },
  { name: "siteUrl", type: "string" },
  { name: "feedDescription", type: "string" },
  { name: "categoryId", type: "int" },
  { name: "categoryName", type: "string" },
  { name: "languageId", type: "int" },
  { name: "postCount", type: "int" },
  { name: "lastPostDate", type: "dateTime" },
];

export function feedRow(f: FeedRecord): Row {
  return [
    f.feedId,
    f.feedName,
    f.feedUrl,
    f.siteUrl,
    f.feedDescription,
    f.categoryId,
    f.categoryName,
    f.languageId,
    f.postCount,
    f.lastPostDate,
  ];
}

export const categoryColumns: readonly ColumnSpec[] = [
  { name: "categoryId", type: "int" },
  { name: "categoryName", type: "string" },
  { name: "feedCount", type: "int" },
];

export function categoryRow(c: CategoryRecord): Row {
  return [c.categoryId, c.categoryName, c.feedCount];
}

export const smartCategoryColumns: readonly ColumnSpec[] = [
  { name: "smartCategoryId", type: "int" },
  { name: "smartCategoryKey", type: "string" },
  { name: "smartCategoryName", type: "string" },
  { name: "smartCategoryQuery", type: "string" },
];

export function smartCategoryRow(s: SmartCategoryRecord): Row {
  return [s.smartCategoryId, s.smartCategoryKey, s.smartCategoryName, s.smartCategoryQuery];
}

export const languageColumns: readonly ColumnSpec[] = [
  { name: "languageId", type: "int" },
  { name: "languageName", type: "string" },
  { name: "languageCode", type: "string" },
];

export function languageRow(l: LanguageRecord): Row {
  return [l.languageId, l.languageName, l.languageCode];
}

export const searchHistoryColumns: readonly ColumnSpec[] = [
  { name: "searchTerms", type: "string" },
  { name: "searchCount", type: "int" },
  { name: "lastSearched", type: "dateTime" },
];

export function searchHistoryRow(h: SearchHistoryRecord): Row {
  return [h.searchTerms, h.searchCount, h.lastSearched];
}

export const languageDataColumns: readonly ColumnSpec[] = [
  ...languageColumns,
  { name: "feedCount", type: "int" },
  { name: "postCount", type: "int" },
  { name: "postsLast24Hours", type: "int" },
  { name: "clicks", type: "int" },
  { name: "lastPostDate", type: "dateTime" },
];

export function languageDataRow(l: LanguageDataRecord): Row {
  return [
    l.languageId,
    l.languageName,
    l.languageCode,
    l.feedCount,
    l.postCount,
    l.postsLast24Hours,
    l.clicks,
    l.lastPostDate,
  ];
}

/** A column set followed by one extra column (extra columns come last, spec §4). */
export function withExtra(columns: readonly ColumnSpec[], extra: ColumnSpec): readonly ColumnSpec[] {
  return [...columns, extra];
}
