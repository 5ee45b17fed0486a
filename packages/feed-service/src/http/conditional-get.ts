/**
 * Conditional GET (RFC 9110 §13): entity tags made from the answer bytes, `If-None-Match` (weak
 * comparison, as §13.1.2 asks for GET), and `If-Modified-Since`, which counts only when the
 * request has no `If-None-Match`.
 */
import { createHash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";

/** A strong entity tag for these bytes. */
export function entityTag(body: Buffer | string): string {
  return `"${createHash("sha1").update(body).digest("base64url").slice(0, 22)}"`;
}

function opaque(tag: string): string {
  return tag.startsWith("W/") ? tag.slice(2) : tag;
}

/**
 * Whether the client's copy is current: its `If-None-Match` lists `etag` (or `*`), or, without an
 * `If-None-Match`, its `If-Modified-Since` is not before `lastModified` (epoch ms, whole seconds).
 */
export function notModified(headers: IncomingHttpHeaders, etag: string, lastModified?: number): boolean {
  const ifNoneMatch = headers["if-none-match"];
  if (ifNoneMatch !== undefined) {
    const wanted = opaque(etag);
    return ifNoneMatch.split(",").some((t) => {
      const tag = t.trim();
      return tag === "*" || opaque(tag) === wanted;
    });
  }
  const since = headers["if-modified-since"];
  if (since === undefined || lastModified === undefined) return false;
  const sinceMs = Date.parse(since);
  return Number.isFinite(sinceMs) && Math.floor(lastModified / 1000) * 1000 <= sinceMs;
}
