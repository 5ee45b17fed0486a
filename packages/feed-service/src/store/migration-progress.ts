/**
 * Progress of a long migration (a re-index reads and rewrites every post; bench/NOTES.md): the
 * migration reports how far it got, and whoever opened the store decides where that goes.
 */
export type MigrationProgress = (step: string, done: number, total: number) => void;

/** Below this many items a migration is quick enough to run silently. */
const QUIET_BELOW = 20_000;
/** At most one line per this many milliseconds, plus the last one. */
const EVERY_MS = 5_000;

/**
 * The default: a line on stderr now and then, for work large enough to be waited on, so an operator
 * who starts `serve` on an old database sees why it is not answering yet.
 *
 * @example
 * const progress = stderrProgress();
 * progress("re-indexing search text", 250_000, 1_000_000);
 * // stderr: "feed-service: re-indexing search text: 250000 of 1000000 (25%)"
 */
export function stderrProgress(write = (line: string) => process.stderr.write(line)): MigrationProgress {
  let last = 0;
  return (step, done, total) => {
    if (total < QUIET_BELOW) return;
    const now = Date.now();
    if (done < total && now - last < EVERY_MS) return;
    last = now;
    const percent = Math.floor((done * 100) / total);
    write(`feed-service: ${step}: ${done} of ${total} (${percent}%)\n`);
  };
}
