/**
 * Ingest's side of one story once (src/dedupe/) on SQLite: finding the story a new post is a copy
 * of (an index probe on the link key, then one probe per band of the text print and day within a
 * few days of the post's date), keeping a copy as a `story_copies` row, and keeping a post's story
 * keys in step with its row. Everything runs inside the refresh's transaction (sqlite-feed-writer.ts).
 */
import { type StoryKeys, textWindowMs } from "../../dedupe/story-keys.js";
import { sameText } from "../../dedupe/text-fingerprint.js";
import type { IncomingPost } from "../store.js";
import type { StatementCache } from "./sqlite-connection.js";
import { daysWithBands, noteBands } from "./sqlite-story-band-days.js";
import { bandDay, bandDays } from "./sqlite-story-bands.js";

export interface StoryMatch {
  postId: number;
  feedId: number;
  postDate: number;
  by: "link" | "text";
}

/** Candidates read: band keys shared by more posts within days than this are noise, not a story. */
const bandCandidates = 32;

/**
 * The story a new post of `feedId` is a copy of, if any. A link match counts across feeds only:
 * within one feed a reused link is the feed's habit (entries of one page told apart by fragments),
 * and a changed guid on the same link is already resolved by ingest (unstable-guids.ts). A text
 * match counts within the feed too: the same text under a new guid is a re-published entry.
 */
export function findStory(
  stmts: StatementCache,
  feedId: number,
  keys: StoryKeys,
  date: number,
): StoryMatch | undefined {
  if (keys.linkKey !== null) {
    const hit = stmts
      .get(`SELECT p.id AS postId, p.feed_id AS feedId, p.post_date AS postDate FROM story_keys k
        JOIN posts p ON p.id = k.post_id WHERE k.link_key = ? AND p.feed_id <> ? ORDER BY k.post_id LIMIT 1`)
      .get(keys.linkKey, feedId) as Omit<StoryMatch, "by"> | undefined;
    if (hit) return { ...hit, by: "link" };
  }
  if (keys.print === null) return undefined;
  // One statement for the bands: a seek per day and band (both IN lists drive story_bands_by_day,
  // sqlite-story-bands.ts), within the days around the post's date only. A post found under two
  // bands is checked twice, which is cheaper than a DISTINCT.
  const from = date - textWindowMs;
  const to = date + textWindowMs;
  // Only the days that may hold one of the bands (sqlite-story-band-days.ts): the others add no row.
  const days = daysWithBands(stmts, bandDays(from, to), keys.print.bands);
  if (days.length === 0) return undefined;
  const rows = stmts
    .get(`SELECT b.post_id AS postId, k.print FROM story_bands b JOIN story_keys k ON k.post_id = b.post_id
      WHERE ${bandDay("b.post_date")} IN (SELECT value FROM json_each(?)) AND b.band IN (SELECT value FROM json_each(?))
        AND b.post_date BETWEEN ? AND ? LIMIT ${bandCandidates}`)
    .all(JSON.stringify(days), JSON.stringify(keys.print.bands), from, to) as Array<{
    postId: number;
    print: string;
  }>;
  // The earliest story first (no sort in SQL: a temporary B-tree per new post cost more).
  rows.sort((x, y) => x.postId - y.postId);
  const near = rows.find((r) => sameText(r.print, keys.print!.hex));
  if (near === undefined) return undefined;
  const story = stmts
    .get("SELECT id AS postId, feed_id AS feedId, post_date AS postDate FROM posts WHERE id = ?")
    .get(near.postId) as Omit<StoryMatch, "by">;
  return { ...story, by: "text" };
}

/** Writes a new post's story keys (after its insert). */
export function registerStory(stmts: StatementCache, postId: number, keys: StoryKeys, date: number): void {
  stmts
    .get("INSERT INTO story_keys (post_id, link_key, print) VALUES (?, ?, ?)")
    .run(postId, keys.linkKey, keys.print?.hex ?? null);
  if (keys.print === null) return;
  // One statement for the bands: a statement per band cost more than the rows.
  stmts
    .get("INSERT OR IGNORE INTO story_bands (band, post_date, post_id) SELECT value, ?, ? FROM json_each(?)")
    .run(date, postId, JSON.stringify(keys.print.bands));
  noteBands(stmts, bandDays(date, date)[0]!, keys.print.bands);
}

/** Re-writes a post's story keys after it changed in place; its copies follow its date. */
export function rekeyStory(stmts: StatementCache, postId: number, keys: StoryKeys, date: number): void {
  stmts.get("DELETE FROM story_bands WHERE post_id = ?").run(postId);
  stmts.get("DELETE FROM story_keys WHERE post_id = ?").run(postId);
  registerStory(stmts, postId, keys, date);
  stmts
    .get("UPDATE story_copies SET story_date = ? WHERE post_id = ? AND story_date <> ?")
    .run(date, postId, date);
}

/** A copy as stored (the columns an update compares). */
export interface StoredCopy {
  id: number;
  post_id: number;
  link: string;
  title: string;
  excerpt: string;
  content: string;
  published_at: number | null;
  updated_at: number | null;
  language_id: number;
}

/** The copy a feed already carries under this guid, if any. */
export function storedCopy(stmts: StatementCache, feedId: number, guid: string): StoredCopy | undefined {
  return stmts
    .get(`SELECT id, post_id, link, title, excerpt, content, published_at, updated_at, language_id
      FROM story_copies WHERE feed_id = ? AND guid = ?`)
    .get(feedId, guid) as StoredCopy | undefined;
}

/** Keeps a new copy of `story` for the feed. */
export function insertCopy(
  stmts: StatementCache,
  feedId: number,
  post: IncomingPost,
  story: StoryMatch,
  at: number,
): void {
  stmts
    .get(`INSERT INTO story_copies (feed_id, post_id, guid, link, title, excerpt, content, published_at,
        updated_at, seen_at, language_id, story_date, merged_by, merged_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
    .run(
      feedId,
      story.postId,
      post.guid,
      post.link,
      post.title,
      post.excerpt,
      post.content,
      post.publishedAt,
      post.updatedAt,
      post.seenAt,
      post.languageId,
      story.postDate,
      story.by,
      at,
    );
}

/** Saves a copy's changed fields (the story it belongs to is left as it is). */
export function updateCopy(stmts: StatementCache, copyId: number, post: IncomingPost): void {
  stmts
    .get(`UPDATE story_copies SET link = ?, title = ?, excerpt = ?, content = ?, published_at = ?, updated_at = ?,
        language_id = ? WHERE id = ?`)
    .run(
      post.link,
      post.title,
      post.excerpt,
      post.content,
      post.publishedAt,
      post.updatedAt,
      post.languageId,
      copyId,
    );
}
