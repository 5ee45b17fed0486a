/**
 * The reads of one story once (src/dedupe/) on PostgreSQL, as on SQLite (sqlite-story-reads.ts):
 * a feed's list with the stories it carries as copies merged in, "also in", the merges.
 */
import { type DatedId, mergeFeedPage, ownWindow } from "../../dedupe/feed-page-merge.js";
import type { PostRecord, StoryFeedRef, StoryMergeRecord } from "../store.js";
import { NEWEST_FIRST, POST_COLUMNS, POST_JOINS } from "./postgres-columns.js";
import { rows, type Sql } from "./postgres-connection.js";
import { postsByFeed } from "./postgres-post-queries.js";

/** A feed's posts, newest first, with the stories it carries as a copy of another feed's post. */
export async function postsByFeedWithCopies(
  sql: Sql,
  page: { limit: number; offset: number; feedId: number },
): Promise<PostRecord[]> {
  if (page.limit === 0) return [];
  const copies = (
    await rows<{ postId: number; postDate: number }>(
      sql,
      `SELECT c.post_id AS "postId", c.story_date AS "postDate" FROM story_copies c
        JOIN posts p ON p.id = c.post_id WHERE c.feed_id = $1 AND p.feed_id <> c.feed_id
        ORDER BY c.story_date DESC, c.post_id DESC LIMIT $2`,
      [page.feedId, page.offset + page.limit],
    )
  ).map((c): DatedId => ({ postId: c.postId, postDate: Number(c.postDate) }));
  if (copies.length === 0) return postsByFeed(sql, page);
  const window = ownWindow(page, copies.length);
  const own = await postsByFeed(sql, { feedId: page.feedId, ...window });
  const ids = mergeFeedPage(page, own, window.offset, copies);
  const ownById = new Map(own.map((r) => [r.postId, r]));
  const wanted = ids.filter((id) => !ownById.has(id));
  const copied =
    wanted.length === 0
      ? []
      : await rows<PostRecord>(
          sql,
          `SELECT ${POST_COLUMNS} FROM posts p ${POST_JOINS} WHERE p.id = ANY($1::integer[]) ORDER BY ${NEWEST_FIRST}`,
          [wanted],
        );
  const copiedById = new Map(copied.map((r) => [r.postId, r]));
  return ids.flatMap((id) => ownById.get(id) ?? copiedById.get(id) ?? []);
}

/** The feeds other than the story's own that carry each post as a copy. */
export async function alsoIn(sql: Sql, postIds: readonly number[]): Promise<Map<number, StoryFeedRef[]>> {
  const found = new Map<number, StoryFeedRef[]>();
  if (postIds.length === 0) return found;
  const hits = await rows<{ postId: number } & StoryFeedRef>(
    sql,
    `SELECT c.post_id AS "postId", f.id AS "feedId", f.name AS "feedName" FROM story_copies c
      JOIN posts p ON p.id = c.post_id JOIN feeds f ON f.id = c.feed_id
      WHERE c.post_id = ANY($1::integer[]) AND c.feed_id <> p.feed_id ORDER BY c.post_id, c.id`,
    [[...postIds]],
  );
  for (const { postId, feedId, feedName } of hits) {
    const list = found.get(postId) ?? [];
    if (!list.some((r) => r.feedId === feedId)) list.push({ feedId, feedName });
    found.set(postId, list);
  }
  return found;
}

/** The merges, newest first. */
export async function storyMerges(sql: Sql, limit: number): Promise<StoryMergeRecord[]> {
  const found = await rows<StoryMergeRecord>(
    sql,
    `SELECT c.post_id AS "storyId", p.feed_id AS "storyFeedId", p.title AS "storyTitle", c.feed_id AS "copyFeedId",
        c.guid AS "copyGuid", c.link AS "copyLink", c.title AS "copyTitle", c.merged_by AS "mergedBy",
        c.merged_at AS "mergedAt"
      FROM story_copies c JOIN posts p ON p.id = c.post_id ORDER BY c.merged_at DESC, c.id DESC LIMIT $1`,
    [limit],
  );
  return found.map((m) => ({ ...m, mergedAt: Number(m.mergedAt) }));
}
