/**
 * Answers of pure operations (see FeedOperation.pure) kept as ready bytes, keyed by the request
 * body, its content type and the base URL, and valid only while the store's data version is the
 * one they were computed under. Clients that poll the same call (a dashboard asking for the 20
 * newest posts) get the stored bytes without decoding, querying or encoding again; any write, by
 * this process or another, makes every entry stale.
 *
 * An answer is kept from the second time its request is seen (`wanted`): a request that comes
 * once (most searches, a crawler's deep pages) would only push out answers that are asked for
 * again, and its bytes, alive just long enough to leave the young generation, would cost full
 * garbage collections (a stream of one-off calls had one every half second, each holding requests
 * up for milliseconds). Nor does a first request need the data version (a query of its own on
 * PostgreSQL). The requests seen once are remembered as 32-bit hashes in a fixed table.
 */

export interface CachedResponse {
  readonly version: string;
  readonly contentType: string;
  readonly body: Buffer;
  /** The operation that answered (for the metrics of answers served from here). */
  readonly operation?: string;
  /** The entity tag of `body` (HTTP answers that are validated with If-None-Match). */
  readonly etag?: string;
}

export interface ResponseCacheLimits {
  /** Larger request bodies are not cached (their keys would cost more than they save). */
  readonly maxRequestBytes: number;
  readonly maxEntries: number;
  readonly maxTotalBytes: number;
  /** Slots of the table of requests seen once (a power of two); 0: every request is wanted. */
  readonly seenSlots: number;
}

export const defaultCacheLimits: ResponseCacheLimits = {
  maxRequestBytes: 4096,
  maxEntries: 1000,
  maxTotalBytes: 64 * 1024 * 1024,
  seenSlots: 4096,
};

/** FNV-1a over the UTF-16 code units of `text`, never 0 (0 marks an empty slot). */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0 || 1;
}

export class ResponseCache {
  readonly #limits: ResponseCacheLimits;
  readonly #entries = new Map<string, CachedResponse>();
  readonly #seen: Uint32Array;
  #totalBytes = 0;

  constructor(limits: ResponseCacheLimits = defaultCacheLimits) {
    if (limits.seenSlots !== 0 && (limits.seenSlots & (limits.seenSlots - 1)) !== 0) {
      throw new RangeError(`seenSlots must be 0 or a power of two; got ${limits.seenSlots}`);
    }
    this.#limits = limits;
    this.#seen = new Uint32Array(limits.seenSlots);
  }

  /**
   * The key for a request (a SOAP body, or the method and URL of a GET), or undefined when the
   * request is too large to be worth caching.
   */
  key(body: Buffer | string, contentType: string | undefined, baseUrl: string): string | undefined {
    if (body.length > this.#limits.maxRequestBytes) return undefined;
    const text = typeof body === "string" ? body : body.toString("latin1");
    return `${baseUrl}\n${contentType ?? ""}\n${text}`;
  }

  get(key: string, version: string): CachedResponse | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.version !== version) {
      this.#delete(key, entry);
      return undefined;
    }
    return entry;
  }

  /**
   * Whether the answer to this request is worth a lookup and a place: it is kept already, or the
   * request came before. A first request is remembered, and its answer is neither looked up nor
   * kept (so the caller need not read the data version for it).
   */
  wanted(key: string): boolean {
    if (this.#seen.length === 0 || this.#entries.has(key)) return true;
    const h = hash32(key);
    const slot = h & (this.#seen.length - 1);
    if (this.#seen[slot] === h) return true;
    this.#seen[slot] = h;
    return false;
  }

  /**
   * The lookup every adapter makes before answering a request keyed `key` (undefined: too large to
   * key): the data version to keep a fresh answer under, and the kept answer when it is still
   * valid. The version is read before the call, so a write during the call leaves the entry
   * stale; it is not read at all for a request that is not `wanted`, nor when reading it fails.
   */
  async lookup(
    key: string | undefined,
    dataVersion: () => Promise<string>,
  ): Promise<{ version?: string; hit?: CachedResponse }> {
    if (key === undefined || !this.wanted(key)) return {};
    const version = await dataVersion().catch(() => undefined);
    return version === undefined ? {} : { version, hit: this.get(key, version) };
  }

  /** Keeps `entry` for `key` when it fits the budget, pushing out the oldest entries as needed. */
  set(key: string, entry: CachedResponse): void {
    const size = entry.body.length + key.length;
    if (size > this.#limits.maxTotalBytes / 4) return;
    const old = this.#entries.get(key);
    if (old) this.#delete(key, old);
    // Oldest first (a Map iterates in insertion order) until the new entry fits.
    for (const [k, e] of this.#entries) {
      if (
        this.#entries.size < this.#limits.maxEntries &&
        this.#totalBytes + size <= this.#limits.maxTotalBytes
      )
        break;
      this.#delete(k, e);
    }
    this.#entries.set(key, entry);
    this.#totalBytes += size;
  }

  get size(): number {
    return this.#entries.size;
  }

  #delete(key: string, entry: CachedResponse): void {
    this.#entries.delete(key);
    this.#totalBytes -= entry.body.length + key.length;
  }
}
