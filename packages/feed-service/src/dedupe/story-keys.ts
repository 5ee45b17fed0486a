/**
 * The keys by which the store recognises one story carried by several feeds: the hash of its
 * canonical link (canonical-link.ts) and its text print with band keys (text-fingerprint.ts).
 * Both are looked up through an index at ingest, so a check costs a few index probes per post.
 */
import { createHash } from "node:crypto";
import type { IncomingPost } from "../store/store.js";
import { canonicalLink } from "./canonical-link.js";
import { type TextFingerprint, textFingerprint } from "./text-fingerprint.js";

/** Copies by text are only looked for among stories dated this close to the new post. */
export const textWindowMs = 3 * 24 * 3_600_000;

export interface StoryKeys {
  /** 128 bits of SHA-256 of the canonical link, base64url; null when the post names no page of its own. */
  readonly linkKey: string | null;
  readonly print: TextFingerprint | null;
}

/**
 * The key of a canonical link, or null for a site's root page (every linkless entry of some feeds
 * points there; it names no story).
 *
 * @example
 * linkKey("https://Example.com/a?utm_source=x") === linkKey("http://example.com/a/"); // true
 */
export function linkKey(link: string | null | undefined): string | null {
  if (!link) return null;
  const canonical = canonicalLink(link);
  if (canonical === null || !/\/[^?]|\?/.test(canonical)) return null;
  return createHash("sha256").update(canonical).digest("base64url").slice(0, 22);
}

/**
 * A post's story keys. The link counts only when ingest says it is the entry's own
 * (`storyLink`); posts written without it (the demo corpus, other writers) merge by text only.
 * Keys that ingest already computed (on its parse worker, `storyKeys` of the post) are taken as
 * they are: the same function of the same three fields, so the writer's thread skips the work.
 *
 * @example
 * storyKeys(post).linkKey;
 */
export function storyKeys(
  post: Pick<IncomingPost, "storyLink" | "title" | "excerpt" | "storyKeys">,
): StoryKeys {
  return (
    post.storyKeys ?? { linkKey: linkKey(post.storyLink), print: textFingerprint(post.title, post.excerpt) }
  );
}

/**
 * The story keys of a post already stored (the merging migrations): its link counts only when it
 * is not its feed's site link, which is what linkless entries were given.
 *
 * @example
 * storedStoryKeys({ link, title, excerpt, siteUrl: feed.siteUrl }).linkKey;
 */
export function storedStoryKeys(post: {
  link: string;
  title: string;
  excerpt: string;
  siteUrl: string | null;
}): StoryKeys {
  const own = post.siteUrl === null || linkKey(post.siteUrl) !== linkKey(post.link);
  return { linkKey: own ? linkKey(post.link) : null, print: textFingerprint(post.title, post.excerpt) };
}
