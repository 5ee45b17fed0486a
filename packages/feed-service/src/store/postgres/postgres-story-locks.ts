/**
 * Copies of one story that feeds store at the same time merge as if their refreshes ran one after
 * another (SQLite's single writer orders them): a refresh locks the story keys it is about to look
 * up and write (link keys, text bands) before the look-up, so that of two refreshes sharing a key
 * the second waits for the first to commit and then, READ COMMITTED taking a new snapshot per
 * statement, finds its posts. Refreshes with no key in common never wait for each other.
 *
 * The keys are hashed to the rows of `story_locks` (migration 28) and locked with SELECT ... FOR
 * UPDATE, not advisory locks: a refresh's new posts carry nine keys each (one link, eight bands)
 * and a first fetch or an import hundreds of posts, and row locks live in the rows themselves, "so
 * there is no limit on the number of rows locked at one time", while every advisory lock takes an
 * entry of the shared lock table (PostgreSQL docs, 13.3.2 Row-Level Locks and 13.3.5 Advisory
 * Locks). ORDER BY is applied before the rows are locked (SELECT, "The Locking Clause"), so every
 * refresh locks in bucket order and two never wait for each other in a circle.
 */
import type { StoryKeys } from "../../dedupe/story-keys.js";
import type { Sql } from "./postgres-connection.js";

/**
 * Rows of `story_locks`: two refreshes of k new keys each share a bucket by chance with a
 * probability near k²/buckets, and then one waits for the other although their posts differ.
 */
export const storyLockBuckets = 1 << 16;

/** Migration 28: one row per bucket, made once (re-running it adds nothing). */
export const storyLockSchema = `
CREATE TABLE IF NOT EXISTS story_locks (bucket INTEGER PRIMARY KEY);
INSERT INTO story_locks (bucket) SELECT generate_series(0, ${storyLockBuckets - 1}) ON CONFLICT DO NOTHING;
`;

/** A link key's bucket: the leading bits of its SHA-256 (story-keys.ts), already uniform. */
function linkBucket(linkKey: string): number {
  return Buffer.from(linkKey.slice(0, 8), "base64url").readUInt32BE(0) % storyLockBuckets;
}

/** A band's bucket: band keys are mixed 32-bit hashes (text-fingerprint.ts); their low bits. */
function bandBucket(band: number): number {
  return (band >>> 0) % storyLockBuckets;
}

/**
 * The sorted buckets of these posts' story keys.
 *
 * @example
 * storyLockBucketsOf([storyKeys(post)]); // -> up to nine bucket numbers, ascending
 */
export function storyLockBucketsOf(keys: readonly StoryKeys[]): number[] {
  const buckets = new Set<number>();
  for (const k of keys) {
    if (k.linkKey !== null) buckets.add(linkBucket(k.linkKey));
    for (const band of k.print?.bands ?? []) buckets.add(bandBucket(band));
  }
  return [...buckets].sort((a, b) => a - b);
}

/** Locks the story keys of the posts a refresh is about to look up and write, until it commits. */
export async function lockStoryKeys(sql: Sql, keys: readonly StoryKeys[]): Promise<void> {
  const buckets = storyLockBucketsOf(keys);
  if (buckets.length === 0) return;
  await sql.query(
    "SELECT bucket FROM story_locks WHERE bucket = ANY($1::integer[]) ORDER BY bucket FOR UPDATE",
    [buckets],
  );
}
