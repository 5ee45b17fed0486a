/**
 * Feeds and their posts on SQLite: adding and removing feeds, and applying one refresh (posts
 * upserted by (feed, guid), fetch state and metadata saved, the full-text rows, the feed's post
 * count and the per-language counts kept in step) in one transaction.
 */
import type Database from "better-sqlite3";
import { type StoryKeys, storyKeys } from "../../dedupe/story-keys.js";
import { FeedServiceError } from "../../errors.js";
import { feedColumnSet } from "../feed-pause-sql.js";
import { feedColumnUpdates } from "../feed-update-columns.js";
import { checkPost, postDate, postUnchanged, type StoredPostFields } from "../incoming-posts.js";
import type {
  FeedAdminRecord,
  FeedUpdate,
  FeedUpdateOutcome,
  FeedUpdateResult,
  IncomingPost,
  NewFeed,
} from "../store.js";
import { feedNameText, feedUrlText } from "../text-checks.js";
import { deleteIndexRow, unindexFeedPosts, writeIndexRow } from "./fts5-feed-index.js";
import { fts5IndexRow } from "./fts5-index-row.js";
import { feedById } from "./sqlite-catalog-queries.js";
import { rewriteClicked, unindexClickedFeed } from "./sqlite-clicked-index.js";
import { type StatementCache, translateSqliteError } from "./sqlite-connection.js";
import { settleSearchDays } from "./sqlite-counted-searches.js";
import { assignDateKey, dateKeyFor } from "./sqlite-date-keys.js";
import { HeldIndexWriteError, IndexWriteHold } from "./sqlite-index-write-hold.js";
import { LanguageCountChanges, subtractFeedPosts } from "./sqlite-language-counts.js";
import { holdRollups, settlePostRollups } from "./sqlite-rollup-hold.js";
import {
  findStory,
  insertCopy,
  registerStory,
  rekeyStory,
  storedCopy,
  updateCopy,
} from "./sqlite-story-writer.js";

interface ExistingPost extends StoredPostFields {
  id: number;
  seen_at: number;
  post_date: number;
  clicks: number;
  date_key: number;
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

/**
 * Writes a post's index row under its date key (sqlite-date-keys.ts), and its row in the clicked
 * posts' index under its clicks and id (sqlite-clicked-index.ts): the same tokens. `fresh` for a
 * new post, which has no row there yet.
 */
function indexPost(
  stmts: StatementCache,
  key: number,
  post: IncomingPost,
  feed: { id: number; name: string },
  clicked: { id: number; clicks: number },
  fresh = false,
): void {
  const row = fts5IndexRow(
    key,
    post.title,
    post.excerpt,
    post.content,
    feed.name,
    post.languageId,
    post.indexText,
  );
  writeIndexRow(stmts, row, feed.id);
  rewriteClicked(stmts, clicked.id, clicked.clicks, row, fresh);
}

/** Removes a post's index row and frees its key (the caller keys it again or deletes it). */
function unindexPost(stmts: StatementCache, id: number, key: number): void {
  deleteIndexRow(stmts, key);
  stmts.get("UPDATE posts SET date_key = NULL WHERE id = ?").run(id);
}

/** Re-writes the index rows of a feed's posts, after its name (an indexed column) changed. */
function reindexFeed(stmts: StatementCache, feedId: number, feedName: string): void {
  const rows = stmts
    .get("SELECT id, clicks, date_key, title, excerpt, content, language_id FROM posts WHERE feed_id = ?")
    .all(feedId) as Array<{
    id: number;
    clicks: number;
    date_key: number;
    title: string;
    excerpt: string;
    content: string;
    language_id: number;
  }>;
  for (const r of rows) {
    // The key stays: only the text changed.
    deleteIndexRow(stmts, r.date_key);
    const row = fts5IndexRow(r.date_key, r.title, r.excerpt, r.content, feedName, r.language_id);
    writeIndexRow(stmts, row, feedId);
    rewriteClicked(stmts, r.id, r.clicks, row);
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
    // The stories other feeds carry as copies stay theirs: split before the cascade removes them.
    const carried = stmts
      .get(`SELECT DISTINCT c.post_id AS id FROM posts p JOIN story_copies c ON c.post_id = p.id
        WHERE p.feed_id = ? AND c.feed_id <> p.feed_id`)
      .all(feedId) as Array<{ id: number }>;
    for (const { id } of carried) splitStoryRows(stmts, id);
    // The index is contentless: its rows go explicitly, before the cascade removes the posts.
    stmts
      .get("DELETE FROM posts_fts WHERE rowid IN (SELECT date_key FROM posts WHERE feed_id = ?)")
      .run(feedId);
    unindexClickedFeed(stmts, feedId);
    unindexFeedPosts(stmts, feedId);
    subtractFeedPosts(stmts, feedId);
    const removed = stmts.get("DELETE FROM feeds WHERE id = ?").run(feedId).changes > 0;
    settleSearchDays(stmts);
    return removed;
  })();
}

