/** How admin commands print: an aligned table for people, or JSON with `--json` for scripts. */

import type { Output } from "../console-output.js";

export { type Output, processOutput } from "../console-output.js";

export type Cell = string | number | boolean | null | undefined;

/** Epoch milliseconds as ISO 8601 UTC; null stays null. */
export function isoOrNull(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString();
}

/** Prints records as a table whose columns are the given keys, in order. */
export function formatTable(
  records: ReadonlyArray<Record<string, Cell>>,
  columns: readonly string[],
): string {
  const show = (c: Cell) => (c === null || c === undefined ? "" : String(c).replace(/\s+/g, " "));
  const widths = columns.map((col) => Math.max(col.length, ...records.map((r) => show(r[col]).length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]))
      .join("  ")
      .trimEnd();
  const lines = [line([...columns]), ...records.map((r) => line(columns.map((col) => show(r[col]))))];
  return `${lines.join("\n")}\n`;
}

export function printRecords(
  output: Output,
  records: ReadonlyArray<object>,
  columns: readonly string[],
  json: boolean,
): void {
  if (json) output.out(`${JSON.stringify(records, null, 2)}\n`);
  else if (records.length === 0) output.out("(none)\n");
  else output.out(formatTable(records as ReadonlyArray<Record<string, Cell>>, columns));
}
