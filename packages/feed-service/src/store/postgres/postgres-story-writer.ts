/**
 * Ingest's side of one story once (src/dedupe/) on PostgreSQL, the same rules as SQLite's
 * (sqlite-story-writer.ts) with a refresh's look-ups made as arrays: the new posts' link keys in
 * one statement, their bands in another, so a refresh costs two round trips more, not two per post.
 * The posts of the refresh itself are matched in memory (matchWithinRefresh), since SQLite, which
 * writes entry by entry, finds a copy of an entry stored earlier in the same document.
 */
import { type StoryKeys, storyKeys, textWindowMs } from "../../dedupe/story-keys.js";
import { sameText } from "../../dedupe/text-fingerprint.js";
import { postDate, postUnchanged, storedFields } from "../incoming-posts.js";
import type { IncomingPost } from "../store.js";
import { rows, type Sql } from "./postgres-connection.js";

export interface StoryMatch {
  postId: number;
  feedId: number;
  postDate: number;
  by: "link" | "text";
}

/** A copy as stored (the columns an update compares). */
export interface StoredCopy {
  id: number;
  guid: string;
  link: string;
  title: string;
  excerpt: string;
  content: string;
  published_at: number | null;
  updated_at: number | null;
  language_id: number;
}

/** The copies the feed already carries under these guids, by guid. */
export async function storedCopies(
  sql: Sql,
  feedId: number,
  guids: readonly string[],
): Promise<Map<string, StoredCopy>> {
  if (guids.length === 0) return new Map();
  const found = await rows<StoredCopy>(
    sql,
    `SELECT id, guid, link, title, excerpt, content, published_at, updated_at, language_id
      FROM story_copies WHERE feed_id = $1 AND guid = ANY($2::text[])`,
    [feedId, guids],
  );
  return new Map(found.map((c) => [c.guid, c]));
}

/**
 * The story each new post is a copy of, if any (see sqlite-story-writer.ts for the rules: a link
 * match across feeds only, a text match within a few days in any feed).
 */
export async function findStories(
  sql: Sql,
  feedId: number,
  posts: readonly IncomingPost[],
): Promise<Array<{ keys: StoryKeys; story: StoryMatch | undefined }>> {
  const keyed = posts.map((p) => ({ keys: storyKeys(p), date: postDate(p, p.seenAt) }));
  const links = [...new Set(keyed.flatMap((k) => (k.keys.linkKey === null ? [] : [k.keys.linkKey])))];
  const byLink = new Map<string, StoryMatch>();
  if (links.length > 0) {
    const hits = await rows<{ link_key: string; post_id: number; feed_id: number; post_date: number }>(
      sql,
      `SELECT DISTINCT ON (k.link_key) k.link_key, p.id AS post_id, p.feed_id, p.post_date
        FROM story_keys k JOIN posts p ON p.id = k.post_id
        WHERE k.link_key = ANY($1::text[]) AND p.feed_id <> $2 ORDER BY k.link_key, k.post_id`,
      [links, feedId],
    );
    for (const h of hits)
      byLink.set(h.link_key, {
        postId: h.post_id,
        feedId: h.feed_id,
        postDate: Number(h.post_date),
        by: "link",
      });
  }
  const printed = keyed.filter(
    (k) => k.keys.print !== null && (k.keys.linkKey === null || !byLink.has(k.keys.linkKey)),
  );
  const candidates: Array<{
    band: number;
    post_id: number;
    feed_id: number;
    post_date: number;
    print: string;
  }> = [];
  if (printed.length > 0) {
    const bands = [...new Set(printed.flatMap((k) => k.keys.print!.bands))];
    const from = Math.min(...printed.map((k) => k.date)) - textWindowMs;
    const to = Math.max(...printed.map((k) => k.date)) + textWindowMs;
    candidates.push(
      ...(await rows<(typeof candidates)[number]>(
        sql,
        `SELECT b.band, b.post_id, p.feed_id, p.post_date, k.print FROM story_bands b
          JOIN story_keys k ON k.post_id = b.post_id JOIN posts p ON p.id = b.post_id
          WHERE b.band = ANY($1::integer[]) AND b.post_date BETWEEN $2 AND $3`,
        [bands, from, to],
      )),
    );
  }
  return keyed.map(({ keys, date }) => {
    const linked = keys.linkKey === null ? undefined : byLink.get(keys.linkKey);
    if (linked || keys.print === null) return { keys, story: linked };
    const near = candidates
      .filter(
        (c) =>
          keys.print!.bands.includes(c.band) &&
          Math.abs(Number(c.post_date) - date) <= textWindowMs &&
          sameText(c.print, keys.print!.hex),
      )
      .sort((a, b) => a.post_id - b.post_id)[0];
    return {
      keys,
      story: near && {
        postId: near.post_id,
        feedId: near.feed_id,
        postDate: Number(near.post_date),
        by: "text",
      },
    };
  });
}

