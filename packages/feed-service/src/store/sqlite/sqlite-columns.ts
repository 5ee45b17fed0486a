/**
 * The column lists of the spec's post and feed sets (§4) as SQLite select lists: feed lists aliased
 * to the record field names so rows need no mapping, posts as bare cells (see `POST_CELLS`). Kept in one place so every query returns the same
 * shape.
 */
import type { FeedRecord, PostRecord } from "../store.js";

export const POST_JOINS = "JOIN feeds f ON f.id = p.feed_id LEFT JOIN categories c ON c.id = p.category_id";

/**
 * The post columns as bare cells in `PostRecord` field order, for statements in raw mode:
 * better-sqlite3 builds a row object per row through its native API, which costs more than the
 * query itself for a page of 20 posts; arrays read as fast, and `postRecord` (plain JavaScript,
 * which the JIT compiles to one object shape) turns them into records for a fraction of that.
 */
export const POST_CELLS = `p.id, p.title, p.link, p.excerpt, p.post_date, p.feed_id, f.name, p.category_id,
  c.name, p.language_id, p.clicks`;

/** One row of `POST_CELLS` as a record. */
export function postRecord(cells: readonly unknown[]): PostRecord {
  return {
    postId: cells[0] as number,
    postTitle: cells[1] as string,
    postLink: cells[2] as string,
    postExcerpt: cells[3] as string,
    postDate: cells[4] as number,
    feedId: cells[5] as number,
    feedName: cells[6] as string,
    categoryId: cells[7] as number | null,
    categoryName: cells[8] as string | null,
    languageId: cells[9] as number,
    clicks: cells[10] as number,
  };
}

export const FEED_COLUMNS = `f.id AS feedId, f.name AS feedName, f.url AS feedUrl, f.site_url AS siteUrl,
  f.description AS feedDescription, f.category_id AS categoryId, c.name AS categoryName,
  f.language_id AS languageId, f.post_count AS postCount, f.last_post_date AS lastPostDate`;

/**
 * One row of `FEED_COLUMNS` read in raw mode (cells in that order) as a record: for the lists of
 * every feed, where better-sqlite3's row objects cost more than the statement (as `postRecord`).
 */
export function feedRecord(cells: readonly unknown[]): FeedRecord {
  return {
    feedId: cells[0] as number,
    feedName: cells[1] as string,
    feedUrl: cells[2] as string,
    siteUrl: cells[3] as string | null,
    feedDescription: cells[4] as string | null,
    categoryId: cells[5] as number | null,
    categoryName: cells[6] as string | null,
    languageId: cells[7] as number,
    postCount: cells[8] as number,
    lastPostDate: cells[9] as number | null,
  };
}

export const FEED_ADMIN_COLUMNS = `${FEED_COLUMNS}, f.etag AS etag, f.last_modified AS lastModified,
  f.next_fetch_at AS nextFetchAt, f.last_fetched_at AS lastFetchedAt, f.last_success_at AS lastSuccessAt,
  f.error_count AS errorCount, f.last_error AS lastError, f.last_error_at AS lastErrorAt,
  f.last_error_stage AS lastErrorStage, f.last_error_code AS lastErrorCode`;

export const FEED_JOINS = "LEFT JOIN categories c ON c.id = f.category_id";

/** Newest first, ties by id descending (spec §4 "Ties, everywhere"). */
export const NEWEST_FIRST = "p.post_date DESC, p.id DESC";

/**
 * The language filter, bound as one JSON array parameter so that a single prepared statement
 * serves any list of ids.
 */
export const LANGUAGE_FILTER = "p.language_id IN (SELECT value FROM json_each(?))";

/**
 * A rowid bound for FTS5, as SQL. better-sqlite3 binds every JavaScript number as a REAL, and FTS5
 * seeks to a rowid bound only when it is an INTEGER: with a REAL it reads the whole doclist and
 * filters (figures in bench/NOTES.md).
 */
export const FTS_ROWID = "CAST(? AS INTEGER)";