type Outcome = "inserted" | "updated" | "unchanged" | { copiedAt: number };

function upsertPost(
  stmts: StatementCache,
  feed: { id: number; name: string; categoryId: number | null },
  post: IncomingPost,
  languageCounts: LanguageCountChanges,
): Outcome {
  checkPost(post);
  const old = stmts
    .get(`SELECT id, link, title, excerpt, content, published_at, updated_at, seen_at, post_date, language_id,
      clicks, date_key FROM posts WHERE feed_id = ? AND guid = ?`)
    .get(feed.id, post.guid) as ExistingPost | undefined;
  if (old) return updatePost(stmts, feed, old, post, languageCounts);
  const copy = storedCopy(stmts, feed.id, post.guid);
  if (copy) {
    if (postUnchanged(copy, post)) return "unchanged";
    updateCopy(stmts, copy.id, post);
    return "updated";
  }
  const date = postDate(post, post.seenAt);
  const keys = storyKeys(post);
  const story = findStory(stmts, feed.id, keys, date);
  if (story) {
    insertCopy(stmts, feed.id, post, story, post.seenAt);
    if (story.feedId !== feed.id) return { copiedAt: story.postDate };
    // The same text under a new guid in the story's own feed: a new permalink or title for it.
    const first = stmts
      .get(`SELECT id, link, title, excerpt, content, published_at, updated_at, seen_at, post_date, language_id,
        clicks, date_key FROM posts WHERE id = ?`)
      .get(story.postId) as ExistingPost;
    const moved = { ...post, publishedAt: first.published_at, updatedAt: first.updated_at };
    return updatePost(stmts, feed, first, moved, languageCounts) === "unchanged" ? "unchanged" : "updated";
  }
  insertPost(stmts, feed, post, date, keys, languageCounts);
  return "inserted";
}

