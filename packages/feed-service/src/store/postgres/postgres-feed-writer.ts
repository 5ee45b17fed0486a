/**
 * Feeds and their posts on PostgreSQL: adding and removing feeds, and applying one refresh in one
 * transaction (the same rules as SQLite: posts upserted by (feed, guid), first-seen time kept,
 * search vectors and the feed's post count kept in step). The feed row is locked first, so two
 * workers refreshing one feed (a lease that expired under a slow worker) apply one after the other.
 */
import type pg from "pg";
import { FeedServiceError } from "../../errors.js";
import { feedColumnUpdates } from "../feed-update-columns.js";
import { checkPost, postDate, postUnchanged, type StoredPostFields } from "../incoming-posts.js";
import { htmlToIndexText } from "../index-text.js";
import type { FeedAdminRecord, FeedUpdate, FeedUpdateResult, IncomingPost, NewFeed } from "../store.js";
import { feedNameText, feedUrlText } from "../text-checks.js";
import { feedById } from "./postgres-catalog-queries.js";
import { changes, inTransaction, rows, type Sql, translatePostgresError } from "./postgres-connection.js";
import { searchVector } from "./postgres-text-search.js";

interface ExistingPost extends StoredPostFields {
  id: number;
  seen_at: number;
}

async function requireFeed(sql: Sql, feedId: number): Promise<FeedAdminRecord> {
  const feed = await feedById(sql, feedId);
  if (!feed) throw new FeedServiceError("FEED_NOT_FOUND", `No feed has id ${feedId}.`);
  return feed;
}

async function requireReference(sql: Sql, table: "categories" | "languages", id: number): Promise<void> {
  if ((await rows(sql, `SELECT 1 FROM ${table} WHERE id = $1`, [id])).length === 0) {
    const what = table === "categories" ? "category" : "language";
    throw new FeedServiceError("FEED_NOT_FOUND", `No ${what} has id ${id}.`);
  }
}

function vectorOf(post: { title: string; excerpt: string; content: string }, feedName: string): string {
  return searchVector(feedName, post.title, `${post.excerpt} ${htmlToIndexText(post.content)}`);
}

/** Re-writes the search vectors of a feed's posts after its name (an indexed field) changed. */
async function reindexFeed(sql: Sql, feedId: number, feedName: string): Promise<void> {
  const posts = await rows<{ id: number; title: string; excerpt: string; content: string }>(
    sql,
    "SELECT id, title, excerpt, content FROM posts WHERE feed_id = $1",
    [feedId],
  );
  for (const p of posts) {
    await sql.query("UPDATE posts SET search_vector = $1::tsvector WHERE id = $2", [
      vectorOf(p, feedName),
      p.id,
    ]);
  }
}

export async function addFeed(pool: pg.Pool, feed: NewFeed): Promise<FeedAdminRecord> {
  const url = feedUrlText(feed.feedUrl);
  const name = feedNameText(feed.feedName);
  const categoryId = feed.categoryId ?? null;
  const languageId = feed.languageId ?? 1;
  return inTransaction(pool, async (sql) => {
    if (categoryId !== null) await requireReference(sql, "categories", categoryId);
    await requireReference(sql, "languages", languageId);
    const [existing] = await rows<{ id: number }>(sql, "SELECT id FROM feeds WHERE url = $1", [url]);
    if (existing) {
      throw new FeedServiceError("FEED_CONFLICT", `A feed with this URL already exists (id ${existing.id}).`);
    }
    const [row] = await rows<{ id: number }>(
      sql,
      `INSERT INTO feeds (url, name, name_key, site_url, description, category_id, language_id)
        VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
      [
        url,
        name,
        name.toLowerCase(),
        feed.siteUrl ?? null,
        feed.feedDescription ?? null,
        categoryId,
        languageId,
      ],
    );
    return requireFeed(sql, row!.id);
  });
}

export async function removeFeed(pool: pg.Pool, feedId: number): Promise<boolean> {
  return (await changes(pool, "DELETE FROM feeds WHERE id = $1", [feedId])) > 0;
}

async function upsertPost(
  sql: Sql,
  feed: { id: number; name: string; categoryId: number | null },
  post: IncomingPost,
): Promise<"inserted" | "updated" | "unchanged"> {
  checkPost(post);
  const [old] = await rows<ExistingPost>(
    sql,
    `SELECT id, link, title, excerpt, content, published_at, updated_at, seen_at, language_id
      FROM posts WHERE feed_id = $1 AND guid = $2`,
    [feed.id, post.guid],
  );
  if (!old) {
    await sql.query(
      `INSERT INTO posts (feed_id, guid, link, title, excerpt, content, published_at, updated_at, seen_at,
          post_date, language_id, category_id, search_vector)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13::tsvector)`,
      [
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
        vectorOf(post, feed.name),
      ],
    );
    return "inserted";
  }
  if (postUnchanged(old, post)) return "unchanged";
  // seen_at is the first-seen time: an update keeps it.
  await sql.query(
    `UPDATE posts SET link = $1, title = $2, excerpt = $3, content = $4, published_at = $5, updated_at = $6,
        post_date = $7, language_id = $8, search_vector = $9::tsvector WHERE id = $10`,
    [
      post.link,
      post.title,
      post.excerpt,
      post.content,
      post.publishedAt,
      post.updatedAt,
      postDate(post, old.seen_at),
      post.languageId,
      vectorOf(post, feed.name),
      old.id,
    ],
  );
  return "updated";
}

async function saveFeedColumns(
  sql: Sql,
  feedId: number,
  update: FeedUpdate,
  renamed: string | null,
): Promise<void> {
  const pairs = feedColumnUpdates(update, renamed);
  if (pairs.length === 0) return;
  const sets = pairs.map(([column], i) => `${column} = $${i + 1}`).join(", ");
  const params = [...pairs.map(([, value]) => value), feedId];
  await sql.query(`UPDATE feeds SET ${sets} WHERE id = $${params.length}`, params);
}

export async function applyFeedUpdate(
  pool: pg.Pool,
  feedId: number,
  update: FeedUpdate,
): Promise<FeedUpdateResult> {
  return inTransaction(pool, async (sql) => {
    await sql.query("SELECT 1 FROM feeds WHERE id = $1 FOR UPDATE", [feedId]);
    const feed = await requireFeed(sql, feedId);
    const meta = { ...(update.feed ?? {}) };
    if (meta.feedName !== undefined) meta.feedName = feedNameText(meta.feedName);
    if (meta.feedUrl !== undefined) feedUrlText(meta.feedUrl);
    if (meta.languageId !== undefined) await requireReference(sql, "languages", meta.languageId);
    const renamed = meta.feedName !== undefined && meta.feedName !== feed.feedName ? meta.feedName : null;
    try {
      await saveFeedColumns(sql, feedId, { ...update, feed: meta }, renamed);
    } catch (error) {
      throw translatePostgresError(error, "Another feed already has this URL.");
    }
    const name = renamed ?? feed.feedName;
    if (renamed !== null) await reindexFeed(sql, feedId, name);
    const result: FeedUpdateResult = { inserted: 0, updated: 0 };
    const target = { id: feedId, name, categoryId: feed.categoryId };
    for (const post of update.posts) {
      const outcome = await upsertPost(sql, target, post);
      if (outcome !== "unchanged") result[outcome]++;
    }
    if (result.inserted + result.updated > 0) {
      await sql.query(
        `UPDATE feeds SET (post_count, last_post_date) =
          (SELECT count(*), max(post_date) FROM posts WHERE feed_id = $1) WHERE id = $1`,
        [feedId],
      );
    }
    return result;
  });
}
