import { randomBytes } from "node:crypto";

/**
 * What warming a store's caches at start did (`serve` warms before it listens, unless
 * `--no-warm`): the first calls after a start then read memory, not the disk. A dialect reports
 * what it read, or why it read nothing.
 */
export interface WarmReport {
  /** Bytes read into memory (the OS page cache, or the database server's buffers). */
  readonly bytes: number;
  /** Bytes of the same relations that were only prefetched into the OS page cache (PostgreSQL). */
  readonly prefetchedBytes?: number;
  /** Why nothing (or only part) was warmed, in words for the operator; absent when all was read. */
  readonly skipped?: string;
  /** Connections opened and warmed one by one (PostgreSQL's read pool), and how long that took. */
  readonly connections?: { readonly count: number; readonly milliseconds: number };
}

/** Called as warming goes: bytes done so far out of the total it plans to read. */
export type WarmProgress = (done: number, total: number) => void;

/** "2,275 MB" (or "96 KB" below a megabyte): a byte count as an operator reads it in a log line. */
export function megabytes(bytes: number): string {
  if (bytes < 2 ** 20) return `${Math.ceil(bytes / 1024).toLocaleString("en-US")} KB`;
  return `${Math.round(bytes / 2 ** 20).toLocaleString("en-US")} MB`;
}

/**
 * A word that no post holds (24 random letters), for warm-ups that run a search to compile its
 * code and statements without reading any particular word's data (spec §4 Latency: warming in
 * general only).
 *
 * @example
 * absentWord(); // "qzvkpwmbnrtxlhgjydcfsaoe"
 */
export function absentWord(): string {
  const letters = "abcdefghijklmnopqrstuvwxyz";
  return Array.from(randomBytes(24), (byte) => letters[byte % letters.length]).join("");
}