/** A copy of a post that the same refresh inserts first: its story is found by guid once inserted. */
export interface FreshStoryMatch {
  freshGuid: string;
  postDate: number;
  by: "text";
}

/** A refresh's new posts sorted into posts to insert and copies, in the order they came. */
export interface RefreshStories {
  /** A post that a later copy re-wrote carries the copy's fields and keys (see below). */
  inserts: Array<{ post: IncomingPost; keys: StoryKeys }>;
  /** `rewrote`: the copy of a post of this refresh changed that post (a new permalink or title). */
  copies: Array<{ post: IncomingPost; story: StoryMatch | FreshStoryMatch; rewrote?: boolean }>;
}

/**
 * Matches the posts that found no stored story against the posts of the same refresh stored before
 * them, as SQLite's entry-by-entry writes do (sqlite-feed-writer.ts, upsertPost): by text only,
 * since a link match counts across feeds and a refresh is one feed's; the earliest such post is
 * the story. Its row then takes the copy's fields under its own guid and dates, and the copy's
 * keys, which later posts meet (SQLite's updatePost of "the same text under a new guid").
 */
export function matchWithinRefresh(
  found: ReadonlyArray<{ post: IncomingPost; keys: StoryKeys; story: StoryMatch | undefined }>,
): RefreshStories {
  const out: RefreshStories = { inserts: [], copies: [] };
  for (const { post, keys, story } of found) {
    if (story !== undefined) {
      out.copies.push({ post, story });
      continue;
    }
    const date = postDate(post, post.seenAt);
    const print = keys.print;
    const first =
      print === null
        ? undefined
        : out.inserts.find(
            (earlier) =>
              earlier.keys.print !== null &&
              Math.abs(postDate(earlier.post, earlier.post.seenAt) - date) <= textWindowMs &&
              earlier.keys.print.bands.some((b) => print.bands.includes(b)) &&
              sameText(earlier.keys.print.hex, print.hex),
          );
    if (first === undefined) {
      out.inserts.push({ post, keys });
      continue;
    }
    const held = first.post;
    const moved: IncomingPost = {
      ...post,
      guid: held.guid,
      publishedAt: held.publishedAt,
      updatedAt: held.updatedAt,
      seenAt: held.seenAt,
    };
    const storyDate = postDate(held, held.seenAt);
    const rewrote = !postUnchanged(storedFields(held), moved);
    if (rewrote) {
      first.post = moved;
      first.keys = storyKeys(moved);
    }
    out.copies.push({ post, story: { freshGuid: held.guid, postDate: storyDate, by: "text" }, rewrote });
  }
  return out;
}

/**
 * Keeps new copies of stories for the feed, in one statement, after the refresh's own posts are
 * inserted: a copy of one of them finds its story by guid.
 */
export async function insertCopies(
  sql: Sql,
  feedId: number,
  copies: ReadonlyArray<{ post: IncomingPost; story: StoryMatch | FreshStoryMatch }>,
): Promise<void> {
  if (copies.length === 0) return;
  const col = <T>(f: (c: { post: IncomingPost; story: StoryMatch | FreshStoryMatch }) => T) => copies.map(f);
  await sql.query(
    `INSERT INTO story_copies (feed_id, post_id, guid, link, title, excerpt, content, published_at, updated_at,
        seen_at, language_id, story_date, merged_by, merged_at)
      SELECT $1, coalesce(c.post_id, (SELECT p.id FROM posts p WHERE p.feed_id = $1 AND p.guid = c.story_guid)),
        c.guid, c.link, c.title, c.excerpt, c.content, c.published_at, c.updated_at, c.seen_at,
        c.language_id, c.story_date, c.merged_by, c.seen_at
      FROM unnest($2::integer[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[],
        $9::bigint[], $10::bigint[], $11::integer[], $12::bigint[], $13::text[], $14::text[])
        WITH ORDINALITY AS c(post_id, guid, link, title, excerpt, content, published_at, updated_at, seen_at,
          language_id, story_date, merged_by, story_guid, ord)
      ORDER BY c.ord`,
    [
      feedId,
      col((c) => ("postId" in c.story ? c.story.postId : null)),
      col((c) => c.post.guid),
      col((c) => c.post.link),
      col((c) => c.post.title),
      col((c) => c.post.excerpt),
      col((c) => c.post.content),
      col((c) => c.post.publishedAt),
      col((c) => c.post.updatedAt),
      col((c) => c.post.seenAt),
      col((c) => c.post.languageId),
      col((c) => c.story.postDate),
      col((c) => c.story.by),
      col((c) => ("freshGuid" in c.story ? c.story.freshGuid : null)),
    ],
  );
}

