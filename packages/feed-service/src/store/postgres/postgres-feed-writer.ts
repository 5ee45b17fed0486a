/**
 * Feeds and their posts on PostgreSQL: adding and removing feeds, and applying one refresh in one
 * transaction (the same rules as SQLite: posts upserted by (feed, guid), first-seen time kept,
 * search vectors and the feed's post count kept in step). The feed row is locked first, so two
 * workers refreshing one feed (a lease that expired under a slow worker) apply one after the other.
 */
import type pg from "pg";
import { type StoryKeys, storyKeys } from "../../dedupe/story-keys.js";
import { FeedServiceError } from "../../errors.js";
import { feedColumnSet } from "../feed-pause-sql.js";
import { feedColumnUpdates } from "../feed-update-columns.js";
import {
  checkPost,
  postDate,
  postUnchanged,
  type StoredPostFields,
  storedFields,
} from "../incoming-posts.js";
import { htmlToIndexText } from "../index-text.js";
import type { FeedAdminRecord, FeedUpdate, FeedUpdateResult, IncomingPost, NewFeed } from "../store.js";
import { feedNameText, feedUrlText } from "../text-checks.js";
import { feedById } from "./postgres-catalog-queries.js";
import { changes, inTransaction, rows, type Sql, translatePostgresError } from "./postgres-connection.js";
import { claimStoryKeys, releaseStoryKeys } from "./postgres-story-locks.js";
import {
  findStories,
  insertCopies,
  matchWithinRefresh,
  RECOUNT_FEED,
  registerStories,
  rekeyStory,
  type StoryMatch,
  storedCopies,
  updateCopy,
} from "./postgres-story-writer.js";
import { postColumns } from "./postgres-text-search.js";

