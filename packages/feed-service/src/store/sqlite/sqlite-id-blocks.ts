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
 * (`writeCounts`), so the copy is reread exactly when the table may have changed. A search would
 * otherwise read the ~1,000 rows of a million posts each time (0.3-0.8 ms).
 */
const loaded = new WeakMap<StatementCache, { version: string; blocks: Blocks }>();

export function loadBlocks(stmts: StatementCache): Blocks {
  const counts = writeCounts(stmts);
  const version = `${counts.changes}.${counts.others}`;
  const known = loaded.get(stmts);
  if (known !== undefined && known.version === version) return known.blocks;
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
  loaded.set(stmts, { version, blocks });
  return blocks;
}

export const firstId = (block: number) => block * 1024;
export const lastId = (block: number) => block * 1024 + 1023;