/** Writes a new post, its index row and its story keys. */
function insertPost(
  stmts: StatementCache,
  feed: { id: number; name: string; categoryId: number | null },
  post: IncomingPost,
  date: number,
  keys: StoryKeys,
  languageCounts: LanguageCountChanges,
): void {
  // The key before the insert, which writes it: the new post's id is the highest.
  const key = dateKeyFor(stmts, null, date);
  const { lastInsertRowid } = stmts
    .get(`INSERT INTO posts (feed_id, guid, link, title, excerpt, content, published_at, updated_at, seen_at,
        post_date, language_id, category_id, date_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
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
      date,
      post.languageId,
      feed.categoryId,
      key,
    );
  indexPost(stmts, key, post, feed, { id: Number(lastInsertRowid), clicks: 0 }, true);
  registerStory(stmts, Number(lastInsertRowid), keys, date);
  languageCounts.add(post.languageId, 1);
}

/** Counts a feed's posts and newest date again: its own posts and the stories it carries as copies. */
function recountFeed(stmts: StatementCache, feedId: number): void {
  stmts
    .get(`UPDATE feeds SET (post_count, last_post_date) = (SELECT count(*), max(post_date) FROM (
        SELECT post_date FROM posts WHERE feed_id = ?
        UNION ALL SELECT c.story_date FROM story_copies c JOIN posts p ON p.id = c.post_id
          WHERE c.feed_id = ? AND p.feed_id <> c.feed_id)) WHERE id = ?`)
    .run(feedId, feedId, feedId);
}

/**
 * Splits a story again (posts duplicates --undo): each copy becomes a post of its own feed, with
 * the fields it came with, and the feeds are counted again. Inside the caller's transaction.
 */
function splitStoryRows(stmts: StatementCache, postId: number): boolean {
  const copies = stmts
    .get(`SELECT id, feed_id, guid, link, title, excerpt, content, published_at, updated_at, seen_at, language_id
      FROM story_copies WHERE post_id = ? ORDER BY id`)
    .all(postId) as Array<{
    id: number;
    feed_id: number;
    guid: string;
    link: string;
    title: string;
    excerpt: string;
    content: string;
    published_at: number | null;
    updated_at: number | null;
    seen_at: number;
    language_id: number;
  }>;
  if (copies.length === 0) return false;
  const languageCounts = new LanguageCountChanges();
  const feeds = new Set<number>();
  for (const c of copies) {
    stmts.get("DELETE FROM story_copies WHERE id = ?").run(c.id);
    const feed = requireFeed(stmts, c.feed_id);
    const post: IncomingPost = {
      guid: c.guid,
      link: c.link,
      title: c.title,
      excerpt: c.excerpt,
      content: c.content,
      publishedAt: c.published_at,
      updatedAt: c.updated_at,
      seenAt: c.seen_at,
      languageId: c.language_id,
    };
    // A guid the feed holds as a post already (a copy of its own story): nothing to add.
    if (stmts.get("SELECT 1 FROM posts WHERE feed_id = ? AND guid = ?").get(c.feed_id, c.guid)) continue;
    // No link key: the split post must not catch the story's later copies by link again.
    const keys = { ...storyKeys(post), linkKey: null };
    const target = { id: feed.feedId, name: feed.feedName, categoryId: feed.categoryId };
    insertPost(stmts, target, post, postDate(post, post.seenAt), keys, languageCounts);
    feeds.add(c.feed_id);
  }
  languageCounts.write(stmts);
  for (const feedId of feeds) recountFeed(stmts, feedId);
  return true;
}

export function splitStory(db: Database.Database, stmts: StatementCache, postId: number): boolean {
  return db
    .transaction(() => {
      const split = splitStoryRows(stmts, postId);
      settleSearchDays(stmts);
      return split;
    })
    .immediate();
}

function updatePost(
  stmts: StatementCache,
  feed: { id: number; name: string },
  old: ExistingPost,
  post: IncomingPost,
  languageCounts: LanguageCountChanges,
): "updated" | "unchanged" {
  if (postUnchanged(old, post)) return "unchanged";
  // seen_at is the first-seen time: an update keeps it. The entry's own new date is its date (the
  // store contract); a repost under a new guid is a copy instead, which moves nothing.
  const date = postDate(post, old.seen_at);
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
      date,
      post.languageId,
      old.id,
    );
  unindexPost(stmts, old.id, old.date_key);
  // Its clicks stay: its row in the clicked posts' index keeps its key, with the new tokens.
  indexPost(stmts, assignDateKey(stmts, old.id, date), post, feed, old);
  rekeyStory(stmts, old.id, storyKeys(post), date);
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

/** Each connection's statements for refreshes, which hold the index rows back (sqlite-index-write-hold.ts). */
const holds = new WeakMap<Database.Database, IndexWriteHold>();

function holdFor(db: Database.Database): IndexWriteHold {
  let hold = holds.get(db);
  if (!hold) {
    hold = new IndexWriteHold(db);
    holds.set(db, hold);
  }
  return hold;
}

export function applyFeedUpdate(
  db: Database.Database,
  _stmts: StatementCache,
  feedId: number,
  update: FeedUpdate,
): FeedUpdateResult {
  const hold = holdFor(db);
  try {
    return db
      .transaction(() => {
        hold.begin();
        const held = holdRollups(hold);
        const result = writeFeedUpdate(hold, feedId, update);
        // Before the held index rows: its statements write many rows, each opening a statement
        // journal, at which FTS5 would write out rows already passed to it (sqlite-index-write-hold.ts).
        if (held) settlePostRollups(hold);
        hold.writeHeld();
        // The index now holds the posts' rows: the days they touched are counted again.
        settleSearchDays(hold);
        return result;
      })
      .immediate();
  } catch (error) {
    throw error instanceof HeldIndexWriteError ? error.cause : error;
  } finally {
    hold.drop();
  }
}

/** One refresh's writes, inside the caller's transaction. */
function writeFeedUpdate(stmts: StatementCache, feedId: number, update: FeedUpdate): FeedUpdateResult {
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
  let newest = Number.NEGATIVE_INFINITY;
  for (const post of update.posts) {
    const outcome = upsertPost(stmts, target, post, languageCounts);
    if (typeof outcome === "object") {
      // A copy of another feed's story: listed in this feed too, at the story's date.
      result.inserted++;
      newest = Math.max(newest, outcome.copiedAt);
      continue;
    }
    if (outcome !== "unchanged") result[outcome]++;
    if (outcome === "inserted") newest = Math.max(newest, postDate(post, post.seenAt));
  }
  languageCounts.write(stmts);
  if (result.updated > 0) {
    recountFeed(stmts, feedId);
  } else if (result.inserted > 0) {
    // New posts only: the count and the newest date follow from them, without reading the feed's
    // other posts (a large feed's refresh would count them all).
    stmts
      .get(`UPDATE feeds SET post_count = post_count + ?, last_post_date = max(coalesce(last_post_date, ?), ?)
          WHERE id = ?`)
      .run(result.inserted, newest, newest, feedId);
  }
  return result;
}

/**
 * Several feeds' refreshes in one transaction: a commit (the log write, the full-text index's
 * segment flush) is then paid once for all of them. No savepoint per feed: FTS5 flushes its pending
 * rows to a new segment at every savepoint, which costs more than the commits saved. Instead, when
 * one feed's writes fail, the whole transaction is rolled back and redone without it: the feeds
 * before it together, it alone (its error is what a refresh of its own would meet), the feeds after
 * it together. Every feed ends as if written on its own, one after another.
 */
export function applyFeedUpdates(
  db: Database.Database,
  stmts: StatementCache,
  updates: ReadonlyArray<{ feedId: number; update: FeedUpdate }>,
): FeedUpdateOutcome[] {
  if (updates.length === 0) return [];
  if (updates.length === 1) {
    const { feedId, update } = updates[0]!;
    try {
      return [{ ok: true, result: applyFeedUpdate(db, stmts, feedId, update) }];
    } catch (error) {
      return [{ ok: false, error: translateSqliteError(error) }];
    }
  }
  let failedAt = -1;
  const hold = holdFor(db);
  const run = db.transaction(() => {
    hold.begin();
    const held = holdRollups(hold);
    const outcomes = updates.map(({ feedId, update }, i): FeedUpdateOutcome => {
      hold.tagAs(i);
      try {
        return { ok: true, result: writeFeedUpdate(hold, feedId, update) };
      } catch (error) {
        failedAt = i;
        throw error;
      }
    });
    if (held) settlePostRollups(hold);
    try {
      hold.writeHeld();
    } catch (error) {
      if (error instanceof HeldIndexWriteError) failedAt = error.tag;
      throw error;
    }
    settleSearchDays(hold);
    return outcomes;
  });
  try {
    return run.immediate();
  } catch (error) {
    hold.drop();
    // Not a feed's own failure: BEGIN or COMMIT (a lock held too long, a full disk) wrote nothing.
    if (failedAt < 0) throw error;
    return [
      ...applyFeedUpdates(db, stmts, updates.slice(0, failedAt)),
      ...applyFeedUpdates(db, stmts, [updates[failedAt]!]),
      ...applyFeedUpdates(db, stmts, updates.slice(failedAt + 1)),
    ];
  }
}
