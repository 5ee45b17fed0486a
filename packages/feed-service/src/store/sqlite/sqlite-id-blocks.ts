/**
 * `post_id_blocks` (migration 8) as the date-ordered search reads it: per block of 1024 post ids,
 * the bounds of the dates stored there, and the highest date in every block up to each one.
 */
import { type StatementCache, writeCounts } from "./sqlite-connection.js";

export interface Blocks {
  /** Block numbers (id >> 10), ascending. */
  block: number[];
  minDate: number[];
  maxDate: number[];
  /** The highest date in blocks 0..i. */
  maxUpTo: number[];
}

/**
 * The blocks as this connection last read them, with the database's write counts at that time
 * (`writeCounts`) and the table's fingerprint, so the copy is reread exactly when the table
 * changed. A search would otherwise read every block row (one per 1024 posts) each time.
 */
const loaded = new WeakMap<StatementCache, { version: string; fingerprint: string; blocks: Blocks }>();

export function loadBlocks(stmts: StatementCache): Blocks {
  const counts = writeCounts(stmts);
  const version = `${counts.changes}.${counts.others}`;
  const known = loaded.get(stmts);
  if (known !== undefined && known.version === version) return known.blocks;
  // Some table was written: not always this one (every search records one in the search history,
  // a click counts). Blocks are never removed and their bounds only widen, so the number of blocks
  // and the sums of their lowest and highest dates move whenever the table changes: summing them
  // is cheaper than reading the rows again (figures in bench/NOTES.md).
  const fingerprint = (
    stmts.get("SELECT count(*), sum(min_date), sum(max_date) FROM post_id_blocks").raw().get() as number[]
  ).join(" ");
  if (known !== undefined && known.fingerprint === fingerprint) {
    known.version = version;
    return known.blocks;
  }
  const rows = stmts
    .get("SELECT block, min_date, max_date FROM post_id_blocks ORDER BY block")
    .raw()
    .all() as Array<[number, number, number]>;
  const blocks: Blocks = { block: [], minDate: [], maxDate: [], maxUpTo: [] };
  let max = Number.NEGATIVE_INFINITY;
  for (const [block, minDate, maxDate] of rows) {
    max = Math.max(max, maxDate);
    blocks.block.push(block);
    blocks.minDate.push(minDate);
    blocks.maxDate.push(maxDate);
    blocks.maxUpTo.push(max);
  }
  loaded.set(stmts, { version, fingerprint, blocks });
  return blocks;
}

export const firstId = (block: number) => block * 1024;
export const lastId = (block: number) => block * 1024 + 1023;
