/**
 * The reads of one story once (src/dedupe/) on SQLite: a feed's list with the stories it carries
 * as copies merged in, the "also in" feeds of a page's posts, and the merges for review.
 */
import { type DatedId, mergeFeedPage, ownWindow } from "../../dedupe/feed-page-merge.js";
import type { PostRecord, StoryFeedRef, StoryMergeRecord } from "../store.js";
import type { StatementCache } from "./sqlite-connection.js";
import { postsByFeed, postsInOrder } from "./sqlite-post-queries.js";

/**
 * A feed's posts, newest first, with the stories it carries as a copy of another feed's post. A
 * feed without copies costs one index probe more than its own list.
 */
export function postsByFeedWithCopies(
  stmts: StatementCache,
  page: { limit: number; offset: number; feedId: number },
): PostRecord[] {
  if (page.limit === 0) return [];
  const copies = stmts
    .get(`SELECT c.post_id AS postId, c.story_date AS postDate FROM story_copies c
      JOIN posts p ON p.id = c.post_id WHERE c.feed_id = ? AND p.feed_id <> c.feed_id
      ORDER BY c.story_date DESC, c.post_id DESC LIMIT ?`)
    .all(page.feedId, page.offset + page.limit) as DatedId[];
  if (copies.length === 0) return postsByFeed(stmts, page);
  const window = ownWindow(page, copies.length);
  const own = postsByFeed(stmts, { feedId: page.feedId, ...window });
  const ids = mergeFeedPage(page, own, window.offset, copies);
  const ownById = new Map(own.map((r) => [r.postId, r]));
  const copied = postsInOrder(
    stmts,
    ids.filter((id) => !ownById.has(id)),
  );
  const copiedById = new Map(copied.map((r) => [r.postId, r]));
  return ids.flatMap((id) => ownById.get(id) ?? copiedById.get(id) ?? []);
}

/** The feeds other than the story's own that carry each post as a copy. */
export function alsoIn(stmts: StatementCache, postIds: readonly number[]): Map<number, StoryFeedRef[]> {
  const found = new Map<number, StoryFeedRef[]>();
  if (postIds.length === 0) return found;
  const rows = stmts
    .get(`SELECT c.post_id AS postId, f.id AS feedId, f.name AS feedName FROM story_copies c
      JOIN posts p ON p.id = c.post_id JOIN feeds f ON f.id = c.feed_id
      WHERE c.post_id IN (SELECT value FROM json_each(?)) AND c.feed_id <> p.feed_id
      ORDER BY c.post_id, c.id`)
    .all(JSON.stringify(postIds)) as Array<{ postId: number } & StoryFeedRef>;
  for (const { postId, feedId, feedName } of rows) {
    const list = found.get(postId) ?? [];
    if (!list.some((r) => r.feedId === feedId)) list.push({ feedId, feedName });
    found.set(postId, list);
  }
  return found;
}

/** The merges, newest first. */
export function storyMerges(stmts: StatementCache, limit: number): StoryMergeRecord[] {
  return stmts
    .get(`SELECT c.post_id AS storyId, p.feed_id AS storyFeedId, p.title AS storyTitle, c.feed_id AS copyFeedId,
        c.guid AS copyGuid, c.link AS copyLink, c.title AS copyTitle, c.merged_by AS mergedBy, c.merged_at AS mergedAt
      FROM story_copies c JOIN posts p ON p.id = c.post_id ORDER BY c.merged_at DESC, c.id DESC LIMIT ?`)
    .all(limit) as StoryMergeRecord[];
}
