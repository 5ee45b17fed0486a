/**
 * An operation's records as the JSON API's answer (spec §5.1): `{"items": [...]}` with the column
 * names as keys in column order, instants as ISO 8601 UTC strings, null as null; post lists also
 * carry `"next"`. The text escapes `<`, `>` and `&`.
 */
import type { CellValue } from "@feed-toolkit/soap";
import { escapeJsonMarkup } from "../http/json-text.js";
import type { FeedColumnSpec, OperationRecord } from "../operations/column-sets.js";
import type { StoryFeedRef } from "../store/store.js";

function jsonCell(column: FeedColumnSpec, value: CellValue | undefined): CellValue {
  if (value === undefined || value === null) return null;
  if (column.type === "dateTime") return new Date(value).toISOString();
  return value;
}

/**
 * @example
 * encodeItems([{ name: "languageId", type: "int" }], [{ languageId: 1 }]); // '{"items":[{"languageId":1}]}'
 */
export function encodeItems(
  columns: readonly FeedColumnSpec[],
  records: readonly OperationRecord[],
  next?: string | null,
  alsoIn?: ReadonlyMap<number, readonly StoryFeedRef[]>,
): string {
  const items = records.map((record) => {
    const item: Record<string, CellValue | readonly StoryFeedRef[]> = {};
    for (const column of columns) item[column.name] = jsonCell(column, record[column.name]);
    // Post lists: the other feeds that carry the story, added after the spec's columns.
    if (alsoIn !== undefined) item.alsoIn = alsoIn.get(Number(record.postId)) ?? [];
    return item;
  });
  return escapeJsonMarkup(JSON.stringify(next === undefined ? { items } : { items, next }));
}
