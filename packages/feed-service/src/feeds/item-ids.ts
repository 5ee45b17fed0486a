/**
 * The ids of output feed items: tag URIs (RFC 4151) that stay the same however the service is
 * reached. A reader keys items on their id (RSS guid, Atom id, JSON Feed id); an id built from the
 * request's Host, as the tracking link is, changes with the name the reader used, and the reader
 * shows the post again as new.
 *
 * The tagging entity (`tag:<authority>,<date>:`) is chosen once per install, the first time a
 * feed is served, and kept in the database (copied by migrate-data): the `--public-url` host then
 * (a name the operator holds) with that day's date, or without one a random name under `.invalid`
 * (RFC 2606: nobody else can tag under it). Later changes of `--public-url` leave it as it was.
 */
import { randomBytes } from "node:crypto";
import { isIP } from "node:net";

/** The settings row that holds the tagging entity. */
export const itemTagSetting = "feed_item_tag";

/**
 * The tagging entity an install proposes the first time.
 *
 * @example
 * proposedItemTag("https://feeds.example.org", Date.UTC(2026, 10, 28)); // "tag:feeds.example.org,2026-11-28:"
 */
export function proposedItemTag(publicUrl: string | undefined, now: number): string {
  const date = new Date(now).toISOString().slice(0, 10);
  const host = publicUrl ? new URL(publicUrl).hostname : "";
  // A name with a dot that is not an address: a DNS name someone holds (not localhost, not 10.0.0.5).
  const held = host.includes(".") && isIP(host) === 0;
  const authority = held ? host : `${randomBytes(8).toString("hex")}.feed-service.invalid`;
  return `tag:${authority},${date}:`;
}

/** A post's item id under the install's tagging entity. */
export function itemId(itemTag: string, postId: number): string {
  return `${itemTag}post/${postId}`;
}

/**
 * An Atom feed's own id, as lasting as its items': its path and query under the tagging entity.
 *
 * @example
 * feedTagId("tag:feeds.example.org,2026-11-28:", "/feeds/recent.atom?languageIds=2");
 * // "tag:feeds.example.org,2026-11-28:feeds/recent.atom?languageIds=2"
 */
export function feedTagId(itemTag: string, pathAndQuery: string): string {
  return itemTag + pathAndQuery.replace(/^\/+/, "");
}
