/**
 * `post_id_blocks` (migration 8) as the date-ordered search reads it: per block of 1024 post ids,
 * the bounds of the dates stored there, and the highest date in every block up to each one.
 */
import type { StatementCache } from "./sqlite-connection.js";

export interface Blocks {
  /** Block numbers (id >> 10), ascending. */
  block: number[];
  minDate: number[];
  maxDate: number[];
  /** The highest date in blocks 0..i. */
  maxUpTo: number[];
}

export function loadBlocks(stmts: StatementCache): Blocks {
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
  return blocks;
}

export const firstId = (block: number) => block * 1024;
export const lastId = (block: number) => block * 1024 + 1023;
