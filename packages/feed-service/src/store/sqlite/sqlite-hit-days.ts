/**
 * Skipping whole days of full-text hits for a deep page sorted by date. The hits dated on or after
 * a day's start T are those of the id blocks dated wholly from T on (counted by FTS5 alone from its
 * doclists, no post read) plus those of the blocks whose dates straddle T (counted with each hit's
 * date: under ingest, about one block per day). Going down day by day, the lowest T
 * whose count does not pass the offset is where the date-ordered walk starts, with the offset
 * less that count. Straddling blocks are dated only when the cheap bounds cannot decide.
 */
import { FTS_ROWID } from "./sqlite-columns.js";
import type { StatementCache } from "./sqlite-connection.js";
import { type Blocks, firstId, lastId } from "./sqlite-id-blocks.js";

const DAY = 86_400_000;

/** Offsets from which days are skipped (shallower pages walk the few days above them). */
export const SKIP_DAYS_FROM = 2_000;

/** Consecutive runs of block indexes, as [first, last] id pairs. */
function idRuns(blocks: Blocks, indexes: number[]): Array<[number, number]> {
  const sorted = [...indexes].sort((a, b) => a - b);
  const runs: Array<[number, number]> = [];
  for (let i = 0; i < sorted.length; i++) {
    const start = sorted[i]!;
    while (i + 1 < sorted.length && sorted[i + 1] === sorted[i]! + 1) i++;
    runs.push([firstId(blocks.block[start]!), lastId(blocks.block[sorted[i]!]!)]);
  }
  return runs;
}

/**
 * The lowest day start `before` such that at most `offset` hits are dated on or after it, and how
 * many are (`hits`); `before` null when even the newest day start has more.
 */
export function skipWholeDays(
  stmts: StatementCache,
  blocks: Blocks,
  match: string,
  offset: number,
): { before: number | null; hits: number } {
  const count = stmts
    .get(
      `SELECT count(*) FROM posts_fts WHERE posts_fts MATCH ? AND rowid BETWEEN ${FTS_ROWID} AND ${FTS_ROWID}`,
    )
    .pluck();
  const dated = stmts
    .get(`SELECT count(*) FROM posts_fts t CROSS JOIN posts p INDEXED BY posts_sort_keys ON p.id = t.rowid
      WHERE posts_fts MATCH ? AND t.rowid BETWEEN ${FTS_ROWID} AND ${FTS_ROWID} AND p.post_date >= ?`)
    .pluck();
  const sum = (runs: Array<[number, number]>, at?: number) =>
    runs.reduce(
      (n, [from, to]) =>
        n + ((at === undefined ? count.get(match, from, to) : dated.get(match, from, to, at)) as number),
      0,
    );
  const days = stmts.get("SELECT DISTINCT day FROM post_days ORDER BY day DESC").pluck().all() as number[];
  const n = blocks.block.length;
  const byMin = Array.from({ length: n }, (_, i) => i).sort(
    (a, b) => blocks.minDate[b]! - blocks.minDate[a]!,
  );
  const whole = new Uint8Array(n);
  let next = 0;
  let above = 0;
  let found: { before: number; above: number; straddling: number[] } | null = null;
  for (const day of days) {
    const start = day * DAY;
    const added: number[] = [];
    while (next < n && blocks.minDate[byMin[next]!]! >= start) {
      whole[byMin[next]!] = 1;
      added.push(byMin[next++]!);
    }
    above += sum(idRuns(blocks, added));
    if (above > offset) break;
    const straddling: number[] = [];
    for (let i = 0; i < n; i++) if (!whole[i] && blocks.maxDate[i]! >= start) straddling.push(i);
    const runs = idRuns(blocks, straddling);
    // Every hit of a straddling block at most: when even that does not pass the offset, T is a
    // candidate without dating any hit.
    if (above + sum(runs) > offset && above + sum(runs, start) > offset) break;
    found = { before: start, above, straddling };
  }
  if (found === null) return { before: null, hits: 0 };
  return { before: found.before, hits: found.above + sum(idRuns(blocks, found.straddling), found.before) };
}
