/**
 * Feeds and their posts on SQLite: adding and removing feeds, and applying one refresh (posts
 * upserted by (feed, guid), fetch state and metadata saved, the full-text rows, the feed's post
 * count and the per-language counts kept in step) in one transaction.
 */
import type Database from "better-sqlite3";
import { FeedServiceError } from "../../errors.js";
import { feedColumnSet } from "../feed-pause-sql.js";
import { feedColumnUpdates } from "../feed-update-columns.js";
import { checkPost, postDate, postUnchanged, type StoredPostFields } from "../incoming-posts.js";
import type { FeedAdminRecord, FeedUpdate, FeedUpdateResult, IncomingPost, NewFeed } from "../store.js";
import { feedNameText, feedUrlText } from "../text-checks.js";
import { FTS5_INSERT, fts5IndexRow } from "./fts5-index-row.js";
import { feedById } from "./sqlite-catalog-queries.js";
import { type StatementCache, translateSqliteError } from "./sqlite-connection.js";
import { LanguageCountChanges, subtractFeedPosts } from "./sqlite-language-counts.js";

interface ExistingPost extends StoredPostFields {
  id: number;
  seen_at: number;
  clicks: number;
}

function requireFeed(stmts: StatementCache, feedId: number): FeedAdminRecord {
  const feed = feedById(stmts, feedId);
  if (!feed) throw new FeedServiceError("FEED_NOT_FOUND", `No feed has id ${feedId}.`);
  return feed;
}

function requireReference(stmts: StatementCache, table: "categories" | "languages", id: number): void {
  if (!stmts.get(`SELECT 1 FROM ${table} WHERE id = ?`).get(id)) {
    const what = table === "categories" ? "category" : "language";
    throw new FeedServiceError("FEED_NOT_FOUND", `No ${what} has id ${id}.`);
  }
}

function indexPost(stmts: StatementCache, id: number, post: IncomingPost, feedName: string): void {
  stmts.get(FTS5_INSERT).run(...fts5IndexRow(id, post.title, post.excerpt, post.content, feedName));
}

function unindexPost(stmts: StatementCache, id: number): void {
  stmts.get("DELETE FROM posts_fts WHERE rowid = ?").run(id);
}

/** Re-writes the index rows of a feed's posts, after its name (an indexed column) changed. */
function reindexFeed(stmts: StatementCache, feedId: number, feedName: string): void {
  const rows = stmts
    .get("SELECT id, title, excerpt, content FROM posts WHERE feed_id = ?")
    .all(feedId) as Array<{ id: number; title: string; excerpt: string; content: string }>;
  for (const r of rows) {
    unindexPost(stmts, r.id);
    stmts.get(FTS5_INSERT).run(...fts5IndexRow(r.id, r.title, r.excerpt, r.content, feedName));
  }
}

export function addFeed(db: Database.Database, stmts: StatementCache, feed: NewFeed): FeedAdminRecord {
  const url = feedUrlText(feed.feedUrl);
  const name = feedNameText(feed.feedName);
  const categoryId = feed.categoryId ?? null;
  const languageId = feed.languageId ?? 1;
  return db.transaction(() => {
    if (categoryId !== null) requireReference(stmts, "categories", categoryId);
    requireReference(stmts, "languages", languageId);
    const existing = stmts.get("SELECT id FROM feeds WHERE url = ?").get(url) as { id: number } | undefined;
    if (existing) {
      throw new FeedServiceError("FEED_CONFLICT", `A feed with this URL already exists (id ${existing.id}).`);
    }
    const { lastInsertRowid } = stmts
      .get(`INSERT INTO feeds (url, name, name_key, site_url, description, category_id, language_id)
        VALUES (?, ?, ?, ?, ?, ?, ?)`)
      .run(
        url,
        name,
        name.toLowerCase(),
        feed.siteUrl ?? null,
        feed.feedDescription ?? null,
        categoryId,
        languageId,
      );
    return requireFeed(stmts, Number(lastInsertRowid));
  })();
}

export function removeFeed(db: Database.Database, stmts: StatementCache, feedId: number): boolean {
  return db.transaction(() => {
    // The index is contentless: its rows go explicitly, before the cascade removes the posts.
    stmts.get("DELETE FROM posts_fts WHERE rowid IN (SELECT id FROM posts WHERE feed_id = ?)").run(feedId);
    subtractFeedPosts(stmts, feedId);
    return stmts.get("DELETE FROM feeds WHERE id = ?").run(feedId).changes > 0;
  })();
}

