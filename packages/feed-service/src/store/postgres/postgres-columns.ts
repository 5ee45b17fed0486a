/**
 * The column lists of the spec's post and feed sets (§4) as PostgreSQL select lists, aliased (quoted,
 * since PostgreSQL folds unquoted names to lower case) to the record field names, so rows need no
 * mapping.
 */

export const POST_COLUMNS = `p.id AS "postId", p.title AS "postTitle", p.link AS "postLink", p.excerpt AS "postExcerpt",
  p.post_date AS "postDate", p.feed_id AS "feedId", f.name AS "feedName", p.category_id AS "categoryId",
  c.name AS "categoryName", p.language_id AS "languageId", p.clicks AS "clicks"`;

/**
 * The posts' own columns that POST_COLUMNS reads (the rest come from POST_JOINS), for a subquery
 * named `p` to carry them to a query that selects POST_COLUMNS from it.
 */
export const POST_ROW =
  "p.id, p.title, p.link, p.excerpt, p.post_date, p.feed_id, p.category_id, p.language_id, p.clicks";

export const POST_JOINS = "JOIN feeds f ON f.id = p.feed_id LEFT JOIN categories c ON c.id = p.category_id";

export const FEED_COLUMNS = `f.id AS "feedId", f.name AS "feedName", f.url AS "feedUrl", f.site_url AS "siteUrl",
  f.description AS "feedDescription", f.category_id AS "categoryId", c.name AS "categoryName",
  f.language_id AS "languageId", f.post_count AS "postCount", f.last_post_date AS "lastPostDate"`;

export const FEED_ADMIN_COLUMNS = `${FEED_COLUMNS}, f.etag AS "etag", f.last_modified AS "lastModified",
  f.next_fetch_at AS "nextFetchAt", f.last_fetched_at AS "lastFetchedAt", f.last_success_at AS "lastSuccessAt",
  f.error_count AS "errorCount", f.last_error AS "lastError", f.last_error_at AS "lastErrorAt",
  f.last_error_stage AS "lastErrorStage", f.last_error_code AS "lastErrorCode"`;

export const FEED_JOINS = "LEFT JOIN categories c ON c.id = f.category_id";

/** Newest first, ties by id descending (spec §4 "Ties, everywhere"). */
export const NEWEST_FIRST = "p.post_date DESC, p.id DESC";

/** Collects WHERE parts with numbered parameters ($1, $2, ...) in order. */
export class Where {
  readonly parts: string[] = [];
  readonly params: unknown[] = [];

  /** Adds a condition; `?` in it becomes the next parameter number. */
  add(condition: string, ...values: unknown[]): this {
    let i = 0;
    this.parts.push(condition.replace(/\?/g, () => `$${this.params.length + ++i}`));
    this.params.push(...values);
    return this;
  }

  /** The next parameter placeholder (for LIMIT/OFFSET after the conditions). */
  next(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  get sql(): string {
    return this.parts.length === 0 ? "" : `WHERE ${this.parts.join(" AND ")}`;
  }
}

/** The language filter on posts; one bound array serves any list of ids. */
export function languageFilter(where: Where, languageIds: readonly number[] | null): void {
  if (languageIds !== null) where.add("p.language_id = ANY(?::int[])", languageIds);
}
