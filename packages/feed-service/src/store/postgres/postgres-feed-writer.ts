/**
 * Feeds and their posts on PostgreSQL: adding and removing feeds, and applying one refresh in one
 * transaction (the same rules as SQLite: posts upserted by (feed, guid), first-seen time kept,
 * search vectors and the feed's post count kept in step). The feed row is locked first, so two
 * workers refreshing one feed (a lease that expired under a slow worker) apply one after the other.
 */
import type pg from "pg";
import { type StoryKeys, storyKeys, textWindowMs } from "../../dedupe/story-keys.js";
import { sameText } from "../../dedupe/text-fingerprint.js";
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
import type {
  FeedAdminRecord,
  FeedUpdate,
  FeedUpdateOutcome,
  FeedUpdateResult,
  IncomingPost,
  NewFeed,
} from "../store.js";
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

/** The feed a post is written for: its id, its name (an indexed field) and its category. */
interface FeedRef {
  id: number;
  name: string;
  categoryId: number | null;
}

/**
 * The new posts of a batch's refreshes held back for one INSERT at the end (applyFeedUpdates),
 * so that the posts' statement-level triggers (roll-ups, counted searches) and the statement's
 * own set-up run once per batch instead of once per feed. The held posts are written before
 * anything could read them: a later refresh of the same feed, a story look-up that one of them
 * would answer (heldStory), a copy of a story; so every read sees what writing the refreshes one
 * after another would have shown it, and the posts get the same ids in the same order.
 */
interface HeldPosts {
  rows: Array<{ feed: FeedRef; post: IncomingPost; keys: StoryKeys }>;
  feeds: Set<number>;
  /** The held posts' story keys as findStories reads them: a link key's feeds, a band's dates and prints. */
  links: Map<string, Set<number>>;
  bands: Map<number, Array<{ date: number; hex: string }>>;
  /** Every claim the batch made, released together just before its commit. */
  made: string[];
  /** Set when writing them failed: no one feed's failure then. */
  failed: boolean;
}

const holdPosts = (): HeldPosts => ({
  rows: [],
  feeds: new Set(),
  links: new Map(),
  bands: new Map(),
  made: [],
  failed: false,
});

/** Writes the held posts (in the order they came) and their story keys. */
async function writeHeld(sql: Sql, held: HeldPosts): Promise<void> {
  try {
    for (let i = 0; i < held.rows.length; i += batchRows) {
      const batch = held.rows.slice(i, i + batchRows);
      await insertPosts(sql, batch);
      await registerStories(sql, batch);
    }
  } catch (error) {
    held.failed = true;
    throw error;
  }
  held.rows = [];
  held.feeds.clear();
  held.links.clear();
  held.bands.clear();
}

/** Adds a refresh's new posts to the held ones. */
function hold(
  held: HeldPosts,
  feed: FeedRef,
  inserts: ReadonlyArray<{ post: IncomingPost; keys: StoryKeys }>,
) {
  for (const { post, keys } of inserts) {
    held.rows.push({ feed, post, keys });
    held.feeds.add(feed.id);
    if (keys.linkKey !== null) {
      const feeds = held.links.get(keys.linkKey) ?? new Set();
      held.links.set(keys.linkKey, feeds.add(feed.id));
    }
    for (const band of keys.print?.bands ?? []) {
      const list = held.bands.get(band) ?? [];
      held.bands.set(band, list);
      list.push({ date: postDate(post, post.seenAt), hex: keys.print!.hex });
    }
  }
}

/**
 * Whether a held post would be found as the story of one of these new posts of feed `feedId`, by
 * findStories' rules (a link key of another feed's post; a shared band, a date within the text
 * window and the same text): if none would, the look-up finds what it finds with them written.
 */
function heldStory(held: HeldPosts, feedId: number, posts: readonly IncomingPost[]): boolean {
  for (const post of posts) {
    const keys = storyKeys(post);
    const feeds = keys.linkKey === null ? undefined : held.links.get(keys.linkKey);
    if (feeds !== undefined && (feeds.size > 1 || !feeds.has(feedId))) return true;
    if (keys.print === null) continue;
    const date = postDate(post, post.seenAt);
    for (const band of keys.print.bands)
      for (const h of held.bands.get(band) ?? [])
        if (Math.abs(h.date - date) <= textWindowMs && sameText(h.hex, keys.print.hex)) return true;
  }
  return false;
}

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
    const ref = { id: feed.feedId, name: feed.feedName, categoryId: feed.categoryId };
    await insertPosts(sql, [{ feed: ref, post }]);
    // No link key: the split post must not catch the story's later copies by link again.
    await registerStories(sql, [{ feed: ref, post, keys: { ...storyKeys(post), linkKey: null } }]);
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
 * within one refresh updates its first copy, as writing them one by one would. With `held` (a
 * batch of refreshes), the new posts join it instead of being inserted now (HeldPosts).
 */
