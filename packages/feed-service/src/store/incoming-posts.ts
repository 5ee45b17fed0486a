/**
 * The dialect-free rules for one incoming post during a refresh: what makes it acceptable, which
 * date it sorts by, and when a stored copy already matches it (so nothing is rewritten).
 */
import { badArgument } from "../errors.js";
import type { IncomingPost } from "./store.js";

/** The stored columns of a post that a refresh compares against. */
export interface StoredPostFields {
  link: string;
  title: string;
  excerpt: string;
  content: string;
  published_at: number | null;
  updated_at: number | null;
  language_id: number;
}

/**
 * Throws `BAD_ARGUMENT` when a post has no guid or no seen time.
 *
 * @example
 * checkPost(post); // before any write
 */
export function checkPost(post: IncomingPost): void {
  if (typeof post.guid !== "string" || post.guid === "")
    throw badArgument("A post must have a non-empty guid.");
  if (!Number.isFinite(post.seenAt))
    throw badArgument(`The post ${JSON.stringify(post.guid)} has no seen time.`);
}

/**
 * The date a post sorts by: published, else updated, else when it was first seen.
 *
 * @example
 * postDate(post, old.seen_at);
 */
export function postDate(post: IncomingPost, seenAt: number): number {
  return post.publishedAt ?? post.updatedAt ?? seenAt;
}

/**
 * Whether the stored copy already holds everything the incoming post says.
 *
 * @example
 * if (postUnchanged(old, post)) return "unchanged";
 */
export function postUnchanged(old: StoredPostFields, post: IncomingPost): boolean {
  return (
    old.link === post.link &&
    old.title === post.title &&
    old.excerpt === post.excerpt &&
    old.content === post.content &&
    old.published_at === post.publishedAt &&
    old.updated_at === post.updatedAt &&
    old.language_id === post.languageId
  );
}

/**
 * The stored columns a post's row holds once written, so that a refresh compares a later post
 * against what it wrote (postUnchanged) without reading the row back.
 *
 * @example
 * const rewrote = !postUnchanged(storedFields(earlier), post);
 */
export function storedFields(post: IncomingPost): StoredPostFields {
  return {
    link: post.link,
    title: post.title,
    excerpt: post.excerpt,
    content: post.content,
    published_at: post.publishedAt,
    updated_at: post.updatedAt,
    language_id: post.languageId,
  };
}
