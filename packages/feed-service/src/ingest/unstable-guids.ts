/**
 * Identity and deduplication for one document against what the store already holds for the
 * feed. Within a document, the first entry with an identity wins. Across fetches, an entry whose
 * guid the store has never seen but whose link belongs to exactly one stored post is that post
 * with a changed guid (feeds that put a timestamp or session into their guids): it keeps the
 * stored guid, so it updates the post instead of adding a duplicate. Links shared by several
 * entries (everything pointing at a home page) are never used for this.
 */
import type { Store } from "../store/store.js";
import type { NormalisedEntry } from "./normalised-entry.js";

export interface ResolvedEntry {
  entry: NormalisedEntry;
  guid: string;
}

function counts(values: ReadonlyArray<string | null>): Map<string, number> {
  const m = new Map<string, number>();
  for (const v of values) if (v !== null) m.set(v, (m.get(v) ?? 0) + 1);
  return m;
}

/**
 * @example
 * const resolved = await resolveIdentities(store, feedId, doc.entries);
 */
export async function resolveIdentities(
  store: Store,
  feedId: number,
  entries: readonly NormalisedEntry[],
): Promise<ResolvedEntry[]> {
  const seen = new Set<string>();
  const unique = entries.filter((e) => !seen.has(e.identity) && seen.add(e.identity));
  if (unique.length === 0) return [];
  const linkCounts = counts(unique.map((e) => e.link));
  const links = [...linkCounts].filter(([, n]) => n === 1).map(([l]) => l);
  const stored = await store.postKeys(feedId, { guids: unique.map((e) => e.identity), links });
  const storedGuids = new Set(stored.map((s) => s.guid));
  const storedLinkCounts = counts(stored.map((s) => s.link));
  const guidByLink = new Map(stored.map((s) => [s.link, s.guid]));
  const claimed = new Set(unique.map((e) => e.identity).filter((g) => storedGuids.has(g)));
  return unique.map((entry) => {
    if (storedGuids.has(entry.identity) || entry.link === null) return { entry, guid: entry.identity };
    if (linkCounts.get(entry.link) !== 1 || storedLinkCounts.get(entry.link) !== 1)
      return { entry, guid: entry.identity };
    const previous = guidByLink.get(entry.link);
    if (previous === undefined || claimed.has(previous)) return { entry, guid: entry.identity };
    claimed.add(previous);
    return { entry, guid: previous };
  });
}
