/**
 * Identity and deduplication for one document against what the store already holds for the
 * feed. Within a document, the first entry with an identity wins. Across fetches, an entry whose
 * guid the store has never seen but whose link belongs to exactly one stored post is that post
 * with a changed guid (feeds that put a timestamp or session into their guids): it keeps the
 * stored guid, so it updates the post instead of adding a duplicate. Links shared by several
 * entries (everything pointing at a home page) are never used for this.
 */
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

/** A document's entries with a new identity, and what the store must say about them. */
export interface IdentityLookup {
  readonly unique: readonly NormalisedEntry[];
  readonly linkCounts: ReadonlyMap<string, number>;
  /** The keys to look up among the feed's stored posts (Store.postKeys). */
  readonly keys: { guids: string[]; links: string[] };
}

/**
 * The first step: which stored posts to look up (the entries' guids, and links that occur once).
 *
 * @example
 * const lookup = identityLookup(doc.entries);
 * const identities = resolveIdentities(lookup, await store.postKeys(feedId, lookup.keys));
 */
export function identityLookup(entries: readonly NormalisedEntry[]): IdentityLookup {
  const seen = new Set<string>();
  const unique = entries.filter((e) => !seen.has(e.identity) && seen.add(e.identity));
  const linkCounts = counts(unique.map((e) => e.link));
  const links = [...linkCounts].filter(([, n]) => n === 1).map(([l]) => l);
  return { unique, linkCounts, keys: { guids: unique.map((e) => e.identity), links } };
}

/** The second step: each entry's guid, given the stored posts the lookup found. */
export function resolveIdentities(
  lookup: IdentityLookup,
  stored: ReadonlyArray<{ guid: string; link: string }>,
): ResolvedEntry[] {
  const { unique, linkCounts } = lookup;
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
