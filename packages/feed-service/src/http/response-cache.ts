/**
 * Answers of pure operations (see FeedOperation.pure) kept as ready bytes, keyed by the request
 * body, its content type and the base URL, and valid only while the store's data version is the
 * one they were computed under. Clients that poll the same call (a dashboard asking for the 20
 * newest posts) get the stored bytes without decoding, querying or encoding again; any write, by
 * this process or another, makes every entry stale.
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
}

export const defaultCacheLimits: ResponseCacheLimits = {
  maxRequestBytes: 4096,
  maxEntries: 1000,
  maxTotalBytes: 64 * 1024 * 1024,
};

export class ResponseCache {
  readonly #limits: ResponseCacheLimits;
  readonly #entries = new Map<string, CachedResponse>();
  #totalBytes = 0;

  constructor(limits: ResponseCacheLimits = defaultCacheLimits) {
    this.#limits = limits;
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
