/**
 * `Last-Modified` for answers whose bytes are known but whose change time is not (spec §5.2 asks
 * for both validators on output feeds): for each URL, the time this process first served its
 * current entity tag. A changed answer always gets a later time than any copy a client holds (a
 * process that never served the URL starts at "now"), so `If-Modified-Since` never hides a change;
 * at worst a process that restarted answers 200 where 304 would have done.
 */
export class ChangeClock {
  readonly #seen = new Map<string, { etag: string; since: number }>();
  readonly #maxEntries: number;

  constructor(maxEntries = 1000) {
    this.#maxEntries = maxEntries;
  }

  /** The change time (epoch ms, whole seconds) of `url` now that it answers `etag`. */
  lastModified(url: string, etag: string, now: number): number {
    const entry = this.#seen.get(url);
    if (entry?.etag === etag) return entry.since;
    // HTTP dates have whole seconds: a change within the second of the previous answer still moves
    // the time on, or a client holding that answer would be told it is current.
    const since = Math.max(Math.floor(now / 1000) * 1000, entry === undefined ? 0 : entry.since + 1000);
    this.#seen.delete(url);
    // Oldest first (a Map iterates in insertion order): a client of a forgotten URL gets a 200.
    if (this.#seen.size >= this.#maxEntries) this.#seen.delete(this.#seen.keys().next().value as string);
    this.#seen.set(url, { etag, since });
    return since;
  }
}