/** Saves a copy's changed fields (its story is left as it is). */
export async function updateCopy(sql: Sql, copyId: number, post: IncomingPost): Promise<void> {
  await sql.query(
    `UPDATE story_copies SET link = $1, title = $2, excerpt = $3, content = $4, published_at = $5, updated_at = $6,
      language_id = $7 WHERE id = $8`,
    [
      post.link,
      post.title,
      post.excerpt,
      post.content,
      post.publishedAt,
      post.updatedAt,
      post.languageId,
      copyId,
    ],
  );
}

/** Writes the story keys of newly inserted posts (found by feed and guid), in two statements. */
export async function registerStories(
  sql: Sql,
  posts: ReadonlyArray<{ feed: { id: number }; post: { guid: string }; keys: StoryKeys }>,
): Promise<void> {
  if (posts.length === 0) return;
  await sql.query(
    `INSERT INTO story_keys (post_id, link_key, print)
      SELECT p.id, k.link_key, k.print
        FROM unnest($1::integer[], $2::text[], $3::text[], $4::text[]) AS k(feed_id, guid, link_key, print)
        JOIN posts p ON p.feed_id = k.feed_id AND p.guid = k.guid
      ON CONFLICT (post_id) DO UPDATE SET link_key = excluded.link_key, print = excluded.print`,
    [
      posts.map((p) => p.feed.id),
      posts.map((p) => p.post.guid),
      posts.map((p) => p.keys.linkKey),
      posts.map((p) => p.keys.print?.hex ?? null),
    ],
  );
  const banded = posts.flatMap((p) =>
    p.keys.print === null ? [] : p.keys.print.bands.map((band) => [p.feed.id, p.post.guid, band] as const),
  );
  if (banded.length === 0) return;
  await sql.query(
    `INSERT INTO story_bands (band, post_date, post_id)
      SELECT k.band, p.post_date, p.id FROM unnest($1::integer[], $2::text[], $3::integer[]) AS k(feed_id, guid, band)
      JOIN posts p ON p.feed_id = k.feed_id AND p.guid = k.guid
      ON CONFLICT DO NOTHING`,
    [banded.map(([f]) => f), banded.map(([, g]) => g), banded.map(([, , b]) => b)],
  );
}

/** Re-writes a post's story keys after it changed in place; its copies follow its date. */
export async function rekeyStory(sql: Sql, postId: number, post: IncomingPost, date: number): Promise<void> {
  const keys = storyKeys(post);
  await sql.query("DELETE FROM story_bands WHERE post_id = $1", [postId]);
  await sql.query(
    `INSERT INTO story_keys (post_id, link_key, print) VALUES ($1, $2, $3)
      ON CONFLICT (post_id) DO UPDATE SET link_key = excluded.link_key, print = excluded.print`,
    [postId, keys.linkKey, keys.print?.hex ?? null],
  );
  if (keys.print !== null) {
    await sql.query(
      `INSERT INTO story_bands (band, post_date, post_id) SELECT b, $2, $3 FROM unnest($1::integer[]) AS b
        ON CONFLICT DO NOTHING`,
      [keys.print.bands, date, postId],
    );
  }
  await sql.query("UPDATE story_copies SET story_date = $1 WHERE post_id = $2 AND story_date <> $1", [
    date,
    postId,
  ]);
}

/** A feed's post count and newest date counted again: its own posts and the stories it carries as copies. */
export const RECOUNT_FEED = `UPDATE feeds SET (post_count, last_post_date) = (SELECT count(*), max(d) FROM (
    SELECT post_date AS d FROM posts WHERE feed_id = $1
    UNION ALL SELECT c.story_date FROM story_copies c JOIN posts p ON p.id = c.post_id
      WHERE c.feed_id = $1 AND p.feed_id <> c.feed_id) AS carried) WHERE id = $1`;
