/**
 * The column sets of spec §4: names, case, order and types are part of the contract, extra columns
 * come last. Operations answer named records whose keys are these column names; each adapter lays
 * them out in its own wire form (SOAP rows in column order, JSON objects, feed items).
 */
import type { CellValue, ColumnSpec } from "@feed-toolkit/soap";
import type { PostRecord } from "../store/store.js";

/**
 * A column of a set: the SOAP package's name and type, and whether its cells may be null (the
 * JSON schema of the OpenAPI document says so; SOAP writes a nil cell either way).
 */
export interface FeedColumnSpec extends ColumnSpec {
  readonly nullable?: true;
}

/** One answer row of an operation: a value for every column of its set, by column name. */
export type OperationRecord = Readonly<Record<string, CellValue>>;

/**
 * Store records seen as operation records: the constraint checks that every field holds a cell
 * value, so the cast only forgets the interface's name.
 */
export function asRecords<T extends { [K in keyof T]: CellValue }>(
  rows: readonly T[],
): readonly OperationRecord[] {
  return rows as unknown as readonly OperationRecord[];
}

/** A post as the post column set shows it: the store's record plus its tracking link. */
// A mapped type (not the interface itself), so that it fits OperationRecord's index signature.
export type PostItem = { readonly [K in keyof PostRecord]: PostRecord[K] } & {
  readonly trackingLink: string;
};

export const postColumns: readonly FeedColumnSpec[] = [
  { name: "postId", type: "int" },
  { name: "postTitle", type: "string" },
  { name: "postLink", type: "string" },
  { name: "postExcerpt", type: "string" },
  { name: "postDate", type: "dateTime" },
  { name: "feedId", type: "int" },
  { name: "feedName", type: "string" },
  { name: "categoryId", type: "int", nullable: true },
  { name: "categoryName", type: "string", nullable: true },
  { name: "languageId", type: "int" },
  { name: "clicks", type: "int" },
  { name: "trackingLink", type: "string" },
];

/** `trackingLink` is the absolute URL of `GET /click/<postId>` under the service's public base URL. */
export function postItem(p: PostRecord, baseUrl: string): PostItem {
  return {
    postId: p.postId,
    postTitle: p.postTitle,
    postLink: p.postLink,
    postExcerpt: p.postExcerpt,
    postDate: p.postDate,
    feedId: p.feedId,
    feedName: p.feedName,
    categoryId: p.categoryId,
    categoryName: p.categoryName,
    languageId: p.languageId,
    clicks: p.clicks,
    trackingLink: `${baseUrl}/click/${p.postId}`,
  };
}

export const feedColumns: readonly FeedColumnSpec[] = [
  { name: "feedId", type: "int" },
  { name: "feedName", type: "string" },
  { name: "feedUrl", type: "string" },
  { name: "siteUrl", type: "string", nullable: true },
  { name: "feedDescription", type: "string", nullable: true },
  { name: "categoryId", type: "int", nullable: true },
  { name: "categoryName", type: "string", nullable: true },
  { name: "languageId", type: "int" },
  { name: "postCount", type: "int" },
  { name: "lastPostDate", type: "dateTime", nullable: true },
];

export const categoryColumns: readonly FeedColumnSpec[] = [
  { name: "categoryId", type: "int" },
  { name: "categoryName", type: "string" },
  { name: "feedCount", type: "int" },
];

export const smartCategoryColumns: readonly FeedColumnSpec[] = [
  { name: "smartCategoryId", type: "int" },
  { name: "smartCategoryKey", type: "string" },
  { name: "smartCategoryName", type: "string" },
  { name: "smartCategoryQuery", type: "string" },
];

export const languageColumns: readonly FeedColumnSpec[] = [
  { name: "languageId", type: "int" },
  { name: "languageName", type: "string" },
  { name: "languageCode", type: "string" },
];

export const searchHistoryColumns: readonly FeedColumnSpec[] = [
  { name: "searchTerms", type: "string" },
  { name: "searchCount", type: "int" },
  { name: "lastSearched", type: "dateTime" },
];

export const languageDataColumns: readonly FeedColumnSpec[] = [
  ...languageColumns,
  { name: "feedCount", type: "int" },
  { name: "postCount", type: "int" },
  { name: "postsLast24Hours", type: "int" },
  { name: "clicks", type: "int" },
  { name: "lastPostDate", type: "dateTime", nullable: true },
];

/** A column set followed by one extra column (extra columns come last, spec §4). */
/**
 * The row of `record` in the order of `columns` (the SOAP QueryBean layout).
 *
 * @example
 * recordRow(categoryColumns, { categoryId: 1, categoryName: "News", feedCount: 3 }); // [1, "News", 3]
 */
export function recordRow(columns: readonly ColumnSpec[], record: OperationRecord): CellValue[] {
  const row = new Array<CellValue>(columns.length);
  for (let i = 0; i < columns.length; i++) row[i] = record[columns[i].name] ?? null;
  return row;
}

export function withExtra(
  columns: readonly FeedColumnSpec[],
  extra: FeedColumnSpec,
): readonly FeedColumnSpec[] {
  return [...columns, extra];
}
