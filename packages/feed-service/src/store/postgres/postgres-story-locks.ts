/**
 * Copies of one story that feeds store at the same time merge as if their refreshes ran one after
 * another (SQLite's single writer orders them): a refresh claims the story keys it is about to look
 * up and write (link keys, text bands) before the look-up, so that of two refreshes sharing a key
 * the second waits for the first to commit and then, READ COMMITTED taking a new snapshot per
 * statement, finds its posts. Refreshes with no key in common never wait for each other.
 *
 * A claim is a row of `story_key_claims` (migration 28) keyed by the story key itself, inserted
 * with ON CONFLICT DO NOTHING: an insert that meets a row of a concurrent uncommitted transaction
 * waits for it to end and then checks again ("Index Uniqueness Checks", PostgreSQL docs 62.5), so
 * only refreshes with a key really in common wait (hashing the keys into a fixed set of lock rows
 * made two first fetches of ~450 keys share a row most of the time, the birthday bound). The
 * refresh deletes its claims before it commits: the waiter's insert then finds no live row and
 * proceeds, and the table stays near-empty. Row claims, not advisory locks: a first fetch or an
 * import claims hundreds or thousands of keys, and every advisory lock takes an entry of the
 * shared lock table (13.3.5). Claims are inserted in key order, so two refreshes never wait for
 * each other in a circle over their claims.
 */
import type { StoryKeys } from "../../dedupe/story-keys.js";
import type { Sql } from "./postgres-connection.js";

/**
 * Migration 28. UNLOGGED: a claim lives only until its transaction ends, so it needs no WAL, and
 * a crash (which truncates unlogged tables) ends every claiming transaction anyway.
 */
export const storyClaimSchema = `
CREATE UNLOGGED TABLE IF NOT EXISTS story_key_claims (key BIGINT PRIMARY KEY);
`;

/** A link key's claim: the leading 63 bits of its SHA-256 (story-keys.ts), 0 .. 2^63 - 1. */
function linkClaim(linkKey: string): bigint {
  return Buffer.from(linkKey.slice(0, 11), "base64url").readBigUInt64BE(0) >> 1n;
}

/**
 * A band's claim, below zero so that it never meets a link's. The band key already mixes in its
 * band's number (text-fingerprint.ts), and story_bands is looked up by the key alone, so the key
 * alone is what a refresh must claim.
 */
function bandClaim(band: number): bigint {
  return BigInt(band >>> 0) - (1n << 32n);
}

/**
 * The sorted claims of these posts' story keys, as decimal strings for a bigint[] parameter.
 *
 * @example
 * storyClaimsOf([storyKeys(post)]); // -> up to nine keys, ascending
 */
export function storyClaimsOf(keys: readonly StoryKeys[]): string[] {
  const claims = new Set<bigint>();
  for (const k of keys) {
    if (k.linkKey !== null) claims.add(linkClaim(k.linkKey));
    for (const band of k.print?.bands ?? []) claims.add(bandClaim(band));
  }
  return [...claims].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map(String);
}

/**
 * Claims the story keys of the posts a refresh is about to look up and write; returns them for
 * `releaseStoryKeys`. ORDER BY feeds the insert in key order (the deadlock argument above).
 */
export async function claimStoryKeys(sql: Sql, keys: readonly StoryKeys[]): Promise<string[]> {
  const claims = storyClaimsOf(keys);
  if (claims.length === 0) return claims;
  await sql.query(
    "INSERT INTO story_key_claims (key) SELECT k FROM unnest($1::bigint[]) AS k ORDER BY k ON CONFLICT DO NOTHING",
    [claims],
  );
  return claims;
}

/**
 * Deletes a refresh's claims, in its own transaction just before it commits: others still wait on
 * the rows until the commit (a row inserted by an uncommitted transaction blocks an insert whether
 * or not it deleted it again, 62.5), and after it nothing is left behind.
 */
export async function releaseStoryKeys(sql: Sql, claims: readonly string[]): Promise<void> {
  if (claims.length === 0) return;
  await sql.query("DELETE FROM story_key_claims WHERE key = ANY($1::bigint[])", [claims]);
}