function upsertPost(
  stmts: StatementCache,
  feed: { id: number; name: string; categoryId: number | null },
  post: IncomingPost,
  languageCounts: LanguageCountChanges,
): "inserted" | "updated" | "unchanged" {
  checkPost(post);
  const old = stmts
    .get(`SELECT id, link, title, excerpt, content, published_at, updated_at, seen_at, language_id, clicks
      FROM posts WHERE feed_id = ? AND guid = ?`)
    .get(feed.id, post.guid) as ExistingPost | undefined;
  if (!old) {
    const { lastInsertRowid } = stmts
      .get(`INSERT INTO posts (feed_id, guid, link, title, excerpt, content, published_at, updated_at, seen_at,
          post_date, language_id, category_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
      .run(
        feed.id,
        post.guid,
        post.link,
        post.title,
        post.excerpt,
        post.content,
        post.publishedAt,
        post.updatedAt,
        post.seenAt,
        postDate(post, post.seenAt),
        post.languageId,
        feed.categoryId,
      );
    indexPost(stmts, Number(lastInsertRowid), post, feed.name);
    languageCounts.add(post.languageId, 1);
    return "inserted";
  }
  if (postUnchanged(old, post)) return "unchanged";
  // seen_at is the first-seen time: an update keeps it.
  stmts
    .get(`UPDATE posts SET link = ?, title = ?, excerpt = ?, content = ?, published_at = ?, updated_at = ?,
        post_date = ?, language_id = ? WHERE id = ?`)
    .run(
      post.link,
      post.title,
      post.excerpt,
      post.content,
      post.publishedAt,
      post.updatedAt,
      postDate(post, old.seen_at),
      post.languageId,
      old.id,
    );
  unindexPost(stmts, old.id);
  indexPost(stmts, old.id, post, feed.name);
  languageCounts.add(old.language_id, -1, -old.clicks);
  languageCounts.add(post.languageId, 1, old.clicks);
  return "updated";
}

function saveFeedColumns(
  stmts: StatementCache,
  feedId: number,
  update: FeedUpdate,
  renamed: string | null,
): void {
  const pairs = feedColumnUpdates(update, renamed);
  if (pairs.length === 0) return;
  const sets = pairs.map(([column]) => feedColumnSet(column, "?")).join(", ");
  stmts.get(`UPDATE feeds SET ${sets} WHERE id = ?`).run(...pairs.map(([, value]) => value), feedId);
}

export function applyFeedUpdate(
  db: Database.Database,
  stmts: StatementCache,
  feedId: number,
  update: FeedUpdate,
): FeedUpdateResult {
  const run = db.transaction((): FeedUpdateResult => {
    const feed = requireFeed(stmts, feedId);
    const meta = { ...(update.feed ?? {}) };
    if (meta.feedName !== undefined) meta.feedName = feedNameText(meta.feedName);
    if (meta.feedUrl !== undefined) feedUrlText(meta.feedUrl);
    if (meta.languageId !== undefined) requireReference(stmts, "languages", meta.languageId);
    const renamed = meta.feedName !== undefined && meta.feedName !== feed.feedName ? meta.feedName : null;
    try {
      saveFeedColumns(stmts, feedId, { ...update, feed: meta }, renamed);
    } catch (error) {
      throw translateSqliteError(error, "Another feed already has this URL.");
    }
    const name = renamed ?? feed.feedName;
    if (renamed !== null) reindexFeed(stmts, feedId, name);
    const result: FeedUpdateResult = { inserted: 0, updated: 0 };
    const target = { id: feedId, name, categoryId: feed.categoryId };
    const languageCounts = new LanguageCountChanges();
    for (const post of update.posts) {
      const outcome = upsertPost(stmts, target, post, languageCounts);
      if (outcome !== "unchanged") result[outcome]++;
    }
    languageCounts.write(stmts);
    if (result.inserted + result.updated > 0) {
      stmts
        .get(`UPDATE feeds SET (post_count, last_post_date) =
          (SELECT count(*), max(post_date) FROM posts WHERE feed_id = ?) WHERE id = ?`)
        .run(feedId, feedId);
    }
    return result;
  });
  return run.immediate();
}
