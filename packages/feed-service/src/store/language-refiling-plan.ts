/**
 * What the language re-filing migrations (SQLite 13, PostgreSQL 12) do to the rows a database
 * has, decided once for both dialects. Before them a row was made by the first tag seen of its
 * primary subtag and kept that tag, so French posts sat under "Canadian French" when a `fr-CA`
 * feed came first; after them each row is its filing tag (language-tags.ts) with that tag's
 * English name, and rows that file under one tag become one.
 */
import { canonicalLanguageTag, filingTag, languageName } from "./language-tags.js";

/** A language row as the database holds it before the migration. */
export interface LanguageRowBefore {
  readonly id: number;
  readonly code: string;
  readonly key: string;
  readonly name: string;
}

/** A row that remains, as it will be, and the ids of the rows whose posts and feeds it takes. */
export interface RefiledLanguage {
  readonly id: number;
  readonly code: string;
  readonly key: string;
  readonly name: string;
  readonly absorbs: readonly number[];
}

/** The row's filing tag, or its own code when that is no tag this build reads (left as it is). */
function tagOf(row: LanguageRowBefore): string | undefined {
  try {
    return filingTag(canonicalLanguageTag(row.code));
  } catch {
    return undefined;
  }
}

/**
 * The rows that remain: the lowest id of each filing tag (so English, id 1, stays id 1), renamed
 * to the tag's English name unless an administrator named it otherwise (a name that is not the
 * one this build would give the row's old code is kept).
 *
 * @example
 * planLanguageRefiling([{ id: 3, code: "fr-CA", key: "fr", name: "Canadian French" }]);
 * // [{ id: 3, code: "fr", key: "fr", name: "French", absorbs: [] }]
 */
export function planLanguageRefiling(rows: readonly LanguageRowBefore[]): RefiledLanguage[] {
  const groups = new Map<string, { tag: string | undefined; rows: LanguageRowBefore[] }>();
  for (const row of [...rows].sort((a, b) => a.id - b.id)) {
    const tag = tagOf(row);
    const key = tag === undefined ? row.key : tag.toLowerCase();
    const group = groups.get(key) ?? { tag, rows: [] };
    group.rows.push(row);
    groups.set(key, group);
  }
  return [...groups].map(([key, { tag, rows: members }]) => {
    const [survivor, ...others] = members as [LanguageRowBefore, ...LanguageRowBefore[]];
    const named = tag !== undefined && survivor.name !== languageName(survivor.code);
    return {
      id: survivor.id,
      code: tag ?? survivor.code,
      key,
      name: tag === undefined || named ? survivor.name : languageName(tag),
      absorbs: others.map((r) => r.id),
    };
  });
}
