/**
 * An entry's identity within its feed, as Miniflux and feedparser decide it: the guid/id the
 * document gives, else its link, else a hash of title and content. The hash form is prefixed so
 * that it can never collide with a real guid.
 */
import { createHash } from "node:crypto";

/**
 * @example
 * entryIdentity({ guid: null, link: "https://e.com/1", title: "T", content: "" }); // "https://e.com/1"
 */
export function entryIdentity(entry: {
  guid: string | null;
  link: string | null;
  title: string | null;
  content: string | null;
}): string {
  if (entry.guid) return entry.guid.slice(0, 2048);
  if (entry.link) return entry.link.slice(0, 2048);
  return `sha256:${contentHash(entry.title, entry.content)}`;
}

/** Hash of title and content, used for identity and for spotting unstable guids. */
export function contentHash(title: string | null, content: string | null): string {
  return createHash("sha256")
    .update(title ?? "")
    .update("\u0000")
    .update(content ?? "")
    .digest("hex");
}
