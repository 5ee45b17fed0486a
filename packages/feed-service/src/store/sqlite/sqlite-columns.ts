/**
 * The column lists of the spec's post and feed sets (§4) as SQLite select lists, aliased to the
 * record field names so rows need no mapping. Kept in one place so every query returns the same
 * shape.
 */

export const POST_COLUMNS = `p.id AS postId, p.title AS postTitle, p.link AS postLink, p.excerpt AS postExcerpt,
  p.post_date AS postDate, p.feed_id AS feedId, f.name AS feedName, p.category_id AS categoryId,
  c.name AS categoryName, p.language_id AS languageId, p.clicks AS clicks`;

export const POST_JOINS = "JOIN feeds f ON f.id = p.feed_id LEFT JOIN categories c ON c.id = p.category_id";

export const FEED_COLUMNS = `f.id AS feedId, f.name AS feedName, f.url AS feedUrl, f.site_url AS siteUrl,
  f.description AS feedDescription, f.category_id AS categoryId, c.name AS categoryName,
  f.language_id AS languageId, f.post_count AS postCount, f.last_post_date AS lastPostDate`;

export const FEED_ADMIN_COLUMNS = `${FEED_COLUMNS}, f.etag AS etag, f.last_modified AS lastModified,
  f.next_fetch_at AS nextFetchAt, f.last_fetched_at AS lastFetchedAt, f.error_count AS errorCount,
  f.last_error AS lastError`;

export const FEED_JOINS = "LEFT JOIN categories c ON c.id = f.category_id";

/** Newest first, ties by id descending (spec §4 "Ties, everywhere"). */
export const NEWEST_FIRST = "p.post_date DESC, p.id DESC";

/**
 * The language filter, bound as one JSON array parameter so that a single prepared statement
 * serves any list of ids.
 */
export const LANGUAGE_FILTER = "p.language_id IN (SELECT value FROM json_each(?))";