interface ExistingPost extends StoredPostFields {
  id: number;
  seen_at: number;
  post_date: number;
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

function vectorsOf(
  post: { title: string; excerpt: string; content: string },
  feedName: string,
): ReturnType<typeof postColumns> {
  return postColumns(feedName, post.title, `${post.excerpt} ${htmlToIndexText(post.content)}`);
}

/** Re-writes the search vectors of a feed's posts after its name (an indexed field) changed. */
async function reindexFeed(sql: Sql, feedId: number, feedName: string): Promise<void> {
  const posts = await rows<{ id: number; title: string; excerpt: string; content: string }>(
    sql,
    "SELECT id, title, excerpt, content FROM posts WHERE feed_id = $1",
    [feedId],
  );
  for (const p of posts) {
    const vectors = vectorsOf(p, feedName);
    await sql.query(
      "UPDATE posts SET search_vector = $1::tsvector, phrase_vector = $2::tsvector WHERE id = $3",
      [vectors.words, vectors.pairs, p.id],
    );
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
  return inTransaction(pool, async (sql) => {
    // The stories other feeds carry as copies stay theirs: split before the cascade removes them.
    const carried = await rows<{ id: number }>(
      sql,
      `SELECT DISTINCT c.post_id AS id FROM posts p JOIN story_copies c ON c.post_id = p.id
        WHERE p.feed_id = $1 AND c.feed_id <> p.feed_id`,
      [feedId],
    );
    for (const { id } of carried) await splitStoryRows(sql, id);
    return (await changes(sql, "DELETE FROM feeds WHERE id = $1", [feedId])) > 0;
  });
}

/**
 * Splits a story again (posts duplicates --undo): each copy becomes a post of its own feed with the
 * fields it came with, and the feeds are counted again.
 */
export async function splitStory(pool: pg.Pool, postId: number): Promise<boolean> {
  return inTransaction(pool, (sql) => splitStoryRows(sql, postId));
}

async function splitStoryRows(sql: Sql, postId: number): Promise<boolean> {
  const copies = await rows<{
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
  }>(
    sql,
    `DELETE FROM story_copies WHERE post_id = $1 RETURNING id, feed_id, guid, link, title, excerpt, content,
      published_at, updated_at, seen_at, language_id`,
    [postId],
  );
  if (copies.length === 0) return false;
  copies.sort((a, b) => a.id - b.id);
  const feeds = new Set<number>();
  for (const c of copies) {
    const [held] = await rows(sql, "SELECT 1 FROM posts WHERE feed_id = $1 AND guid = $2", [
      c.feed_id,
      c.guid,
    ]);
    if (held) continue;
    const feed = await requireFeed(sql, c.feed_id);
    const post: IncomingPost = {
      guid: c.guid,
      link: c.link,
      title: c.title,
      excerpt: c.excerpt,
      content: c.content,
      publishedAt: c.published_at === null ? null : Number(c.published_at),
      updatedAt: c.updated_at === null ? null : Number(c.updated_at),
      seenAt: Number(c.seen_at),
      languageId: c.language_id,
    };
    await insertPosts(sql, { id: feed.feedId, name: feed.feedName, categoryId: feed.categoryId }, [post]);
    // No link key: the split post must not catch the story's later copies by link again.
    await registerStories(sql, c.feed_id, [{ guid: c.guid, keys: { ...storyKeys(post), linkKey: null } }]);
    feeds.add(c.feed_id);
  }
  for (const feedId of feeds) await sql.query(RECOUNT_FEED, [feedId]);
  return true;
}

const existingColumns =
  "id, guid, link, title, excerpt, content, published_at, updated_at, seen_at, post_date, language_id";

/** Rows per statement when a refresh's posts are looked up and inserted as arrays. */
const batchRows = 1000;

/**
 * Upserts a refresh's posts by (feed, guid) with one look-up and one insert per 1,000 posts: a
 * statement per post cost two round trips each (an OPML import's 1,000-entry archives, a
 * migration). Posts keep the order they came in, so ids follow it as before; a guid repeated
 * within one refresh updates its first copy, as writing them one by one would.
 */
async function upsertPosts(
  sql: Sql,
  feed: { id: number; name: string; categoryId: number | null },
  posts: readonly IncomingPost[],
): Promise<FeedUpdateResult & { rewritten: number }> {
  for (const post of posts) checkPost(post);
  const stored = new Map<string, ExistingPost>();
  const guids = [...new Set(posts.map((p) => p.guid))];
  for (let i = 0; i < guids.length; i += batchRows) {
    const found = await rows<ExistingPost & { guid: string }>(
      sql,
      `SELECT ${existingColumns} FROM posts WHERE feed_id = $1 AND guid = ANY($2::text[])`,
      [feed.id, guids.slice(i, i + batchRows)],
    );
    for (const row of found) stored.set(row.guid, row);
  }
  const copies = await storedCopies(
    sql,
    feed.id,
    guids.filter((g) => !stored.has(g)),
  );
  // The keys this refresh looks up or writes (new and changed posts; a copy has none), claimed
  // before any of it, so that concurrent refreshes merge as one after another (postgres-story-locks.ts).
  // Computed once here when ingest did not (storyKeys takes them from the post from now on).
  const writesKeys = (p: IncomingPost) => {
    const old = stored.get(p.guid);
    return !copies.has(p.guid) && (old === undefined || !postUnchanged(old, p));
  };
  const keyed = posts.map((p) =>
    p.storyKeys === undefined && writesKeys(p) ? { ...p, storyKeys: storyKeys(p) } : p,
  );
  const claims = await claimStoryKeys(
    sql,
    keyed.filter(writesKeys).map((p) => p.storyKeys!),
  );
  const result = { inserted: 0, updated: 0, rewritten: 0 };
  const fresh = new Map<string, IncomingPost>();
  for (const post of keyed) {
    const copy = copies.get(post.guid);
    if (copy !== undefined) {
      if (postUnchanged(copy, post)) continue;
      await updateCopy(sql, copy.id, post);
      copies.set(post.guid, { ...copy, ...storedFields(post) });
      result.updated++;
      continue;
    }
    const old = stored.get(post.guid);
    if (old !== undefined) {
      if (postUnchanged(old, post)) continue;
      await updatePost(sql, feed, old, post);
      stored.set(post.guid, { ...old, ...storedFields(post) });
      result.updated++;
      result.rewritten++;
      continue;
    }
    const earlier = fresh.get(post.guid);
    if (earlier === undefined) {
      fresh.set(post.guid, post);
      result.inserted++;
    } else if (!postUnchanged(storedFields(earlier), post)) {
      // seen_at is the first-seen time: the later copy keeps the first one's.
      fresh.set(post.guid, { ...post, seenAt: earlier.seenAt });
      result.updated++;
    }
  }
  const found: Array<{ post: IncomingPost; keys: StoryKeys; story: StoryMatch | undefined }> = [];
  const candidates = [...fresh.values()];
  for (let i = 0; i < candidates.length; i += batchRows) {
    const chunk = candidates.slice(i, i + batchRows);
    const stories = await findStories(sql, feed.id, chunk);
    chunk.forEach((post, j) => {
      found.push({ ...stories[j]!, post });
    });
  }
  const { inserts, copies: copied } = matchWithinRefresh(found);
  for (const { post, story, rewrote } of copied) {
    if (!("postId" in story)) {
      // A copy of a post of this refresh, which took its fields (matchWithinRefresh).
      result.inserted--;
      if (rewrote) result.updated++;
      continue;
    }
    if (story.feedId !== feed.id) {
      // Listed in this feed too, at the story's date: counted again below.
      result.rewritten++;
      continue;
    }
    // The same text under a new guid in the story's own feed: a new permalink or title for it.
    result.inserted--;
    const [first] = await rows<ExistingPost>(sql, `SELECT ${existingColumns} FROM posts WHERE id = $1`, [
      story.postId,
    ]);
    const moved = { ...post, publishedAt: first!.published_at, updatedAt: first!.updated_at };
    if (!postUnchanged(first!, moved)) {
      await updatePost(sql, feed, first!, moved);
      result.updated++;
      result.rewritten++;
    }
  }
  for (let i = 0; i < inserts.length; i += batchRows) {
    const batch = inserts.slice(i, i + batchRows);
    await insertPosts(
      sql,
      feed,
      batch.map((b) => b.post),
    );
    await registerStories(
      sql,
      feed.id,
      batch.map((b) => ({ guid: b.post.guid, keys: b.keys })),
    );
  }
  await insertCopies(sql, feed.id, copied);
  await releaseStoryKeys(sql, claims);
  return result;
}

function unzipVectors(
  vectors: ReadonlyArray<ReturnType<typeof postColumns>>,
): [string[], string[], Array<string | null>, Array<number | null>] {
  return [
    vectors.map((v) => v.words),
    vectors.map((v) => v.pairs),
    vectors.map((v) => v.rank),
    vectors.map((v) => v.bodyLength),
  ];
}

async function insertPosts(
  sql: Sql,
  feed: { id: number; name: string; categoryId: number | null },
  posts: readonly IncomingPost[],
): Promise<void> {
  // WITH ORDINALITY ... ORDER BY: the identity column numbers the rows in the order they came.
  // The rank columns come computed (postColumns): the posts_rank_columns trigger runs only for a
  // row that has none (migration 40).
  // The feed's post count and newest date grow by what was inserted, in the same statement: no
  // round trip, and no count of all its posts (the feed row is locked, so no other refresh moves them).
  await sql.query(
    `WITH inserted AS (
      INSERT INTO posts (feed_id, guid, link, title, excerpt, content, published_at, updated_at, seen_at,
          post_date, language_id, category_id, search_vector, phrase_vector, rank_vector, body_length)
        SELECT $1, p.guid, p.link, p.title, p.excerpt, p.content, p.published_at, p.updated_at, p.seen_at,
          p.post_date, p.language_id, $2, p.search_vector::tsvector, p.phrase_vector::tsvector,
          p.rank_vector::tsvector, p.body_length
        FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::bigint[],
            $10::bigint[], $11::bigint[], $12::integer[], $13::text[], $14::text[], $15::text[], $16::integer[])
          WITH ORDINALITY AS p(guid, link, title, excerpt, content, published_at, updated_at, seen_at,
            post_date, language_id, search_vector, phrase_vector, rank_vector, body_length, ord)
        ORDER BY p.ord
        RETURNING post_date)
    UPDATE feeds SET post_count = post_count + (SELECT count(*) FROM inserted),
      last_post_date = greatest(last_post_date, (SELECT max(post_date) FROM inserted))
    WHERE id = $1`,
    [
      feed.id,
      feed.categoryId,
      posts.map((p) => p.guid),
      posts.map((p) => p.link),
      posts.map((p) => p.title),
      posts.map((p) => p.excerpt),
      posts.map((p) => p.content),
      posts.map((p) => p.publishedAt),
      posts.map((p) => p.updatedAt),
      posts.map((p) => p.seenAt),
      posts.map((p) => postDate(p, p.seenAt)),
      posts.map((p) => p.languageId),
      ...unzipVectors(posts.map((p) => vectorsOf(p, feed.name))),
    ],
  );
}

async function updatePost(
  sql: Sql,
  feed: { name: string },
  old: ExistingPost,
  post: IncomingPost,
): Promise<void> {
  // seen_at is the first-seen time: an update keeps it. The entry's own new date is its date (the
  // store contract); a repost under a new guid is a copy instead, which moves nothing.
  const date = postDate(post, old.seen_at);
  const vectors = vectorsOf(post, feed.name);
  await sql.query(
    `UPDATE posts SET link = $1, title = $2, excerpt = $3, content = $4, published_at = $5, updated_at = $6,
        post_date = $7, language_id = $8, search_vector = $9::tsvector, phrase_vector = $10::tsvector WHERE id = $11`,
    [
      post.link,
      post.title,
      post.excerpt,
      post.content,
      post.publishedAt,
      post.updatedAt,
      date,
      post.languageId,
      vectors.words,
      vectors.pairs,
      old.id,
    ],
  );
  await rekeyStory(sql, old.id, post, date);
}

async function saveFeedColumns(
  sql: Sql,
  feedId: number,
  update: FeedUpdate,
  renamed: string | null,
): Promise<void> {
  const pairs = feedColumnUpdates(update, renamed);
  if (pairs.length === 0) return;
  const sets = pairs.map(([column], i) => feedColumnSet(column, `$${i + 1}`)).join(", ");
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
    const { rewritten, ...result } = await upsertPosts(
      sql,
      { id: feedId, name, categoryId: feed.categoryId },
      update.posts,
    );
    // Inserts counted themselves (insertPosts); a rewritten post may have moved its date back, and
    // copies of other feeds' stories count in this feed too.
    if (rewritten > 0) {
      await sql.query(RECOUNT_FEED, [feedId]);
    }
    return result;
  });
}