async function upsertPosts(
  sql: Sql,
  feed: FeedRef,
  posts: readonly IncomingPost[],
  held?: HeldPosts,
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
  // A held post that is the story of one of them is written first, as by a refresh of its own.
  if (held !== undefined && heldStory(held, feed.id, candidates)) await writeHeld(sql, held);
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
  const own = held ?? holdPosts();
  hold(own, feed, inserts);
  // A copy of a post of this refresh finds its story by guid: the posts are written first.
  if (held === undefined || copied.length > 0) await writeHeld(sql, own);
  await insertCopies(sql, feed.id, copied);
  if (held === undefined) await releaseStoryKeys(sql, claims);
  else held.made.push(...claims);
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
  rows: ReadonlyArray<{ feed: FeedRef; post: IncomingPost }>,
): Promise<void> {
  // WITH ORDINALITY ... ORDER BY: the identity column numbers the rows in the order they came.
  // The rank columns come computed (postColumns): the posts_rank_columns trigger runs only for a
  // row that has none (migration 40).
  // Each feed's post count and newest date grow by what was inserted, in the same statement: no
  // round trip, and no count of all its posts (the feed rows are locked, so no other refresh moves them).
  const posts = rows.map((r) => r.post);
  await sql.query(
    `WITH inserted AS (
      INSERT INTO posts (feed_id, guid, link, title, excerpt, content, published_at, updated_at, seen_at,
          post_date, language_id, category_id, search_vector, phrase_vector, rank_vector, body_length)
        SELECT p.feed_id, p.guid, p.link, p.title, p.excerpt, p.content, p.published_at, p.updated_at, p.seen_at,
          p.post_date, p.language_id, p.category_id, p.search_vector::tsvector, p.phrase_vector::tsvector,
          p.rank_vector::tsvector, p.body_length
        FROM unnest($1::integer[], $2::integer[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
            $8::bigint[], $9::bigint[], $10::bigint[], $11::bigint[], $12::integer[], $13::text[], $14::text[],
            $15::text[], $16::integer[])
          WITH ORDINALITY AS p(feed_id, category_id, guid, link, title, excerpt, content, published_at,
            updated_at, seen_at, post_date, language_id, search_vector, phrase_vector, rank_vector,
            body_length, ord)
        ORDER BY p.ord
        RETURNING feed_id, post_date)
    UPDATE feeds f SET post_count = f.post_count + n.posts, last_post_date = greatest(f.last_post_date, n.newest)
      FROM (SELECT feed_id, count(*) AS posts, max(post_date) AS newest FROM inserted GROUP BY feed_id) n
      WHERE f.id = n.feed_id`,
    [
      rows.map((r) => r.feed.id),
      rows.map((r) => r.feed.categoryId),
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
      ...unzipVectors(rows.map((r) => vectorsOf(r.post, r.feed.name))),
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

/** One refresh within `sql`'s transaction; with `held`, its new posts join the batch's (HeldPosts). */
async function writeFeedUpdate(
  sql: Sql,
  feedId: number,
  update: FeedUpdate,
  held?: HeldPosts,
): Promise<FeedUpdateResult> {
  // The feed's held posts are written before it is read again (its posts by guid, a re-index).
  if (held?.feeds.has(feedId)) await writeHeld(sql, held);
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
    held,
  );
  // Inserts counted themselves (insertPosts); a rewritten post may have moved its date back, and
  // copies of other feeds' stories count in this feed too. Held posts of the feed are not counted
  // here: their insert adds them to the count and the newest date that this sets.
  if (rewritten > 0) await sql.query(RECOUNT_FEED, [feedId]);
  return result;
}

export async function applyFeedUpdate(
  pool: pg.Pool,
  feedId: number,
  update: FeedUpdate,
): Promise<FeedUpdateResult> {
  return inTransaction(pool, (sql) => writeFeedUpdate(sql, feedId, update));
}

/**
 * Several feeds' refreshes in one transaction (Store.applyFeedUpdates): each written as
 * applyFeedUpdate would, in the order given, their new posts held and inserted together at the end
 * (HeldPosts), so that a batch pays one commit, one INSERT and one run of the posts' statement
 * triggers instead of one per feed. When a feed's writes fail, the transaction is rolled back and
 * redone as SQLite's does (sqlite-feed-writer.ts): the feeds before it together, it alone, the feeds
 * after it together; when the held posts' insert fails, each feed alone. So every feed ends as if
 * written on its own, and one that fails reports what a refresh of its own would meet. Two
 * batches of other processes that lock feeds or story claims in crossed order deadlock: the server
 * ends one of them at a feed's statement, and that batch is redone as above.
 */
export async function applyFeedUpdates(
  pool: pg.Pool,
  updates: ReadonlyArray<{ feedId: number; update: FeedUpdate }>,
): Promise<FeedUpdateOutcome[]> {
  const alone = async ({
    feedId,
    update,
  }: {
    feedId: number;
    update: FeedUpdate;
  }): Promise<FeedUpdateOutcome> => {
    try {
      return { ok: true, result: await applyFeedUpdate(pool, feedId, update) };
    } catch (error) {
      return { ok: false, error };
    }
  };
  if (updates.length <= 1) return Promise.all(updates.map(alone));
  // Which feed's writes failed: its index, -1 for the held posts' insert, null for neither.
  let failedAt: number | null = null;
  const held = holdPosts();
  try {
    return await inTransaction(pool, async (sql) => {
      const outcomes: FeedUpdateOutcome[] = [];
      for (const [i, { feedId, update }] of updates.entries()) {
        try {
          outcomes.push({ ok: true, result: await writeFeedUpdate(sql, feedId, update, held) });
        } catch (error) {
          failedAt = held.failed ? -1 : i;
          throw error;
        }
      }
      try {
        await writeHeld(sql, held);
      } catch (error) {
        failedAt = -1;
        throw error;
      }
      await releaseStoryKeys(sql, held.made);
      return outcomes;
    });
  } catch (error) {
    // Not a feed's own failure: BEGIN or COMMIT (the server gone) wrote nothing.
    if (failedAt === null) throw error;
    if (failedAt < 0) {
      const outcomes: FeedUpdateOutcome[] = [];
      for (const u of updates) outcomes.push(await alone(u));
      return outcomes;
    }
    return [
      ...(await applyFeedUpdates(pool, updates.slice(0, failedAt))),
      await alone(updates[failedAt]!),
      ...(await applyFeedUpdates(pool, updates.slice(failedAt + 1))),
    ];
  }
}
